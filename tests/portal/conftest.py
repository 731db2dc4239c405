from __future__ import annotations

import pytest
from django.test import Client

from tests.portal.accounts.helpers import sign_in, signed_in, signed_in_staff


@pytest.fixture(autouse=True)
def quick_password_verifiers(settings) -> None:
    """Every sign-in keeps or checks a verifier of its password; scrypt's 0.2 s for each would
    slow the suite by minutes. tests/portal/accounts/test_verifiers.py checks the real one."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def grower(client: Client, upstream_sandbox, db) -> Client:
    """A test client signed in as the demo grower, through the portal and the live sandbox."""
    assert sign_in(client, "grower").status_code == 302
    return client


@pytest.fixture
def partner(upstream_sandbox, db) -> Client:
    """The demo partner signed in: a second contact of the grower's Hollowfield Farms Ltd only."""
    return signed_in("partner")


@pytest.fixture
def lapsed(upstream_sandbox, db) -> Client:
    """The demo lapsed signed in: a contact of a suspended and an expired membership."""
    return signed_in("lapsed")


@pytest.fixture
def staff(upstream_sandbox, db) -> Client:
    """The demo partner made staff (not a superuser), signed in."""
    return signed_in_staff("partner")
