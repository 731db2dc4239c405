"""Rotating SECRET_KEY or PORTAL_TOKEN_KEY signs no one out while the old key is a fallback
(SECRET_KEY_FALLBACKS, PORTAL_TOKEN_KEY_FALLBACKS): tokens are encrypted with the new key and
read with the new or an old one; once the old key is dropped, what it encrypted is unreadable."""

from __future__ import annotations

import pytest
from django.test import Client

from portal.accounts import credentials

OLD, NEW = "old-secret-key-" * 4, "new-secret-key-" * 4
TOKEN = "a-token-of-the-service"


@pytest.fixture
def secret_key(settings):
    """Tokens keyed by SECRET_KEY (no PORTAL_TOKEN_KEY), from OLD."""
    settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = "", []
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = OLD, []
    return settings


@pytest.fixture
def token_key(settings):
    """Tokens keyed by PORTAL_TOKEN_KEY, from OLD."""
    settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = OLD, []
    return settings


def test_a_token_reads_after_secret_key_rotation_while_the_old_key_is_a_fallback(secret_key):
    kept = credentials.encrypt(TOKEN)
    secret_key.SECRET_KEY, secret_key.SECRET_KEY_FALLBACKS = NEW, [OLD]
    assert credentials.decrypt(kept) == TOKEN
    renewed = credentials.encrypt(TOKEN)
    secret_key.SECRET_KEY_FALLBACKS = []
    assert credentials.decrypt(kept) is None
    assert credentials.decrypt(renewed) == TOKEN  # new tokens are under the new key


def test_a_token_reads_after_token_key_rotation_while_the_old_key_is_a_fallback(token_key):
    kept = credentials.encrypt(TOKEN)
    token_key.PORTAL_TOKEN_KEY, token_key.PORTAL_TOKEN_KEY_FALLBACKS = NEW, [OLD]
    assert credentials.decrypt(kept) == TOKEN
    renewed = credentials.encrypt(TOKEN)
    token_key.PORTAL_TOKEN_KEY_FALLBACKS = []
    assert credentials.decrypt(kept) is None
    assert credentials.decrypt(renewed) == TOKEN


def test_secret_key_fallbacks_do_not_read_tokens_under_a_token_key_of_its_own(secret_key):
    kept = credentials.encrypt(TOKEN)  # under OLD as SECRET_KEY
    secret_key.PORTAL_TOKEN_KEY, secret_key.SECRET_KEY_FALLBACKS = NEW, [OLD]
    assert credentials.decrypt(kept) is None


def test_moving_from_the_secret_key_to_a_token_key_keeps_tokens_with_it_as_fallback(secret_key):
    kept = credentials.encrypt(TOKEN)
    secret_key.PORTAL_TOKEN_KEY, secret_key.PORTAL_TOKEN_KEY_FALLBACKS = NEW, [OLD]
    assert credentials.decrypt(kept) == TOKEN


@pytest.mark.django_db
def test_a_signed_in_grower_stays_signed_in_over_a_secret_key_rotation(grower: Client, settings):
    settings.PORTAL_TOKEN_KEY = ""
    old = settings.SECRET_KEY
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW, [old]
    # The session's signature and the token it holds (the page asks the service with it).
    assert grower.get("/memberships/").status_code == 200
    assert grower.get("/").status_code == 200


@pytest.mark.django_db
def test_without_the_old_key_as_fallback_the_grower_must_sign_in_again(grower: Client, settings):
    settings.PORTAL_TOKEN_KEY = ""
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW, []
    response = grower.get("/memberships/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/")
