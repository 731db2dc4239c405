"""What the portal's tests share: signing in through the portal, and counting upstream calls."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import URLPattern

from portal import urls
from portal.assurance.client import CallReport
from portal.upstream import call_reported

PASSWORDS = {
    "grower": "grower-demo-pass",
    "lapsed": "lapsed-demo-pass",
    "haulier": "haulier-demo-pass",
}


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
    [pattern] = [p for p in urls.urlpatterns if isinstance(p, URLPattern) and p.name == name]
    monkeypatch.setattr(pattern, "callback", view)
