"""The test runs' own databases on PostgreSQL (`test_portal_<pid>`, tests/conftest.py), and those
that killed runs left behind, dropped when the next run starts.

Each run marks its database with the process that made it: this machine's name and the process's
identity (its pid, with its start time since this boot where /proc tells it). A database is left
behind when its process is gone, or when the pid now belongs to a process started since (pids are
reused). One that another machine made, whose processes this one cannot see, is never touched;
nor is one without a mark (of a run of older code) whose pid is alive, or whose server is another
machine's, nor one that anyone is connected to (PostgreSQL refuses to drop it).
"""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import psycopg
from psycopg import sql

# The server's own database, always there, to list and drop the others from.
MAINTENANCE_DATABASE = "postgres"


def name_of_run(database: str, pid: int) -> str:
    """The test database of the run whose process is `pid`, for the database named `database`."""
    return f"test_{database}_{pid}"


def process_identity(pid: int) -> str | None:
    """The process `pid` as no later process with the same pid is (its start time since this
    machine booted, read from /proc), or None when there is no such process. Without /proc,
    only whether it is alive: the pid itself."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc/self/stat").exists():
        try:
            # The start time is the 22nd field; the 2nd, the command's name, may hold spaces.
            started = stat.read_text().rsplit(")", 1)[1].split()[19]
        except (OSError, IndexError):
            return None
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{pid}@{boot}:{started}"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # another user's, alive
        pass
    return str(pid)


def mark(pid: int) -> str:
    """What a run's database says of the run's process `pid`."""
    return json.dumps({"host": socket.gethostname(), "process": process_identity(pid)})


def is_left_behind(pid: int, marked: str | None, *, server_is_local: bool) -> bool:
    """Whether the database of `pid`, marked `marked` (None if it is not), outlived its run."""
    if not marked:  # made by a run that marks none, or killed before it could
        return server_is_local and process_identity(pid) is None
    try:
        made_by = json.loads(marked)
    except ValueError:
        return False
    if not isinstance(made_by, dict) or made_by.get("host") != socket.gethostname():
        return False
    return process_identity(pid) != made_by.get("process")


def is_local(settings: dict) -> bool:
    """Whether the server of Django's database `settings` is this machine's: a database without
    a mark is judged only then (another machine's runs would use a server of their own)."""
    host = settings.get("HOST") or ""
    return host in ("", "localhost", "127.0.0.1", "::1") or host.startswith("/")


def connect(settings: dict) -> psycopg.Connection:
    """A connection to the server of Django's database `settings`, outside any database's
    transaction (CREATE and DROP DATABASE need that)."""
    return psycopg.connect(
        dbname=MAINTENANCE_DATABASE,
        host=settings.get("HOST") or None,
        port=settings.get("PORT") or None,
        user=settings.get("USER") or None,
        password=settings.get("PASSWORD") or None,
        autocommit=True,
    )


def mark_as_this_runs(settings: dict, test_database: str) -> None:
    """Marks `test_database` as made by this process."""
    statement = sql.SQL("COMMENT ON DATABASE {} IS {}")
    with connect(settings) as connection:
        connection.execute(
            statement.format(sql.Identifier(test_database), sql.Literal(mark(os.getpid())))
        )


def drop_left_behind(settings: dict) -> list[str]:
    """Drops the test databases of `settings`' database that runs killed left behind; the
    names of those dropped."""
    prefix = name_of_run(settings["NAME"], 0).removesuffix("0")
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
    local = is_local(settings)
    dropped = []
    with connect(settings) as connection:
        databases = connection.execute(
            "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database"
        ).fetchall()
        for name, marked in databases:
            matched = pattern.fullmatch(name)
            if matched is None or int(matched[1]) == os.getpid():
                continue
            if not is_left_behind(int(matched[1]), marked, server_is_local=local):
                continue
            try:
                connection.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))
            except psycopg.errors.ObjectInUse:  # someone is connected: not left behind
                continue
            except psycopg.errors.InvalidCatalogName:  # another run dropped it just now
                continue
            dropped.append(name)
    return dropped
