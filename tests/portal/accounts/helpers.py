"""What the portal's tests share: signing in through the portal (from an address of the test's
choosing), counting upstream calls, and what the service counts against an address."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import timedelta
from html import unescape
from io import StringIO

import pytest
from django.core.management import call_command
from django.http import HttpResponse
from django.test import Client
from django.urls import URLPattern

from portal import urls
from portal.assurance.client import CallReport
from portal.assurance.service import call_reported
from sandbox.demo.accounts import ACCOUNTS
from tests.conftest import Sandbox

PASSWORDS = {account["username"]: account["password"] for account in ACCOUNTS}
# Past the account a sign-in keeps (PORTAL_AUTHORISATION_SECONDS, 60): where a test moves the
# clock for a page to ask the service for the account again.
AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN = timedelta(minutes=2)


def sign_in(
    client: Client,
    username: str = "grower",
    password: str | None = None,
    *,
    next_path: str | None = None,
    headers: dict[str, str] | None = None,
    **fields: str,
) -> HttpResponse:
    """Posts the sign-in form (with any other `fields`); the demo account's own password
    unless one is given."""
    if password is None:
        password = PASSWORDS[username.split("@")[0].strip().lower()]
    data = {"username": username, "password": password, **fields}
    if next_path is not None:
        data["next"] = next_path
    return client.post("/accounts/sign-in/", data, headers=headers)


def signed_in(username: str) -> Client:
    """A new test client, signed in as the demo account `username`."""
    client = Client()
    assert sign_in(client, username).status_code == 302
    return client


def signed_in_staff(username: str = "partner", *, superuser: bool = False) -> Client:
    """The demo account `username` made staff as staff are made (`manage.py grant_staff`, a
    superuser too if asked), signed in."""
    call_command("grant_staff", username, *(["--superuser"] if superuser else []),
                 stdout=StringIO())  # fmt: skip
    return signed_in(username)


@contextmanager
def upstream_calls() -> Iterator[list[CallReport]]:
    """The reports of the upstream calls made inside the block, as they happen."""
    reports: list[CallReport] = []

    def receive(sender: object, report: CallReport, **kwargs: object) -> None:
        reports.append(report)

    call_reported.connect(receive, weak=False)
    try:
        yield reports
    finally:
        call_reported.disconnect(receive)


def replace_view(monkeypatch: pytest.MonkeyPatch, name: str, view: object) -> None:
    """Puts `view` behind the named URL for the test (the URLconf holds the view itself, so
    patching the module's function would not reach it)."""
    [pattern] = [p for p in urls.one_address + urls.pages
                 if isinstance(p, URLPattern) and p.name == name]  # fmt: skip
    monkeypatch.setattr(pattern, "callback", view)


def sign_in_from(
    client: Client, address: str, username: str = "grower", password: str | None = None
) -> HttpResponse:
    """Signs in as a user at `address`, reaching the portal through a trusted proxy (the test
    sets PORTAL_TRUSTED_PROXIES to the test client's 127.0.0.1)."""
    return sign_in(client, username, password, headers={"X-Forwarded-For": address})


def failures_at_the_service(sandbox: Sandbox, address: str) -> tuple[int, bool]:
    """The service's count of failed logins in a row from `address`, and whether it is locked,
    as the sandbox keeps them."""
    with closing(sqlite3.connect(f"file:{sandbox.database}?mode=ro", uri=True)) as db:
        row = db.execute(
            "SELECT failures, locked_until FROM sandbox_loginthrottle WHERE address = ?", [address]
        ).fetchone()
    failures, locked_until = row or (0, None)
    return failures, locked_until is not None


def error_summary(response: HttpResponse) -> str:
    """The sign-in page's error message, as its text reads."""
    html = response.content.decode()
    found = re.search(r'<div class="error-summary"[^>]*>\s*<p>(.*?)</p>', html, re.S)
    assert found, "the page shows no error"
    return unescape(found.group(1))
