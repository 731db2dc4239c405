"""A page's frame kept in memory (portal/frames.py), seen through the standards section page: a
kept page is the page as it would be rendered afresh, with each request's own CSRF token and CSP
nonce, for its own user only, and never with a message meant to be shown once."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.shortcuts import render
from django.test import Client

from portal import frames
from tests.portal.accounts.helpers import sign_in
from tests.portal.pages import ADMIN_LINK
from tests.portal.standards.helpers import (
    CROPS,
    STORAGE,
    demo_references,
    kept_page_key,
    main,
    refreshed_at,
    shown_references,
)

pytestmark = pytest.mark.django_db
SIGNED_OUT = "You have signed out."

_FORM_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]*)"')
_HEADER_TOKEN = re.compile(r'"X-CSRFToken": "([^"]*)"')
_NONCE = re.compile(r'nonce="([^"]*)"')
_POLICY_NONCE = re.compile(r"'nonce-([^']*)'")
_MARKER = re.compile(r"(?:csrf|nonce)-[0-9a-f]{32}")
_WHO = re.compile(r'<span class="who-name"[^>]*>([^<]*)</span>')
_SIGN_OUT_FORM = re.compile(r'<form method="post" action="([^"]*)">\s*<input type="hidden"')


def html_of(response) -> str:
    assert response.status_code == 200
    html = response.content.decode()
    assert not _MARKER.search(html), "a frame's marker was left in the page"
    return html


def form_tokens(html: str) -> list[str]:
    return _FORM_TOKEN.findall(html)


def header_tokens(html: str) -> list[str]:
    return _HEADER_TOKEN.findall(html)


def nonces(html: str) -> list[str]:
    return _NONCE.findall(html)


def the_token(html: str) -> str:
    """The page's CSRF token: the same in the sign-out form and in htmx's headers."""
    [token] = set(form_tokens(html) + header_tokens(html))
    return token


def the_nonce(html: str) -> str:
    [nonce] = set(nonces(html))
    return nonce


def without_tokens(html: str) -> str:
    """The page with its CSRF tokens and nonces each replaced by a fixed string."""
    html = _FORM_TOKEN.sub('name="csrfmiddlewaretoken" value="TOKEN"', html)
    html = _HEADER_TOKEN.sub('"X-CSRFToken": "TOKEN"', html)
    return _NONCE.sub('nonce="NONCE"', html)


def headers_without_nonce(response) -> dict[str, str]:
    return {
        name: _POLICY_NONCE.sub("'nonce-NONCE'", value) for name, value in response.headers.items()
    }


def who(html: str) -> str:
    [name] = _WHO.findall(html)
    return name


def rendered_without_keeping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page rendered afresh, as it was before frames were kept."""

    def render_afresh(request, template_name, context, *, vary):
        return render(request, template_name, context)

    monkeypatch.setattr(frames, "render_kept", render_afresh)


def signed_in(username: str, **client_options: bool) -> Client:
    client = Client(**client_options)
    assert sign_in(client, username).status_code == 302
    return client


# --- the kept page is the page --------------------------------------------------------------------


def test_a_kept_page_is_the_page_as_rendered_afresh(grower, monkeypatch):
    fresh = grower.get(STORAGE)
    kept = grower.get(STORAGE)
    rendered_without_keeping(monkeypatch)
    normal = grower.get(STORAGE)
    assert without_tokens(html_of(kept)) == without_tokens(html_of(normal))
    assert without_tokens(html_of(fresh)) == without_tokens(html_of(normal))
    assert headers_without_nonce(kept) == headers_without_nonce(normal)
    html = html_of(kept)
    assert shown_references(main(html)) == demo_references("crops", "CR.ST")
    assert "<title>Storage · Assurance portal</title>" in html
    assert who(html) == "grower"
    # what was replaced is there to replace: a token twice, a nonce on the script
    assert len(form_tokens(html)) == len(header_tokens(html)) == 1
    assert len(nonces(html)) == 1


def title(html: str) -> str:
    [found] = re.findall(r"<title>([^<]*)</title>", html)
    return found


def test_each_section_has_a_frame_of_its_own(grower):
    traceability = f"/standards/{CROPS}/CR/TR/"
    for _ in range(2):  # fresh frames, then kept ones
        storage = html_of(grower.get(STORAGE))
        other = html_of(grower.get(traceability))
        assert title(storage) == "Storage · Assurance portal"
        assert title(other) == "Traceability · Assurance portal"
        assert shown_references(main(storage)) == demo_references("crops", "CR.ST")
        assert shown_references(main(other)) == demo_references("crops", "CR.TR")


def test_the_page_is_the_same_after_the_frames_are_forgotten(grower):
    grower.get(STORAGE)  # makes the frame
    kept = grower.get(STORAGE)
    frames.forget()
    again = grower.get(STORAGE)
    assert without_tokens(html_of(again)) == without_tokens(html_of(kept))


# --- each request's own token and nonce -----------------------------------------------------------


def test_every_request_gets_its_own_token_and_nonce(grower):
    responses = [grower.get(STORAGE) for _ in range(3)]  # a fresh frame, then two kept ones
    pages = [html_of(response) for response in responses]
    tokens = [the_token(html) for html in pages]
    page_nonces = [the_nonce(html) for html in pages]
    assert len(set(tokens)) == 3
    assert len(set(page_nonces)) == 3
    for response, nonce in zip(responses, page_nonces, strict=True):
        policy = response.headers["Content-Security-Policy"]
        assert _POLICY_NONCE.findall(policy) == [nonce]
        assert "script-src 'self' 'nonce-" in policy


@pytest.fixture
def strict_grower(upstream_sandbox) -> Client:
    """The grower signed in through the form by a client that checks CSRF tokens, as the
    portal checks a browser's."""
    client = Client(enforce_csrf_checks=True)
    [token] = form_tokens(html_of(client.get("/accounts/sign-in/")))
    assert sign_in(client, "grower", csrfmiddlewaretoken=token).status_code == 302
    return client


def test_a_kept_pages_token_signs_out(strict_grower):
    client = strict_grower
    # Another session of the same user makes the frame; this one's page comes from it.
    other = signed_in("grower")
    html_of(other.get(STORAGE))
    html_of(client.get(STORAGE))
    kept = html_of(client.get(STORAGE))
    [action] = _SIGN_OUT_FORM.findall(kept)
    assert action == "/accounts/sign-out/"
    response = client.post(action, {"csrfmiddlewaretoken": the_token(kept)})
    assert response.status_code == 302
    assert response.url == "/accounts/sign-in/"
    after = client.get(STORAGE)
    assert after.status_code == 302
    assert after.url.startswith("/accounts/sign-in/?next=")
    assert html_of(other.get(STORAGE))  # the other session is still signed in


def test_a_kept_pages_htmx_header_token_is_accepted(strict_grower):
    client = strict_grower
    html_of(client.get(STORAGE))
    kept = html_of(client.get(STORAGE))
    [header_token] = header_tokens(kept)
    response = client.post("/accounts/sign-out/", headers={"X-CSRFToken": header_token})
    assert response.status_code == 302
    assert client.get(STORAGE).status_code == 302


def test_a_made_up_token_is_still_refused(strict_grower):
    client = strict_grower
    html_of(client.get(STORAGE))
    html_of(client.get(STORAGE))
    response = client.post("/accounts/sign-out/", {"csrfmiddlewaretoken": frames._CSRF_MARK})
    assert response.status_code == 403
    assert html_of(client.get(STORAGE))


# --- users --------------------------------------------------------------------------------------


def test_two_users_never_share_a_frame(grower, upstream_sandbox):
    call_command("grant_staff", "grower")
    haulier = signed_in("haulier")
    for _ in range(2):  # a fresh frame for each, then the kept one
        growers = html_of(grower.get(STORAGE))
        hauliers = html_of(haulier.get(STORAGE))
        assert who(growers) == "grower"
        assert who(hauliers) == "haulier"
        assert ADMIN_LINK in growers
        assert "/admin/" not in hauliers
        assert shown_references(main(hauliers)) == shown_references(main(growers))
    call_command("grant_staff", "grower", "--revoke")
    growers = html_of(grower.get(STORAGE))
    assert who(growers) == "grower"
    assert "/admin/" not in growers
    assert ADMIN_LINK not in html_of(grower.get(STORAGE))
    assert "/admin/" not in html_of(haulier.get(STORAGE))


# --- messages -----------------------------------------------------------------------------------


def signed_out_and_in_again(client: Client) -> None:
    """Signs out (which leaves "You have signed out." to be shown) and in again, following
    neither redirect, so that the message is still waiting."""
    assert client.post("/accounts/sign-out/").status_code == 302
    assert sign_in(client, "grower").status_code == 302


def test_a_waiting_message_is_shown_once_over_a_kept_frame(grower):
    html_of(grower.get(STORAGE))
    html_of(grower.get(STORAGE))
    signed_out_and_in_again(grower)
    with_message = html_of(grower.get(STORAGE))
    assert main(with_message).count(SIGNED_OUT) == 1
    assert shown_references(main(with_message)) == demo_references("crops", "CR.ST")
    assert SIGNED_OUT not in html_of(grower.get(STORAGE))
    assert SIGNED_OUT not in html_of(grower.get(STORAGE))


def test_a_page_with_a_message_is_not_kept(grower):
    signed_out_and_in_again(grower)
    assert html_of(grower.get(STORAGE)).count(SIGNED_OUT) == 1
    after = html_of(grower.get(STORAGE))
    assert SIGNED_OUT not in after
    assert 'class="messages"' not in after
    assert SIGNED_OUT not in html_of(grower.get(STORAGE))


# --- content refreshed ----------------------------------------------------------------------------


def test_a_page_refreshed_at_another_time_gets_its_own_frame(grower, settings):
    first = html_of(grower.get(STORAGE))
    assert refreshed_at(html_of(grower.get(STORAGE))) == refreshed_at(first)
    kept = cache.get(kept_page_key())
    hour_ago = kept.refreshed - timedelta(hours=1)
    cache.set(kept_page_key(), replace(kept, refreshed=hour_ago))
    settings.STANDARDS_FRESH_SECONDS = 2 * 60 * 60  # the page an hour old is served as it is
    older = html_of(grower.get(STORAGE))
    assert refreshed_at(older) == refreshed_at(first) - timedelta(hours=1)
    assert refreshed_at(html_of(grower.get(STORAGE))) == refreshed_at(older)
    settings.STANDARDS_FRESH_SECONDS = 0  # checked again with the upstream: refreshed now
    newer = html_of(grower.get(STORAGE))
    assert refreshed_at(newer) >= refreshed_at(first)
    assert cache.get(kept_page_key()).refreshed > hour_ago + timedelta(minutes=59)
    assert shown_references(main(newer)) == demo_references("crops", "CR.ST")
