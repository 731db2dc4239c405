"""What the outbox's tests share: webhooks may reach loopback, where the tests' `receiver`
(tests/conftest.py) listens; the grower's business's endpoint there, beside another's."""

from __future__ import annotations

import pytest

from tests.demo import WENHAM
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, an_endpoint


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS


@pytest.fixture
def farm_secret(receiver) -> str:
    """The secret of the grower's business's endpoint on the receiver (`/farm`), beside another
    business's (`/other`); the receiver takes every delivery."""
    _, secret = an_endpoint(receiver.url_for("/farm"), event_types=["passport.created"])
    an_endpoint(receiver.url_for("/other"), membership_guid=WENHAM)
    receiver.expect_request("/farm", method="POST").respond_with_data("", status=204)
    receiver.expect_request("/other", method="POST").respond_with_data("", status=204)
    return secret
