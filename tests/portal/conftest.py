from __future__ import annotations

import pytest
from django.test import Client

from tests.portal.accounts.helpers import sign_in


@pytest.fixture
def grower(client: Client, upstream_sandbox, db) -> Client:
    """A test client signed in as the demo grower, through the portal and the live sandbox."""
    assert sign_in(client, "grower").status_code == 302
    return client
