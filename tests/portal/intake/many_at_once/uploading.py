"""What the tests of a site's uploads share: the upload form sent with a file, and the job's
report read."""

from __future__ import annotations

import csv
import io

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from portal.intake.models import IntakeSite
from portal.jobs.models import Job


def sent(client: Client, site: IntakeSite, content: bytes, name: str = "tickets.csv", **extra):
    """The upload form sent with a file of `content` called `name`."""
    page = client.get(f"/intake/sites/{site.code}/upload")
    key = page.context["form"]["key"].value()
    upload = SimpleUploadedFile(name, content)
    return client.post(f"/intake/sites/{site.code}/upload", {"key": key, "file": upload}, **extra)


def report_of(job: Job) -> list[dict[str, str]]:
    """The job's report, read as a spreadsheet reads it."""
    with job.result.open("rb") as result:
        text = result.read().decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))
