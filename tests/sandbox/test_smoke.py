import requests


def test_the_sandbox_lists_schemes_to_a_signed_in_grower(sandbox):
    response = requests.get(
        sandbox.endpoint("/v1/standards.eb"),
        auth=("grower", "grower-demo-pass"),
        headers={"Accept": "application/json"},
        timeout=10,
    )
    assert response.status_code == 200
    names = [item["SchemeName"] for item in response.json()["items"]]
    assert "Combinable Crops and Sugar Beet" in names
