"""The test runs' own PostgreSQL databases (tests/databases.py): each run marks its own, and a new
run drops those of runs killed before they could drop theirs, never a live run's."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from psycopg import sql

from portal.lib.env import env_database
from tests import databases
from tests.conftest import ROOT, postgresql_databases

pytestmark = pytest.mark.skipif(
    not postgresql_databases(), reason="the test runs' own databases are PostgreSQL's"
)

A_NEW_RUN = "tests/test_databases.py::test_a_run_marks_its_database_as_its_own"


@pytest.fixture
def server() -> dict:
    """Django's settings of the run's PostgreSQL database."""
    return postgresql_databases()[0]


def base_name() -> str:
    """The name of the database the test databases are named after (`portal`)."""
    return env_database("DATABASE_URL", "")["NAME"]


def existing(server: dict) -> dict[str, str | None]:
    """The server's databases, by name, with their marks."""
    with databases.connect(server) as connection:
        rows = connection.execute(
            "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database"
        ).fetchall()
    return dict(rows)


def process() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


def ended(running: subprocess.Popen) -> int:
    running.kill()
    running.wait()
    return running.pid


@pytest.fixture
def made(server: dict) -> Iterator:
    """Makes test databases as runs would have, marked as given; drops what is left after."""
    names: list[str] = []

    def make(pid: int, marked: str | None) -> str:
        name = databases.name_of_run(base_name(), pid)
        with databases.connect(server) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            if marked is not None:
                comment = sql.SQL("COMMENT ON DATABASE {} IS {}")
                connection.execute(comment.format(sql.Identifier(name), sql.Literal(marked)))
        names.append(name)
        return name

    yield make
    with databases.connect(server) as connection:
        for name in names:
            connection.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.mark.django_db
def test_a_run_marks_its_database_as_its_own(server):
    marked = json.loads(existing(server)[server["TEST"]["NAME"]])
    assert marked == {
        "host": socket.gethostname(),
        "process": databases.process_identity(os.getpid()),
    }


@pytest.mark.slow
def test_a_new_run_drops_the_databases_of_killed_runs_and_keeps_the_live_ones(server, made):
    killed, killed_unmarked = process(), process()
    killed_mark = databases.mark(killed.pid)
    live, live_unmarked, reused = process(), process(), process()
    try:
        gone = [
            made(ended(killed), killed_mark),
            made(ended(killed_unmarked), None),
            # The pid of a run killed long ago, now another process's.
            made(reused.pid, json.dumps({"host": socket.gethostname(), "process": "earlier"})),
        ]
        kept = [
            made(live.pid, databases.mark(live.pid)),
            made(live_unmarked.pid, None),  # a live run of code that marks none
        ]
        assert set(gone + kept) <= set(existing(server))
        new_run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", A_NEW_RUN],
            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        now = set(existing(server))
        assert now.isdisjoint(gone)
        assert set(kept) <= now
        assert new_run.returncode == 0, new_run.stdout[-3000:]
    finally:
        for running in (live, live_unmarked, reused):
            ended(running)


def test_another_machines_database_is_never_dropped(server, made):
    elsewhere = json.dumps({"host": f"not-{socket.gethostname()}", "process": "its own"})
    gone_here = process()
    name = made(ended(gone_here), elsewhere)
    assert name not in databases.drop_left_behind(server | {"NAME": base_name()})
    assert name in existing(server)
