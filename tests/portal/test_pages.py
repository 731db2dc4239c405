"""The home page, the memberships panel and the error pages."""

from __future__ import annotations

from datetime import datetime

import pytest
import redis
import requests
import time_machine
from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.test import Client

from portal.assurance import service
from tests.portal.accounts.helpers import (
    AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN,
    replace_view,
    sign_in,
    upstream_calls,
)
from tests.portal.intake.builders import a_clerk, a_site
from tests.portal.pages import navigation
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db

NO_MEMBERSHIPS = b"You are not a registered contact of any membership"


def assert_no_leak(response) -> None:
    """No stack trace, no upstream address or body, no debug page."""
    content = response.content.decode()
    for telltale in ("Traceback", "File \"", "127.0.0.1:9", "Connection refused", "Errors",
                     "OperationError", "settings.py", "DEBUG"):  # fmt: skip
        assert telltale not in content, telltale


class TestHome:
    def test_it_needs_sign_in(self, client):
        response = client.get("/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=/"

    def test_it_greets_the_user(self, client, upstream_sandbox):
        sign_in(client, "grower")
        response = client.get("/")
        assert response.status_code == 200
        assert b"Welcome, grower" in response.content

    def test_it_holds_the_memberships_panel_with_a_real_link(self, client, upstream_sandbox):
        sign_in(client, "grower")
        content = client.get("/").content.decode()
        assert 'id="memberships"' in content
        assert 'hx-get="/memberships/"' in content
        assert '<a href="/memberships/">' in content


GROWERS_TASKS = ("Create a crop passport", "Your passports")
INTAKE = "Intake at Stour Valley Grain, Sudbury"


@pytest.mark.parametrize(
    ("username", "clerk", "offered", "not_offered"),
    [("grower", False, GROWERS_TASKS, (INTAKE,)),
     ("intake", True, (INTAKE, "Look up a passport"), GROWERS_TASKS),
     ("grower", True, (*GROWERS_TASKS, INTAKE), ()),
     ("haulier", False, ("Look up a passport", "Check a day's loads"), (*GROWERS_TASKS, INTAKE))],
    ids=["grower", "clerk", "grower-and-clerk", "neither"],
)  # fmt: skip
def test_the_home_offers_what_its_user_can_do(
    client, upstream_sandbox, username, clerk, offered, not_offered
):
    if clerk:
        a_clerk(username, a_site())
    sign_in(client, username)
    page = text(client.get("/"))
    for task in offered:
        assert task in page, task
    for task in not_offered:
        assert task not in page, task
    if clerk:
        assert 'href="/intake/sites/stour-valley-sudbury/"' in client.get("/").content.decode()


@pytest.mark.parametrize(("username", "clerk", "grower"),
                         [("grower", False, True), ("intake", True, False),
                          ("haulier", False, False)])  # fmt: skip
def test_every_page_s_menu_offers_the_growers_pages_to_growers_alone(
    client, upstream_sandbox, username, clerk, grower
):
    if clerk:
        a_clerk(username, a_site())
    sign_in(client, username)
    for address in ("/p/", "/accounts/you/", "/jobs/", "/"):  # the home page, which asks, last
        menu = navigation(client.get(address).content.decode())
        assert ("Create a passport" in menu) is grower, address
        assert ('<a href="/passports/"' in menu) is grower, address
        assert ("Intake" in menu) is clerk, address


def test_the_home_straight_after_sign_in_asks_the_service_nothing_more_of_the_account(
    client, upstream_sandbox
):
    sign_in(client, "grower")  # which asked the service for the account
    with upstream_calls() as calls:
        home = text(client.get("/"))
    assert calls == []
    assert "Create a crop passport" in home  # offered from the account the sign-in was given


def test_the_home_offers_the_growers_tasks_when_the_service_cannot_say(
    client, upstream_sandbox, settings
):
    sign_in(client, "haulier")
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    service.client.cache_clear()
    try:
        with time_machine.travel(AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN):
            response = client.get("/")
    finally:
        service.client.cache_clear()
    assert response.status_code == 200
    assert "Create a crop passport" in text(response)  # its page says what is wrong


def service_memberships(sandbox, username: str) -> list[dict]:
    """The user's memberships as the service gives them."""
    response = requests.get(
        f"{sandbox.url}/v1/authorisation.eb",
        auth=(username, f"{username}-demo-pass"),
        headers={"Accept": "application/json", "X-Forwarded-For": "198.51.100.250"},
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["Memberships"]


class TestMemberships:
    def test_it_needs_sign_in(self, client):
        response = client.get("/memberships/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=/memberships/"

    def test_it_lists_the_users_memberships_with_their_status(self, client, upstream_sandbox):
        sign_in(client, "grower")
        response = client.get("/memberships/")
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" in content
        assert "<h1>Your memberships</h1>" in content
        assert content.count('class="membership"') == 2
        assert "Hollowfield Farms Ltd" in content
        assert "Wenham Grange Partnership" in content
        assert content.count('<span class="status status-valid" lang="en">Valid</span>') == 2

    def test_with_htmx_it_returns_only_the_fragment(self, client, upstream_sandbox):
        sign_in(client, "grower")
        response = client.get("/memberships/", headers={"HX-Request": "true"})
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert "<h1>" not in content
        assert content.strip().startswith('<div id="memberships">')
        assert content.count('class="membership"') == 2
        assert "Hollowfield Farms Ltd" in content

    def test_it_varies_on_htmx(self, client, upstream_sandbox):
        sign_in(client, "grower")
        for headers in ({}, {"HX-Request": "true"}):
            response = client.get("/memberships/", headers=headers)
            assert "HX-Request" in response["Vary"]

    def test_it_shows_the_empty_state(self, client, upstream_sandbox):
        sign_in(client, "haulier")
        response = client.get("/memberships/")
        assert NO_MEMBERSHIPS in response.content
        assert b'class="membership"' not in response.content
        fragment = client.get("/memberships/", headers={"HX-Request": "true"})
        assert NO_MEMBERSHIPS in fragment.content
        assert b"<html" not in fragment.content

    def test_it_dates_each_certificate_as_the_service_does(
        self, client, upstream_sandbox, settings
    ):
        """The service ends a certificate at 23:59:59Z: already the next day in a time zone
        east of UTC (London's, in summer), but the certificate's date is the service's."""
        settings.TIME_ZONE = "Pacific/Kiritimati"  # UTC+14: every date would move
        for username, wording in (("grower", "expires"), ("lapsed", "expired on")):
            sign_in(client, username)
            content = " ".join(client.get("/memberships/").content.decode().split())
            for membership in service_memberships(upstream_sandbox, username):
                if membership["Status"] == "Suspended":
                    continue
                day = datetime.fromisoformat(membership["ExpiryDate"]).date()
                shown = f'certificate {wording} <span class="nowrap">{day:%-d %B %Y}</span>'
                assert shown in content, membership["ExpiryDate"]

    def test_it_shows_a_lapsed_membership_as_not_valid(self, client, upstream_sandbox):
        sign_in(client, "lapsed")
        content = client.get("/memberships/").content.decode()
        assert '<span class="status status-invalid" lang="en">Suspended</span>' in content
        assert '<span class="status status-invalid" lang="en">Expired</span>' in content


class TestErrorPages:
    def test_an_unknown_address_gives_the_404_page(self, client):
        response = client.get("/no-such-page/")
        assert response.status_code == 404
        content = response.content.decode()
        assert "<h1>Page not found</h1>" in content
        assert 'class="site-header"' in content  # the layout
        assert_no_leak(response)

    def test_a_failing_view_gives_the_500_page(self, client, upstream_sandbox, monkeypatch):
        sign_in(client, "grower")

        def broken(request):
            raise RuntimeError("a secret detail of the failure")

        replace_view(monkeypatch, "home", broken)
        client.raise_request_exception = False
        response = client.get("/")
        assert response.status_code == 500
        content = response.content.decode()
        assert "Something went wrong on our side" in content
        assert "a secret detail" not in content
        assert "RuntimeError" not in content
        assert_no_leak(response)

    @pytest.mark.parametrize("trouble", [
        OperationalError("couldn't get a connection after 10.00 sec"),
        redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    ])  # fmt: skip
    def test_a_part_out_of_reach_gives_a_503_saying_to_try_again(
        self, client, upstream_sandbox, monkeypatch, trouble
    ):
        """The database restarting, or Redis: for a moment, not the portal's failure."""
        sign_in(client, "grower")

        def out_of_reach(request):
            raise trouble

        replace_view(monkeypatch, "home", out_of_reach)
        client.raise_request_exception = False
        response = client.get("/")
        assert response.status_code == 503
        assert response["Retry-After"] == "30"
        content = response.content.decode()
        assert "The portal is unavailable for a moment" in content
        assert "Please try again in a minute" in content
        assert "connection" not in content.lower()
        assert_no_leak(response)

    def test_a_post_without_the_csrf_token_gives_the_403_page(self):
        client = Client(enforce_csrf_checks=True)
        response = client.post("/accounts/sign-in/", {"username": "grower", "password": "x"})
        assert response.status_code == 403
        content = response.content.decode()
        assert "<h1>That form had expired</h1>" in content
        assert "reload the page and send the form again" in content
        assert 'class="site-header"' in content
        assert_no_leak(response)

    def test_a_refusing_view_gives_the_403_page(self, client, upstream_sandbox, monkeypatch):
        sign_in(client, "grower")

        def refusing(request):
            raise PermissionDenied("a secret reason")

        replace_view(monkeypatch, "home", refusing)
        response = client.get("/")
        assert response.status_code == 403
        content = response.content.decode()
        assert "<h1>You cannot see this page</h1>" in content
        assert 'class="site-header"' in content
        assert "a secret reason" not in content
        assert_no_leak(response)

    def test_an_unreachable_service_gives_the_503_page(self, client, upstream_sandbox, settings):
        sign_in(client, "grower")
        settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
        service.client.cache_clear()
        response = client.get("/memberships/?page=2")
        assert response.status_code == 503
        content = response.content.decode()
        assert "Assurance service unavailable" in content
        assert '<a href="/memberships/?page=2">try again</a>' in content
        assert 'class="site-header"' in content
        assert_no_leak(response)
        assert client.get("/").status_code == 200  # still signed in

    def test_an_unreachable_service_gives_htmx_its_message_alone(
        self, client, upstream_sandbox, settings
    ):
        sign_in(client, "grower")
        settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
        service.client.cache_clear()
        response = client.get(
            "/memberships/",
            headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/?from=home"},
        )
        assert response.status_code == 503
        assert response["HX-Reswap"] == "innerHTML"
        content = response.content.decode()
        assert "<html" not in content
        assert "cannot reach the Assurance service" in content
        assert '<a href="/?from=home">try again</a>' in content
        assert_no_leak(response)

    def test_an_unknown_address_gives_htmx_its_message_alone(self, client, upstream_sandbox):
        sign_in(client, "grower")
        response = client.get("/no-such-page/", headers={"HX-Request": "true"})
        assert response.status_code == 404
        assert "<html" not in response.content.decode()
        assert "There is nothing at this address" in response.content.decode()
