"""What the outbox's tests share: a receiver of the test's own on 127.0.0.1 (pytest-httpserver;
a fault the sandbox cannot play), which webhooks may reach because the tests allow loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from scripts.servers import LOOPBACK
from tests.portal.outbox.builders import LOOPBACK_NETWORKS


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    server = HTTPServer(host=LOOPBACK, port=0)
    server.start()
    yield server
    server.clear()
    server.stop()
