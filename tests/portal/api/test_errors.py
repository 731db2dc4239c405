"""The API answers every error in one shape, `{"error": {"code", "message", "fields"}}`, and in
JSON, never a page of HTML: an unknown address under /api/v1/, a method an address does not take,
a body too large or not JSON, a field of the wrong type or unknown, a failure of the portal."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from openapi_spec_validator import validate

from portal.intake import door
from tests.portal.api.builders import bearer, site_token
from tests.portal.intake.builders import a_site

pytestmark = pytest.mark.django_db


def shape_of(response) -> dict:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    return body["error"]


@pytest.mark.parametrize("address", ["/api/v1/nothing", "/api/v1/intake/loads/9999x", "/api/v2/"])
def test_an_unknown_address_is_404_in_json(address):
    response = Client().get(address)
    assert response.status_code == 404
    assert shape_of(response)["code"] == "not_found"


def test_a_method_not_taken_is_405_in_json():
    response = Client().delete("/api/v1/intake/loads")
    assert response.status_code == 405
    assert shape_of(response)["code"] == "method_not_allowed"
    assert "GET" in response["Allow"] and "POST" in response["Allow"]


def test_a_body_over_a_mebibyte_is_413_unread():
    response = Client().post("/api/v1/intake/loads", b"[" + b" " * (1024 * 1024) + b"]",
                             content_type="application/json")  # fmt: skip
    assert response.status_code == 413
    assert shape_of(response)["code"] == "body_too_large"


def test_a_body_that_is_not_json_is_400_with_its_field(upstream_sandbox):
    token = site_token(a_site())
    response = Client().post("/api/v1/intake/loads", b"{nope", content_type="application/json",
                             headers=bearer(token))  # fmt: skip
    assert response.status_code == 400
    error = shape_of(response)
    assert error["code"] == "body_not_json" and list(error["fields"]) == ["body"]


def test_a_failure_of_the_portal_is_500_in_json_and_logged(upstream_sandbox, monkeypatch, caplog):
    token = site_token(a_site())

    def broken(*args, **kwargs):
        raise RuntimeError("a fault the portal cannot bring about on purpose")

    monkeypatch.setattr(door, "take", broken)
    response = Client(raise_request_exception=False).post(
        "/api/v1/intake/loads", json.dumps({"ticket": "T-1"}), content_type="application/json",
        headers=bearer(token),
    )  # fmt: skip
    assert response.status_code == 500
    error = shape_of(response)
    assert error["code"] == "server_error" and "fault" not in error["message"]
    assert "The API failed" in caplog.text


def test_the_document_and_its_page_are_the_api_s_own():
    document = Client().get("/api/v1/openapi.json")
    assert document.status_code == 200
    described = document.json()
    assert described["openapi"].startswith("3.1")
    assert "/api/v1/intake/loads" in described["paths"]
    assert described["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"
    page = Client().get("/api/v1/docs")
    assert page.status_code == 200
    html = page.content.decode()
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    assert "http://" not in html and "https://" not in html and "<script>" not in html
    policy = page["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe" not in policy


def test_the_document_is_valid_openapi():
    validate(Client().get("/api/v1/openapi.json").json())
