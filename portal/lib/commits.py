"""Commits that do not wait for the disk, for rows written often on a page's path whose loss in
a crash of the database server costs little: a look-up's audit event, a call's count for the
staff's dashboard.

PostgreSQL allows it per transaction (`SET LOCAL synchronous_commit = off`): the commit returns
once the write-ahead log has the rows in memory, and the log writer puts them on the disk within
three times `wal_writer_delay` (0.6 s by default). A crash of the server in that time loses those
transactions whole, never a part of one nor any other transaction; a crash of the portal loses
nothing. On a commit that waits for the disk, a page waited about a millisecond here, more with
many at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def not_waiting_for_the_disk() -> Iterator[None]:
    """What is written in the block is committed at its end without waiting for the disk, in a
    transaction of its own. On a database other than PostgreSQL, or inside a transaction begun
    already (whose commit, the caller's, waits for the disk), the block runs as it would
    without."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit = off")  # until this transaction ends
        yield
