"""What a job does, by its kind: the interface between the job framework and the apps.

Each kind is a function `run(job, credentials, progress) -> ResultFile`. It acts with
`credentials` (the user's who asked), calls `progress(done, total)` as it goes, and returns the
file it made; it may raise the service's errors (AuthenticationRequired stops the job until its
user signs in again), or WorkFailed with a message that tells its owner why it cannot be made.
The apps fill in KINDS with their own:

    from portal.jobs.work import KINDS
    KINDS["scheme-export-pdf"] = scheme_pdf

A job's file is its owner's. A kind whose file the owner may have only while something else
holds (a passport's PDF: while they are a contact of its membership) names in DOWNLOADS the
address that checks it again; the job's own download leads there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from portal.assurance.client import Credentials

if TYPE_CHECKING:
    from portal.jobs.models import Job


@dataclass(frozen=True, slots=True)
class ResultFile:
    """The file a job made: what the download is called, its type and its bytes."""

    name: str
    content_type: str
    content: bytes


class JobCancelled(Exception):
    """Raised by `progress` when the job's owner has cancelled it: the work stops there."""


class WorkFailed(Exception):
    """Raised by a kind's work that cannot be done, with a message for the job's owner: the
    job fails with it (and may be retried), rather than with the general one."""


class Progress(Protocol):
    def __call__(self, done: int, total: int) -> None:
        """Records that `done` of `total` steps are done; raises JobCancelled if the job was
        cancelled meanwhile."""


type Run = Callable[["Job", Credentials, Progress], ResultFile]

# Kind -> what runs it. Filled in by the apps that own the work (their apps.py ready()).
KINDS: dict[str, Run] = {}

# Kind -> the address of a job's file that checks again that its owner may still have it.
DOWNLOADS: dict[str, Callable[[Job], str]] = {}
