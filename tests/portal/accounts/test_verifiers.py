"""What the portal keeps from a successful sign-in: a slow hash of the password, never the
password, for the name the user typed."""

from __future__ import annotations

import logging

import pytest

import portal.settings as portal_settings
from portal.accounts import verifiers
from portal.accounts.models import PasswordVerifier
from tests.portal.accounts.helpers import sign_in

pytestmark = pytest.mark.django_db


def test_a_sign_in_keeps_a_scrypt_verifier_and_never_the_password(
    client, upstream_sandbox, caplog, settings
):
    settings.PASSWORD_HASHERS = portal_settings.PASSWORD_HASHERS  # not the tests' quick one
    caplog.set_level(logging.DEBUG)
    assert sign_in(client, "Grower@Example.com", "grower-demo-pass").status_code == 302
    [kept] = PasswordVerifier.objects.all()
    assert kept.username == "grower@example.com"
    assert kept.verifier.startswith("scrypt$")
    assert "grower-demo-pass" not in kept.verifier
    assert "grower-demo-pass" not in caplog.text
    assert verifiers.matches(" GROWER@example.com", "grower-demo-pass")
    assert not verifiers.matches("grower@example.com", "Grower-demo-pass")
    assert not verifiers.matches("grower", "grower-demo-pass")  # by the name typed


def test_a_wrong_password_keeps_nothing(client, upstream_sandbox, fresh_lockouts):
    assert sign_in(client, "grower", "not-the-password").status_code == 400
    assert not PasswordVerifier.objects.exists()


def test_a_stranger_cannot_forget_someone_elses_verifier(client, upstream_sandbox, fresh_lockouts):
    assert sign_in(client, "grower").status_code == 302
    client.post("/accounts/sign-out/")
    assert sign_in(client, "grower", "not-the-password").status_code == 400
    assert verifiers.matches("grower", "grower-demo-pass")


def test_a_verifier_of_an_older_hasher_is_made_again_with_the_preferred_one(settings):
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    ]
    verifiers.keep("grower", "grower-demo-pass")
    settings.PASSWORD_HASHERS = settings.PASSWORD_HASHERS[::-1]
    assert verifiers.matches("grower", "grower-demo-pass")
    assert PasswordVerifier.objects.get().verifier.startswith("pbkdf2_sha1$")
