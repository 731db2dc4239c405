"""What the outbox's tests share: webhooks may reach loopback, where the tests' `receiver`
(tests/conftest.py) listens."""

from __future__ import annotations

import pytest

from tests.portal.outbox.builders import LOOPBACK_NETWORKS


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS
