"""Reading settings from the environment: each helper refuses a malformed value by name."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import dj_database_url
from psycopg_pool import ConnectionPool


def env_str(name: str, default: str = "") -> str:
    """The variable's value, or that of the file named by NAME_FILE (for secrets)."""
    file_name = os.environ.get(f"{name}_FILE", "").strip()
    if file_name:
        with open(file_name, encoding="utf-8") as secret:
            return secret.read().strip()
    return os.environ.get(name, default).strip() or default


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "a whole number")


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def _env_number[N: (int, float)](name: str, default: N, kind: type[N], what: str) -> N:
    raw = env_str(name)
    if not raw:
        return default
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be {what}, not {raw!r}") from None


def env_bool(name: str, default: bool) -> bool:
    raw = env_str(name).lower()
    if not raw:
        return default
    if raw not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(f"{name} must be true or false, not {raw!r}")
    return raw in ("true", "1", "yes")


def env_list(name: str) -> list[str]:
    """A comma-separated list (in NAME_FILE, commas or one item a line)."""
    return [item.strip() for item in re.split(r"[,\n]", env_str(name)) if item.strip()]


def env_database(name: str, default: str) -> dict:
    """Django's settings for the database named by a URL; SQLite set up for several processes
    (write-ahead log, waiting for locks, immediate transactions)."""
    database = dj_database_url.parse(env_str(name, default))
    if database["ENGINE"] == "django.db.backends.postgresql":
        # A pool for each process, shared by its threads: a request that needs the database
        # (few do: sessions and users are read from the cache) finds a connection open. Each
        # is checked as it is taken (a round trip of well under a millisecond), so that one
        # the database or the network closed meanwhile is replaced, not handed to a request.
        options = {"pool": {"min_size": 1, "max_size": 8, "timeout": 10,
                            "check": ConnectionPool.check_connection}}  # fmt: skip
    elif database["ENGINE"] == "django.db.backends.sqlite3":
        database["CONN_MAX_AGE"] = 0
        options = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    else:
        options = {}
    database["OPTIONS"] = {**options, **database.get("OPTIONS", {})}  # the URL's own win
    return database


def database_label(database: dict) -> str:
    """A short name of Django's `database` that no other database on this machine has: a
    server's database by its name, a SQLite file by its name and a digest of its path (each
    checkout has its own var/portal.sqlite3)."""
    name = str(database["NAME"])
    if database["ENGINE"] != "django.db.backends.sqlite3":
        return name
    return f"{Path(name).stem}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
