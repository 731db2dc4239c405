"""The portal's own headers (django-permissions-policy, portal/accounts/middleware.py): signed-in
pages are kept by no cache, and no page may use the browser's camera, microphone, location,
payments, USB and the like."""

from __future__ import annotations

import pytest
from django.http import HttpResponse
from django.test import Client

from tests.portal.accounts.helpers import replace_view

pytestmark = pytest.mark.django_db

DENIED = ("camera", "microphone", "geolocation", "payment", "usb", "serial", "display-capture")


def directives(header: str) -> set[str]:
    return {part.strip() for part in header.split(",")}


def policy(response: HttpResponse) -> dict[str, str]:
    return dict(part.split("=", 1) for part in directives(response["Permissions-Policy"]))


def test_a_signed_in_page_is_kept_by_no_cache(grower: Client):
    response = grower.get("/")
    assert response.status_code == 200
    assert {"private", "no-store"} <= directives(response["Cache-Control"])


def test_a_signed_in_fragment_is_kept_by_no_cache(grower: Client):
    response = grower.get("/memberships/", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert {"private", "no-store"} <= directives(response["Cache-Control"])


def test_a_signed_in_error_page_is_kept_by_no_cache(grower: Client):
    response = grower.get("/no-such-page/")
    assert response.status_code == 404
    assert {"private", "no-store"} <= directives(response["Cache-Control"])


def test_a_views_own_cache_control_is_kept(grower: Client, monkeypatch):
    def cached_briefly(request):
        response = HttpResponse("kept a minute")
        response["Cache-Control"] = "private, max-age=60"
        return response

    replace_view(monkeypatch, "home", cached_briefly)
    assert grower.get("/")["Cache-Control"] == "private, max-age=60"


def test_an_anonymous_page_gets_no_cache_control_of_ours(client: Client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert "Cache-Control" not in response


def test_the_sign_in_page_denies_the_features_the_portal_does_not_use(client: Client):
    response = client.get("/accounts/sign-in/")
    assert response.status_code == 200
    features = policy(response)
    for feature in DENIED:
        assert features[feature] == "()", feature


@pytest.mark.parametrize(
    "path", ["/healthz", "/no-such-page/", "/static/css/portal.css", "/address-too-long/"]
)
def test_every_response_has_the_permissions_policy(client: Client, path: str):
    response = client.get(path)
    assert policy(response)["camera"] == "()"


def test_a_signed_in_page_has_it_too(grower: Client):
    assert policy(grower.get("/"))["microphone"] == "()"
