"""The portal's security settings and what every page sends: deploy checks, CSP, CSRF, framing,
HTTPS."""

from __future__ import annotations

import json
import os
import re
import secrets
import string
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client, override_settings

from portal.assurance import service
from tests.conftest import ROOT
from tests.portal.accounts.helpers import replace_view, sign_in

pytestmark = pytest.mark.django_db

PRODUCTION_ENV = {
    "DEBUG": "false",
    "PORTAL_HTTPS": "true",
    "ALLOWED_HOSTS": "portal.example.org",
}
HTTPS_SETTINGS = [
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
]


def production_env() -> dict[str, str]:
    secret = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(60))
    return {**os.environ, **PRODUCTION_ENV, "SECRET_KEY": secret}


def test_the_deploy_checks_pass_in_production():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=production_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stderr


# --- what every page sends ------------------------------------------------------------------------


@dataclass
class Page(HTMLParser):
    """What matters about a page's markup."""

    inline_scripts: int = 0
    scripts: list[dict[str, str | None]] = field(default_factory=list)
    style_attributes: list[str] = field(default_factory=list)
    style_elements: int = 0
    event_handlers: list[str] = field(default_factory=list)
    post_forms: list[bool] = field(default_factory=list)  # each has a CSRF token
    body: dict[str, str | None] | None = None
    _in_post_form: bool = False
    _in_script: bool = False

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if "style" in attributes:
            self.style_attributes.append(tag)
        self.event_handlers += [name for name in attributes if name.startswith("on")]
        if tag == "script":
            self.scripts.append(attributes)
            self._in_script = not attributes.get("src")
            if self._in_script:
                self.inline_scripts += 1
        elif tag == "style":
            self.style_elements += 1
        elif tag == "body":
            self.body = attributes
        elif tag == "form" and (attributes.get("method") or "").lower() == "post":
            self._in_post_form = True
            self.post_forms.append(False)
        elif (
            tag == "input"
            and self._in_post_form
            and attributes.get("name") == "csrfmiddlewaretoken"
            and attributes.get("value")
        ):
            self.post_forms[-1] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_post_form = False
        elif tag == "script":
            self._in_script = False


def parse(response) -> Page:
    page = Page()
    page.feed(response.content.decode())
    page.close()
    return page


def script_src(response) -> list[str]:
    for directive in response["Content-Security-Policy"].split(";"):
        name, _, values = directive.strip().partition(" ")
        if name == "script-src":
            return values.split()
    raise AssertionError("The policy has no script-src.")


def forbidden(request):
    raise PermissionDenied


def signed_in(client: Client) -> Client:
    assert sign_in(client, "grower").status_code == 302
    return client


PAGES = {
    "sign-in": lambda client: client.get("/accounts/sign-in/"),
    "sign-in with errors": lambda client: client.post("/accounts/sign-in/", {}),
    "home": lambda client: signed_in(client).get("/"),
    "memberships": lambda client: signed_in(client).get("/memberships/"),
    "memberships fragment": lambda client: signed_in(client).get(
        "/memberships/", headers={"HX-Request": "true"}
    ),
    "not found": lambda client: signed_in(client).get("/no-such-page/"),
}
FULL_PAGES = [name for name in PAGES if name != "memberships fragment"]


@pytest.fixture(params=list(PAGES))
def page(request, client, upstream_sandbox):
    """Each page in turn, as its response."""
    return request.param, PAGES[request.param](client)


def test_every_page_has_a_strict_content_security_policy(page):
    name, response = page
    policy = response["Content-Security-Policy"]
    assert "'unsafe-inline'" not in policy
    assert "'unsafe-eval'" not in policy
    assert "frame-ancestors 'none'" in policy
    assert "object-src 'none'" in policy
    sources = script_src(response)
    if name in FULL_PAGES:
        [nonce] = [s for s in sources if s.startswith("'nonce-")]
        scripts = parse(response).scripts
        assert scripts  # htmx
        for script in scripts:
            assert f"'nonce-{script['nonce']}'" == nonce


def test_no_page_has_inline_scripts_or_styles(page):
    _, response = page
    markup = parse(response)
    assert markup.inline_scripts == 0
    assert markup.style_attributes == []
    assert markup.style_elements == 0
    assert markup.event_handlers == []


def test_every_post_form_has_a_csrf_token(page):
    name, response = page
    forms = parse(response).post_forms
    assert all(forms)
    if name in ("home", "memberships"):
        assert forms  # the sign-out form


def test_every_page_forbids_framing_and_sniffing(page):
    _, response = page
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_the_body_gives_htmx_the_csrf_token(upstream_sandbox):
    client = Client(enforce_csrf_checks=True)
    page = client.get("/accounts/sign-in/")
    token = json.loads(parse(page).body["hx-headers"])["X-CSRFToken"]
    assert sign_in(client, "grower", csrfmiddlewaretoken=token).status_code == 302

    home = client.get("/")
    token = json.loads(parse(home).body["hx-headers"])["X-CSRFToken"]
    assert token
    assert client.post("/accounts/sign-out/").status_code == 403
    response = client.post("/accounts/sign-out/", headers={"X-CSRFToken": token})
    assert response.status_code == 302
    assert client.get("/").status_code == 302  # signed out


def test_the_error_pages_are_as_strict(client, upstream_sandbox, settings, monkeypatch):
    signed_in(client)
    replace_view(monkeypatch, "home", forbidden)
    refused = client.get("/")
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    service.client.cache_clear()
    unavailable = client.get("/memberships/")
    assert (refused.status_code, unavailable.status_code) == (403, 503)
    for response in (refused, unavailable):
        assert "'unsafe-inline'" not in response["Content-Security-Policy"]
        assert any(s.startswith("'nonce-") for s in script_src(response))
        assert response["X-Frame-Options"] == "DENY"
        markup = parse(response)
        assert (markup.inline_scripts, markup.style_elements) == (0, 0)
        assert markup.style_attributes == []
        assert all(markup.post_forms)


def test_the_500_page_is_as_strict(client, monkeypatch):
    def broken(request):
        raise RuntimeError("broken")

    replace_view(monkeypatch, "home", broken)
    client.raise_request_exception = False
    response = client.get("/")
    assert response.status_code == 500
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    markup = parse(response)
    assert (markup.inline_scripts, markup.style_elements) == (0, 0)
    assert markup.style_attributes == []


def test_the_csrf_failure_page_is_as_strict():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/sign-in/", {"username": "grower", "password": "x"})
    assert response.status_code == 403
    markup = parse(response)
    assert (markup.inline_scripts, markup.style_elements) == (0, 0)
    assert markup.style_attributes == []


# --- HTTPS ----------------------------------------------------------------------------------------


@pytest.fixture
def https_settings() -> dict[str, object]:
    """The settings PORTAL_HTTPS=true gives, read from the settings module in production."""
    names = json.dumps(HTTPS_SETTINGS)
    code = (
        "import json; from portal import settings as s; "
        f"print(json.dumps({{n: getattr(s, n) for n in json.loads({names!r})}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT, env=production_env(), capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    values = json.loads(result.stdout)
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["SECURE_HSTS_SECONDS"] >= 31_536_000
    return values


def test_under_https_the_cookies_are_secure(client, upstream_sandbox, https_settings):
    with override_settings(**https_settings):
        client.get("/accounts/sign-in/", secure=True)
        response = client.post(
            "/accounts/sign-in/",
            {"username": "grower", "password": "grower-demo-pass"},
            secure=True,
        )
        assert response.status_code == 302
        for name in ("sessionid", "csrftoken"):
            cookie = client.cookies[name]
            assert cookie["secure"] is True, name
        assert client.cookies["sessionid"]["httponly"] is True
        assert client.cookies["sessionid"]["samesite"] == "Lax"


def test_under_https_hsts_is_sent(client, https_settings):
    with override_settings(**https_settings):
        response = client.get("/accounts/sign-in/", secure=True)
        hsts = response["Strict-Transport-Security"]
        assert re.fullmatch(r"max-age=\d+; includeSubDomains; preload", hsts)
        assert int(hsts.split(";")[0].split("=")[1]) >= 31_536_000


def test_under_https_plain_http_is_redirected(client, https_settings):
    with override_settings(**https_settings):
        response = client.get("/accounts/sign-in/")
        assert response.status_code == 301
        assert response["Location"] == "https://testserver/accounts/sign-in/"


def test_without_https_hsts_is_not_sent(client):
    response = client.get("/accounts/sign-in/")
    assert "Strict-Transport-Security" not in response
