"""The portal's processes as its metrics see them: prometheus_client's multiprocess mode, with
each process writing under the name of its slot rather than its process id.

In multiprocess mode (PROMETHEUS_MULTIPROC_DIR names a folder) each process keeps its counts in
files of that folder, and a scrape reads and adds up every file there. prometheus_client names
a process's files by its process id and keeps a dead process's counters and histograms (they
must not go back), so that each process replaced leaves two files behind: gunicorn replaces its
workers (`max_requests`), Celery its pool's processes (PORTAL_JOB_TASKS_PER_CHILD), and
scrapes slow to seconds as thousands of files pile up.

Here a process writes under its slot's name instead: `web-0`, `web-1`, ... for gunicorn's
workers, `<worker's name>-0`, ... for a Celery pool's processes. A replacement takes the slot
of a process that has ended (never that of one still running: a slot is free only once its
process has been reaped), reopens its files and counts on from their values. So the folder
holds at most two files for each process that ever ran at the same time, and every count
stays whole and only grows. prometheus_client offers this as `MultiProcessValue`'s
`process_identifier`, whose one rule the slots keep: processes running at once have distinct
names. A process that claims no slot (a management command) writes under its process id, as
prometheus_client does by default. It is the one way prometheus_client has, and not a
documented one (its maintainers call it semi-supported): tests/library_parts/
test_prometheus_client.py checks what it relies on, on the version installed.

No Django here: gunicorn's master process uses this module before any app is loaded.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import tempfile
from collections.abc import Iterable

from prometheus_client import multiprocess, values

DIRECTORY = "PROMETHEUS_MULTIPROC_DIR"

_claimed: tuple[str, int] | None = None  # this process's slot, and its process id
_installed = False
_made_directory: str | None = None  # a temporary folder made here, removed at the end


def directory() -> str | None:
    """The folder the processes' metrics are written to, or None: each process counts in its
    own memory (`manage.py runserver`, the tests' own process)."""
    return os.environ.get(DIRECTORY) or None


def install() -> None:
    """From now on, metrics made in this process and in the processes it forks are written
    under the slot their process claimed. Call it before any metric is made."""
    global _installed
    if _installed or directory() is None:
        return
    values.ValueClass = values.MultiProcessValue(process_identifier=_identifier)
    _installed = True


def _identifier() -> str | int:
    """The name of the claiming process's slot; in any other process (one forked from it, which
    claims nothing), its process id."""
    process = os.getpid()
    if _claimed is not None and _claimed[1] == process:
        return _claimed[0]
    return process


def claim(name: str) -> None:
    """This process writes its metrics under `name` (which no process running now has)."""
    global _claimed
    _claimed = (name, os.getpid())


def release(name: str) -> None:
    """The process of the slot `name` has ended: its gauges of the live modes are removed (its
    counters stay for the next process of the slot to count on)."""
    path = directory()
    if path is not None:
        multiprocess.mark_process_dead(name, path)


def free_slot(taken: Iterable[int]) -> int:
    """The lowest slot that no process running now holds."""
    held = set(taken)
    return next(slot for slot in range(len(held) + 1) if slot not in held)


# --- gunicorn's master process (its hooks in deploy/gunicorn.conf.py) -----------------------------


def start_afresh() -> None:
    """When gunicorn starts: its folder emptied (a temporary one made if none is named, which
    the workers it forks inherit), and the slots installed for the workers."""
    global _made_directory
    path = directory()
    if path is None:
        path = _made_directory = tempfile.mkdtemp(prefix="portal-metrics-")
        os.environ[DIRECTORY] = path
    os.makedirs(path, exist_ok=True)
    for name in glob.glob(os.path.join(path, "*.db")):
        os.remove(name)
    install()


def finish() -> None:
    """When gunicorn stops: a temporary folder made at its start is removed."""
    if _made_directory is not None:
        shutil.rmtree(_made_directory, ignore_errors=True)


# --- a Celery worker's pool (portal/celery.py) ---------------------------------------------------


_worker_name = "worker"  # the worker's node name, as its pool's processes inherit it


def name_the_worker(sender: object = None, **_: object) -> None:
    """Celery's celeryd_init, in a worker's main process before it forks its pool: the worker's
    node name (`--hostname`), which its pool's slots are named after, so that two workers on one
    machine never write the same files (Celery 5.6 sends worker_process_init no name)."""
    global _worker_name
    _worker_name = str(sender or "worker")


def claim_pool_slot(sender: object = None, **_: object) -> None:
    """Celery's worker_process_init, in a pool's new process: the slot of its index in the pool
    (billiard gives an index only once the process that had it has ended), named after its
    worker."""
    from billiard.process import current_process

    index = getattr(current_process(), "index", None)
    if index is not None:
        claim(f"{_file_safe(str(sender or _worker_name))}-{index}")


def release_pool_slot(**_: object) -> None:
    """Celery's worker_process_shutdown, in a pool's process as it ends."""
    if _claimed is not None and _claimed[1] == os.getpid():
        release(_claimed[0])


def _file_safe(name: str) -> str:
    # prometheus_client splits a file's name at underscores.
    return re.sub(r"[^A-Za-z0-9.@-]", "-", name)
