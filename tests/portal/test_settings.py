"""The portal's settings as each process reads them from its environment: the secret key it
refuses to start without, the cache keys and job queues of its own database, and the sign-in
lockout's limits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

# Variables that would let the portal start with its development key.
DEVELOPMENT = ("SECRET_KEY", "SECRET_KEY_FILE", "PORTAL_DEVELOPMENT", "DEBUG")


def environment(**variables: str) -> dict[str, str]:
    """This process's environment without DEVELOPMENT's variables, with `variables`."""
    env = {name: value for name, value in os.environ.items() if name not in DEVELOPMENT}
    return {**env, **variables}


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def check(env: dict[str, str]) -> subprocess.CompletedProcess:
    return run([sys.executable, "manage.py", "check"], env)


def settings_of(env: dict[str, str], *names: str) -> dict[str, object]:
    """The named settings as a process with `env` reads them (a value JSON cannot hold, such
    as the database pool's check, by its repr), and the queue its Celery app sends jobs to."""
    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        "from portal.celery import app; "
        f"values = {{n: getattr(settings, n) for n in {list(names)!r}}}; "
        "values['queue'] = app.conf.task_default_queue; print(json.dumps(values, default=repr))"
    )
    result = run([sys.executable, "-c", code], {**env, "DJANGO_SETTINGS_MODULE": "portal.settings"})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# --- the secret key -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["manage.py", "check"],
        ["-m", "gunicorn", "--check-config", "portal.wsgi:application"],
        ["-m", "celery", "-A", "portal.celery", "report"],
    ],
    ids=["manage.py", "gunicorn", "celery"],
)
def test_without_a_secret_key_the_portal_refuses_to_start(command):
    result = run([sys.executable, *command], environment(DEBUG="false"))
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "SECRET_KEY is not set, and DEBUG is off" in output
    assert "SECRET_KEY_FILE" in output
    assert "python -c 'import secrets; print(secrets.token_urlsafe(50))'" in output


def test_debug_off_by_default_is_refused_too():
    result = check(environment())
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_a_secret_key_lets_it_start():
    result = check(environment(DEBUG="false", SECRET_KEY="a-long-random-string-" * 3))
    assert result.returncode == 0, result.stderr


def test_a_secret_key_file_lets_it_start_with_the_key_it_holds(tmp_path: Path):
    secret = tmp_path / "secret_key"
    secret.write_text("a-key-kept-in-a-file-" * 3 + "\n")
    values = settings_of(environment(SECRET_KEY_FILE=str(secret)), "SECRET_KEY")
    assert values["SECRET_KEY"] == "a-key-kept-in-a-file-" * 3


@pytest.mark.parametrize("variable", ["DEBUG", "PORTAL_DEVELOPMENT"])
def test_the_development_key_serves_in_debug_and_development(variable):
    result = check(environment(**{variable: "true"}))
    assert result.returncode == 0, result.stderr


def test_make_manage_allows_the_development_key(tmp_path: Path):
    env = environment(DATABASE_URL=f"sqlite:///{tmp_path / 'portal.sqlite3'}")
    result = run([sys.executable, "-m", "scripts.manage", "check"], env)
    assert result.returncode == 0, result.stderr


# --- cache keys and job queues of each database ---------------------------------------------------


def names_for(database_url: str, **variables: str) -> dict[str, object]:
    env = environment(PORTAL_DEVELOPMENT="true", DATABASE_URL=database_url, **variables)
    values = settings_of(env, "CACHES", "CELERY_TASK_DEFAULT_QUEUE", "CELERY_CONTROL_EXCHANGE")
    return {
        "key prefix": values["CACHES"]["default"]["KEY_PREFIX"],
        "queue": values["queue"],
        "setting's queue": values["CELERY_TASK_DEFAULT_QUEUE"],
        "control exchange": values["CELERY_CONTROL_EXCHANGE"],
    }


def test_two_checkouts_name_their_keys_and_queues_apart(tmp_path: Path):
    first = names_for(f"sqlite:///{tmp_path / 'one' / 'var' / 'portal.sqlite3'}")
    second = names_for(f"sqlite:///{tmp_path / 'two' / 'var' / 'portal.sqlite3'}")
    for name in first:
        assert first[name] != second[name], name
    assert first["queue"] == first["setting's queue"]  # the Celery app reads it


def test_each_postgres_database_has_its_own_keys_and_queues():
    first = names_for("postgres://postgres@127.0.0.1:5432/portal")
    second = names_for("postgres://postgres@127.0.0.1:5432/portal_review")
    assert first["key prefix"] == first["queue"] == "portal.portal"
    assert second["key prefix"] == second["queue"] == "portal.portal_review"


def test_every_process_of_one_checkout_uses_the_same_names(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'portal.sqlite3'}"
    assert names_for(url) == names_for(url)  # no per-process salt, as hash() would have


def test_the_key_prefix_applies_to_redis_as_to_the_file_cache(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'portal.sqlite3'}"
    with_redis = names_for(url, REDIS_URL="redis://127.0.0.1:6379/0")
    assert with_redis["key prefix"] == names_for(url, REDIS_URL="")["key prefix"]


# --- the sign-in lockout --------------------------------------------------------------------------


def test_the_sign_in_lockout_follows_the_services_by_default_and_its_own_settings_else():
    env = environment(PORTAL_DEVELOPMENT="true", ASSURANCE_LOCKOUT_FAILURES="7")
    by_default = settings_of(env, "AXES_FAILURE_LIMIT", "AXES_COOLOFF_TIME")
    assert by_default["AXES_FAILURE_LIMIT"] == 5  # at the service's warning
    assert by_default["AXES_COOLOFF_TIME"] == "datetime.timedelta(seconds=900)"
    env |= {"PORTAL_SIGN_IN_FAILURES": "2", "PORTAL_SIGN_IN_COOL_OFF_SECONDS": "600"}
    chosen = settings_of(env, "AXES_FAILURE_LIMIT", "AXES_COOLOFF_TIME")
    assert chosen["AXES_FAILURE_LIMIT"] == 2
    assert chosen["AXES_COOLOFF_TIME"] == "datetime.timedelta(seconds=600)"


@pytest.mark.parametrize(
    "variable",
    [
        "PORTAL_SIGN_IN_FAILURES_PER_ADDRESS",
        "PORTAL_SIGN_IN_FAILURES_PER_USERNAME",
        "PORTAL_SIGN_IN_WINDOW_SECONDS",
    ],
)
def test_a_sign_in_limit_no_longer_read_stops_the_portal_and_names_what_replaced_it(variable):
    result = check(environment(PORTAL_DEVELOPMENT="true", **{variable: "4"}))
    assert result.returncode != 0
    assert f"{variable}: no longer read" in result.stderr
    assert "set PORTAL_SIGN_IN_FAILURES and PORTAL_SIGN_IN_COOL_OFF_SECONDS" in result.stderr
