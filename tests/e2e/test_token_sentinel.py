"""The upstream token, a sentinel: across a whole signed-in browsing session it appears in no
response the browser gets (body or header), no cookie, no request the browser sends, and no
log line of the portal (every logger at DEBUG, SQL included) or of the sandbox. The password
appears in no log line and no response either."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from playwright.sync_api import Error, Page, Response, expect

from portal.accounts import credentials
from tests.e2e.conftest import GROWER, memberships_loaded, sign_in, sign_out

pytestmark = pytest.mark.browser


@dataclass
class Exchange:
    url: str
    status: int
    request_headers: dict[str, str]
    response_headers: dict[str, str]
    body: str

    def texts(self) -> dict[str, str]:
        return {
            "url": self.url,
            "request headers": repr(self.request_headers),
            "response headers": repr(self.response_headers),
            "body": self.body,
        }


def _record(exchanges: list[Exchange], response: Response) -> None:
    try:
        body = response.text()
    except Error:  # a redirect's body is not kept
        body = ""
    exchanges.append(
        Exchange(
            url=response.url,
            status=response.status,
            request_headers=response.request.all_headers(),
            response_headers=response.all_headers(),
            body=body,
        )
    )


@contextmanager
def every_logger_at_debug(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """caplog hears every logger at DEBUG, those that do not propagate too, and the SQL."""
    caplog.set_level(logging.DEBUG)
    names = [n for n, x in logging.root.manager.loggerDict.items() if isinstance(x, logging.Logger)]
    for name in names:
        caplog.set_level(logging.DEBUG, logger=name)
    secluded = [logging.getLogger(n) for n in names if not logging.getLogger(n).propagate]
    for logger in secluded:
        logger.addHandler(caplog.handler)
    # The live server shares this in-memory SQLite connection; log its queries as DEBUG would.
    was_forced, connection.force_debug_cursor = connection.force_debug_cursor, True
    try:
        yield
    finally:
        connection.force_debug_cursor = was_forced
        for logger in secluded:
            logger.removeHandler(caplog.handler)


def test_the_token_is_in_no_response_cookie_or_log_line(
    page: Page,
    portal_url: str,
    sandbox,
    upstream_tokens: list[str],
    caplog: pytest.LogCaptureFixture,
):
    username, password = GROWER
    sandbox_log_start = sandbox.log.stat().st_size
    exchanges: list[Exchange] = []
    page.on("response", lambda response: _record(exchanges, response))
    cookie_jars: list[list[dict]] = []

    with every_logger_at_debug(caplog):
        sign_in(page, portal_url, username, password)
        expect(page).to_have_url(f"{portal_url}/")
        memberships_loaded(page)  # the htmx panel
        cookie_jars.append(page.context.cookies())
        document_cookie = page.evaluate("document.cookie")

        # The token is kept, encrypted, in the server-side session.
        [token] = upstream_tokens
        assert len(token) >= 32
        [session] = Session.objects.all()
        assert credentials.decrypt(session.get_decoded()[credentials.TOKEN_KEY]) == token
        assert token not in session.session_data
        assert token not in repr(session.get_decoded())

        page.goto(f"{portal_url}/memberships/")
        expect(page.locator(".membership")).to_have_count(2)
        page.goto(f"{portal_url}/no-such-page")
        expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
        page.goto(f"{portal_url}/")
        memberships_loaded(page)
        cookie_jars.append(page.context.cookies())
        sign_out(page)
        cookie_jars.append(page.context.cookies())
        page.wait_for_load_state("networkidle")

    # The sentinel saw what it should have: the pages, the htmx panel, the 404, the logs.
    assert len(upstream_tokens) == 1
    panels = [e for e in exchanges if e.request_headers.get("hx-request") == "true"]
    assert len(panels) == 2 and all("Hollowfield Farms Ltd" in e.body for e in panels)
    assert any(e.status == 404 for e in exchanges)
    assert any(e.url.endswith("/memberships/") and e.status == 200 for e in exchanges)
    assert any(e.status == 302 for e in exchanges)
    log_text = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    assert "Not Found: /no-such-page" in log_text  # the live server's thread is heard
    assert "django_session" in log_text  # and its SQL
    assert "authorisation" in log_text  # and the client's reports
    sandbox_log = sandbox.log.read_bytes()[sandbox_log_start:].decode("utf-8", "replace")

    for exchange in exchanges:
        for where, text in exchange.texts().items():
            assert token not in text, f"the token is in the {where} of {exchange.url}"
            assert password not in text, f"the password is in the {where} of {exchange.url}"
    for jar in cookie_jars:
        for cookie in jar:
            assert token not in cookie["value"], f"the token is in the cookie {cookie['name']}"
    assert token not in document_cookie
    assert token not in log_text, "the token is in the portal's logs"
    assert password not in log_text, "the password is in the portal's logs"
    assert token not in sandbox_log, "the token is in the sandbox's log"
    assert password not in sandbox_log, "the password is in the sandbox's log"
