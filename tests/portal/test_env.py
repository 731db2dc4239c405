"""Database settings from a URL (portal/lib/env.py `env_database`): PostgreSQL with a pool of
connections for each process, SQLite set up for several processes; each one as Django takes it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from django.db.utils import ConnectionHandler
from psycopg_pool import ConnectionPool

from portal.lib.env import env_database
from tests.services import answers

VARIABLE = "PORTAL_TEST_DATABASE_URL"
POOL = {
    "pool": {"min_size": 1, "max_size": 8, "timeout": 10, "check": ConnectionPool.check_connection}
}


def database_for(monkeypatch: pytest.MonkeyPatch, url: str) -> dict:
    monkeypatch.setenv(VARIABLE, url)
    return env_database(VARIABLE, "sqlite:///unused.sqlite3")


@pytest.fixture
def connect(django_db_blocker) -> Iterator:
    """Opens a connection of Django's with the given settings, under an alias of its own (so
    that the suite's own database and its pool are left alone), and closes it after."""
    opened = []

    def connect_with(settings_dict: dict):
        handler = ConnectionHandler(
            {"default": {"ENGINE": "django.db.backends.dummy"}, "env_check": settings_dict}
        )
        connection = handler["env_check"]
        opened.append(connection)
        return connection

    with django_db_blocker.unblock():
        yield connect_with
    for connection in opened:
        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()


def test_postgres_has_a_pool_and_no_persistent_connections(monkeypatch):
    database = database_for(monkeypatch, "postgres://portal:secret@db.example:5433/portal")
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["PORT"], database["NAME"]) == ("db.example", 5433, "portal")
    assert (database["USER"], database["PASSWORD"]) == ("portal", "secret")
    assert database["OPTIONS"] == POOL
    assert database["CONN_MAX_AGE"] == 0  # Django refuses a pool with persistent connections


def test_django_accepts_the_postgres_pool(monkeypatch, connect):
    connection = connect(database_for(monkeypatch, "postgres://portal@db.example/portal"))
    pool = connection.pool  # made without connecting; refused unless CONN_MAX_AGE is 0
    assert (pool.min_size, pool.max_size, pool.timeout) == (1, 8, 10)


def test_postgres_keeps_the_options_of_its_url(monkeypatch):
    database = database_for(monkeypatch, "postgres://portal@db.example/portal?sslmode=require")
    assert database["OPTIONS"] == {**POOL, "sslmode": "require"}


def _postgres_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else ""


@pytest.mark.skipif(
    not _postgres_url() or not answers(_postgres_url(), 5432),
    reason="DATABASE_URL names no PostgreSQL that answers",
)
def test_a_postgres_connection_comes_from_the_pool(monkeypatch, connect):
    connection = connect(database_for(monkeypatch, _postgres_url()))
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    assert connection.connection._pool is connection.pool


def test_sqlite_waits_for_locks_and_writes_ahead(monkeypatch, tmp_path):
    path = tmp_path / "portal.sqlite3"
    database = database_for(monkeypatch, f"sqlite:///{path}")
    assert database["ENGINE"] == "django.db.backends.sqlite3"
    assert database["NAME"] == str(path)
    assert database["CONN_MAX_AGE"] == 0
    assert database["OPTIONS"] == {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }


def test_a_sqlite_connection_is_in_wal_mode(monkeypatch, tmp_path, connect):
    connection = connect(database_for(monkeypatch, f"sqlite:///{tmp_path / 'portal.sqlite3'}"))
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone() == ("wal",)
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone() == (1,)  # NORMAL


def test_the_default_is_used_when_the_variable_is_unset(monkeypatch, tmp_path):
    monkeypatch.delenv(VARIABLE, raising=False)
    database = env_database(VARIABLE, f"sqlite:///{tmp_path / 'default.sqlite3'}")
    assert database["NAME"] == str(tmp_path / "default.sqlite3")
