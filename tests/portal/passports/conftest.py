from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client

from tests.portal.passports.helpers import within_one_window


@pytest.fixture
def visitor(client: Client, upstream_sandbox, client_address: str) -> Client:
    """Someone without an account, from an address of the test's own."""
    client.defaults["REMOTE_ADDR"] = client_address
    return client


@pytest.fixture
def one_window(client_address: str) -> Iterator[None]:
    """The look-ups of the test's address all fall in one window of its allowance."""
    with within_one_window(client_address):
        yield
