"""A job kind for the tests, doing real work with the sandbox: every standard point's reference
of a scheme, section by section through the standards cache, as a CSV.

A Celery task on the jobs' base task, as every kind is: importing this module registers it (the
tests' conftest does, and so does the worker they start, tests/portal/jobs/worker_app.py).
"""

from __future__ import annotations

import csv
import io
import time
from typing import TYPE_CHECKING

from celery import shared_task

from portal.assurance.client import Credentials
from portal.assurance.service import client
from portal.jobs.tasks import JobTask, Progress, ResultFile
from portal.standards import cached
from portal.standards.addresses import LIVE

if TYPE_CHECKING:
    from portal.jobs.models import Job

KIND = "test-scheme-references"


@shared_task(base=JobTask, name=KIND)
def scheme_references(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    """params: `scheme` (its GUID), and `pause`, seconds to wait after each section (to give a
    test time to act in the middle)."""
    scheme_guid = job.params["scheme"]
    listed = client().schemes(credentials)  # never cached: the user's credentials are asked
    name = next(s.scheme_name for s in listed.items if s.scheme_guid == scheme_guid)
    listing = cached.sections(credentials, LIVE, scheme_guid).record
    sections = cached.sections_in_order(listing.sections)
    progress(0, len(sections))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["section", "reference"])
    for done, entry in enumerate(sections, 1):
        data = cached.section(credentials, LIVE, scheme_guid, entry.prefix or "",
                              entry.sector_prefix or "").record  # fmt: skip
        writer.writerows([entry.name, point.reference] for point in data.standard_points)
        time.sleep(job.params.get("pause", 0))
        progress(done, len(sections))
    return ResultFile(f"{name} references.csv", "text/csv", out.getvalue().encode())
