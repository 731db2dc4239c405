"""`manage.py check --deploy` is clean with production settings, taken from the environment
alone (no DEBUG, no PORTAL_DEVELOPMENT), the secrets from variables or from `*_FILE` files."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import pytest

from tests.portal.test_settings import environment, run, settings_of

# Secrets the portal reads from NAME or from the file NAME_FILE names.
SECRETS = ("SECRET_KEY", "SECRET_KEY_FALLBACKS", "PORTAL_TOKEN_KEY", "DATABASE_URL", "REDIS_URL",
           "ASSURANCE_LOOKUP_PASSWORD")  # fmt: skip


def production(tmp_path: Path, *, in_files: bool) -> tuple[dict[str, str], dict[str, str]]:
    """A production environment (and the secrets in it), each secret in its variable or in a
    file named by NAME_FILE."""
    values = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECRET_KEY_FALLBACKS": f"{secrets.token_urlsafe(50)},{secrets.token_urlsafe(50)}",
        "PORTAL_TOKEN_KEY": secrets.token_urlsafe(40),
        "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{tmp_path / 'portal.sqlite3'}"),
        "REDIS_URL": "redis://:a-redis-password@127.0.0.1:6379/0",
        "ASSURANCE_LOOKUP_PASSWORD": secrets.token_urlsafe(20),
    }
    env = environment(
        PORTAL_HTTPS="true",
        ALLOWED_HOSTS="portal.example.org",
        PORTAL_TRUSTED_PROXIES="127.0.0.1",
        ASSURANCE_BASE_URL="https://assurance.example.org",
        ASSURANCE_LOOKUP_USERNAME="portal-lookups",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    for name in (*SECRETS, "PORTAL_LOG_FORMAT", *(f"{s}_FILE" for s in SECRETS)):
        env.pop(name, None)
    for name, value in values.items():
        if in_files:
            secret = tmp_path / name.lower()
            secret.write_text(value.replace(",", "\n") + "\n")
            env[f"{name}_FILE"] = str(secret)
        else:
            env[name] = value
    return env, values


@pytest.mark.parametrize("in_files", [False, True], ids=["variables", "files"])
def test_the_deploy_checks_pass_with_production_settings(tmp_path: Path, in_files: bool):
    env, _ = production(tmp_path, in_files=in_files)
    result = run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stderr


def test_every_secret_comes_from_its_file(tmp_path: Path):
    env, values = production(tmp_path, in_files=True)
    read = settings_of(env, "SECRET_KEY", "SECRET_KEY_FALLBACKS", "PORTAL_TOKEN_KEY", "REDIS_URL",
                       "ASSURANCE_LOOKUP_PASSWORD", "DATABASES", "CACHES", "CELERY_BROKER_URL",
                       "DEBUG", "PORTAL_LOG_FORMAT")  # fmt: skip
    assert read["SECRET_KEY"] == values["SECRET_KEY"]
    assert read["SECRET_KEY_FALLBACKS"] == values["SECRET_KEY_FALLBACKS"].split(",")
    assert read["PORTAL_TOKEN_KEY"] == values["PORTAL_TOKEN_KEY"]
    assert read["ASSURANCE_LOOKUP_PASSWORD"] == values["ASSURANCE_LOOKUP_PASSWORD"]
    assert read["REDIS_URL"] == read["CELERY_BROKER_URL"] == values["REDIS_URL"]
    assert read["CACHES"]["default"]["LOCATION"] == values["REDIS_URL"]
    assert values["DATABASE_URL"].endswith(str(read["DATABASES"]["default"]["NAME"]))
    assert read["DEBUG"] is False
    assert read["PORTAL_LOG_FORMAT"] == "json"
