"""bench/uploads.py's measuring process: the portal's own code, imported once Django is set up
(`python -m bench.uploads --measure ...` sets it up first). Not a benchmark of its own."""

from __future__ import annotations

import csv
import gc
import io
import os
import re
import resource
import time
import tracemalloc
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from itertools import batched

import xlsxwriter
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from bench.common import SignedIn, csrf_token, signed_in_cookie
from portal.accounts import credentials
from portal.assurance import records
from portal.assurance.client import BearerToken
from portal.assurance.service import client
from portal.intake import loads, rows, sheets, uploads, verdicts
from portal.intake.forms import LoadForm
from portal.intake.models import IntakeSite, Load
from portal.jobs.models import Job, result_storage
from portal.passports import lookup
from portal.passports.models import Passport
from sandbox.ids import guid_for
from tests.portal.intake.builders import a_workbook_of_empty_texts

HOLLOWFIELD = guid_for("membership:hollowfield")
HOLLOWFIELD_FARM = guid_for("site:hollowfield-farm")
CLERK = ("haulier", "haulier-demo-pass")
HOSTILE_TEXTS = 1_290_000  # empty texts in 38 KB, as the hostile sender's workbook held
JOB_SECONDS = 300
POLL_SECONDS = 0.05
WARM_UP_ROWS = 100
_KEY = re.compile(r'name="key" value="([^"]+)"')
_JOB = re.compile(r"^/jobs/(\d+)/$")


@dataclass
class Bench:
    clerk: object
    credential: str
    passports: list[Passport]
    sites: int = 0

    @classmethod
    def made(cls, count: int) -> Bench:
        """`count` wheat passports made by grower at the sandbox, recorded as the portal records
        those it makes; haulier, a clerk, with its token for the jobs."""
        users = get_user_model().objects
        grower, _ = users.get_or_create(username="grower")
        clerk, _ = users.get_or_create(username="haulier")
        made_by_grower = BearerToken(client().login("grower", "grower-demo-pass").token)
        request = records.PassportRequest(
            membership_guid=HOLLOWFIELD, site_guid=HOLLOWFIELD_FARM, crop_type="Wheat",
            variety="Extase", loading_date=timezone.now() - timedelta(days=1),
            harvest_year=str(timezone.now().year),
        )  # fmt: skip
        passports = []
        for _ in range(count):
            passport = Passport(membership_guid=HOLLOWFIELD, site_guid=HOLLOWFIELD_FARM,
                                made_by=grower)  # fmt: skip
            passport.keep_record(client().create_passport(made_by_grower, request))
            passport.save()
            passports.append(passport)
        token = client().login("haulier", "haulier-demo-pass").token
        return cls(clerk, credentials.encrypt(token), passports)

    def new_site(self) -> IntakeSite:
        self.sites += 1
        code = f"bench-{os.getpid()}-{self.sites}"
        site = IntakeSite.objects.create(name=f"Bench store {code}",
                                         buyer_business="Bench Grain Ltd", code=code)  # fmt: skip
        site.clerks.add(self.clerk)
        return site

    def rows(self, count: int) -> list[dict[str, str]]:
        arrival = f"{timezone.localtime() - timedelta(hours=2):%Y-%m-%d %H:%M}"
        return [{
            "short_code": self.passports[n % len(self.passports)].short_code,
            "ticket": f"T-{n:05}", "arrival": arrival, "vehicle": "AE24 KTV",
            "gross_kg": str(44_000 + n % 100), "tare_kg": "15020", "sample_reference": f"S-{n}",
            "sample_kept_days": "90", "decision": "claim", "reasons": "specific-weight",
            "moisture": "14.2", "specific_weight": "72.5", "protein": "11.8",
            "claim_1_parameter": "specific_weight", "claim_1_rate": "2.50",
        } for n in range(count)]  # fmt: skip

    # --- time, as a clerk ---------------------------------------------------------------------

    def timed(
        self, portal_url: str, count: int, one_by_one: int, rounds: int
    ) -> dict[str, list[float]]:
        """As a clerk: a day of `count` rows sent through the portal's upload form, as a
        browser sends it, to a worker of the portal's own, from its POST to its 303
        ("request") and to its job's end ("upload"); the first `one_by_one` of the same rows
        recorded one by one as the clerk's form records them ("one_by_one", in this process:
        a transaction each, its time a load the same however many); the hostile workbook (a
        million empty texts in 38 KB) sent through the form, from its POST to its 303
        ("hostile"), its job then refused. Each on a site of its own, the three in turn (the
        order swapped every round), after a round of WARM_UP_ROWS untimed. Seconds, by figure."""
        clerk = SignedIn(portal_url, signed_in_cookie(portal_url, *CLERK))
        hostile = a_workbook_of_empty_texts(HOSTILE_TEXTS, self.rows(1))
        found: dict[str, list[float]] = {"hostile_bytes": [len(hostile)]}
        for n in range(rounds + 1):
            table = self.rows(count if n else WARM_UP_ROWS)
            steps = [partial(self.uploaded, clerk, table),
                     partial(self.one_by_one, table[:one_by_one]),
                     partial(self.refused, clerk, hostile)]  # fmt: skip
            for step in steps if n % 2 == 0 else reversed(steps):
                for name, seconds in step().items():
                    if n:  # the first round warms the portal, the worker and this process
                        found.setdefault(name, []).append(seconds)
        return found

    def uploaded(self, clerk: SignedIn, table: list[dict[str, str]]) -> dict[str, float]:
        started = time.time()
        job, answered = _job_ended(clerk, self.new_site(), "day.csv", as_file(table, "csv"))
        assert job.state == Job.State.DONE, job.message
        assert job.message == f"{len(table):,} recorded.", job.message
        return {"request": answered - started, "upload": job.finished.timestamp() - started}

    def refused(self, clerk: SignedIn, hostile: bytes) -> dict[str, float]:
        started = time.time()
        job, answered = _job_ended(clerk, self.new_site(), "hostile.xlsx", hostile)
        assert job.state == Job.State.FAILED, job.state
        assert "table of texts" in job.message, job.message
        return {"hostile": answered - started}

    def job(self, site: IntakeSite, params: dict) -> Job:
        return Job.objects.create(kind=uploads.KIND, owner=self.clerk, title="Bench upload",
                                  params=params, credential=self.credential)  # fmt: skip

    def one_by_one(self, table: list[dict[str, str]]) -> dict[str, float]:
        """Each load as the clerk's form records it, on a site of its own: the form made and
        checked, the verdict asked as the look-up asks it, the load recorded in a transaction
        of its own."""
        site = self.new_site()
        passports = {passport.short_code: passport for passport in self.passports}
        started = time.perf_counter()
        for row in table:
            passport = passports[row["short_code"]]
            form = LoadForm(rows.form_data(row), site=site, crop=passport.crop_type,
                            loaded=passport.loading_date)  # fmt: skip
            assert form.is_valid(), form.errors
            verdict = verdicts.kept(lookup.verdict(passport.short_code, with_details=False))
            loads.record(site, form.cleaned_data["ticket"], passport, form.figures(),
                         by="haulier", verdict=verdict)  # fmt: skip
        took = time.perf_counter() - started
        assert Load.objects.filter(site=site).count() == len(table)
        return {"one_by_one": took}

    # --- memory --------------------------------------------------------------------------------

    def memory(self, count: int, kind: str) -> dict[str, float]:
        """The peak memory of reading an upload of `count` rows through as its job reads it
        (its file kept first, then opened from the jobs' storage): each row read and written to
        the report and the tally, ROWS_AT_ONCE at a time, under tracemalloc; nothing recorded
        (the recording takes ROWS_AT_ONCE rows at a time whatever the file's size)."""
        site = self.new_site()
        content = as_file(self.rows(count), kind)
        job = self.job(site, {"site": site.pk, "name": f"day.{kind}", "kind": kind})
        name = uploads.keep_file(job, SimpleUploadedFile(f"day.{kind}", content))
        del content
        gc.collect()
        tracemalloc.start()
        started = time.perf_counter()
        read = read_through(name, kind)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert read == count, read
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return {"traced": peak, "rss": rss, "seconds": seconds}


def _job_ended(clerk: SignedIn, site: IntakeSite, name: str, content: bytes) -> tuple[Job, float]:
    """The file sent through the site's upload form (the form fetched first, untimed): its job
    once ended, and when the form's answer came (time.time())."""
    path = f"/intake/sites/{site.code}/upload"
    form = clerk.get(path)
    token, key = csrf_token(form.text), _KEY.search(form.text)
    if form.status_code != 200 or not token or not key:
        raise RuntimeError(f"{path} answered {form.status_code} without its form")
    answer = clerk.http.post(clerk.url + path, data={"csrfmiddlewaretoken": token, "key": key[1]},
                             files={"file": (name, content)}, headers=clerk.headers,
                             allow_redirects=False, timeout=60)  # fmt: skip
    answered = time.time()
    found = _JOB.match(answer.headers.get("Location", ""))
    if answer.status_code != 303 or not found:
        raise RuntimeError(f"The upload answered {answer.status_code}: {answer.text[:600]}")
    deadline = time.monotonic() + JOB_SECONDS
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=int(found[1]))
        if job.has_ended:
            return job, answered
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"Job {found[1]} did not end in {JOB_SECONDS} s")


def read_through(name: str, kind: str) -> int:
    """The kept file's rows read as the upload's job reads them, each written to a report and a
    tally as if left alone, ROWS_AT_ONCE at a time; how many."""
    report, tally = uploads.Report(), uploads.Tally()
    left_alone = rows.Taken(rows.Outcome.ALREADY)
    with result_storage().open(name, "rb") as opened:
        for chunk in batched(sheets.rows_of(opened, kind, rows.COLUMNS), uploads.ROWS_AT_ONCE):
            for row in chunk:
                report.add(row, left_alone)
                tally.add(row, left_alone)
    report.file().close()
    return tally.rows


def as_file(table: list[dict[str, str]], kind: str) -> bytes:
    header = list(rows.COLUMNS)
    if kind == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows([row.get(column, "") for column in header] for row in table)
        return ("\ufeff" + out.getvalue()).encode()
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet = workbook.add_worksheet()
    sheet.write_row(0, 0, header)
    for number, row in enumerate(table, start=1):
        sheet.write_row(number, 0, [row.get(column, "") for column in header])
    workbook.close()
    return out.getvalue()
