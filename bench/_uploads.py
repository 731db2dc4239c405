"""bench/uploads.py's measuring process: the portal's own code, imported once Django is set up
(`python -m bench.uploads --measure ...` sets it up first). Not a benchmark of its own."""

from __future__ import annotations

import csv
import gc
import io
import os
import resource
import time
import tracemalloc
import uuid
from dataclasses import dataclass
from datetime import timedelta

import xlsxwriter
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from portal.accounts import credentials
from portal.assurance import records
from portal.assurance.client import BearerToken
from portal.assurance.service import client
from portal.intake import loads, rows, uploads, verdicts
from portal.intake.forms import LoadForm
from portal.intake.models import IntakeSite, Load
from portal.intake.tasks import intake_upload
from portal.jobs.models import Job
from portal.passports import lookup
from portal.passports.models import Passport
from sandbox.ids import guid_for

HOLLOWFIELD = guid_for("membership:hollowfield")
HOLLOWFIELD_FARM = guid_for("site:hollowfield-farm")


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

    # --- time ----------------------------------------------------------------------------------

    def timed(self, count: int, rounds: int, warmup: int) -> dict[str, list[float]]:
        table = self.rows(count)
        content = as_file(table, "csv")
        steps = {"upload": lambda site: self.uploaded(site, content, "csv", count),
                 "one_by_one": lambda site: self.one_by_one(site, table)}  # fmt: skip
        samples: dict[str, list[float]] = {name: [] for name in steps}
        for n in range(warmup + rounds):
            for name in list(steps) if n % 2 == 0 else reversed(list(steps)):
                site = self.new_site()
                started = time.perf_counter()
                steps[name](site)
                took = time.perf_counter() - started
                assert Load.objects.filter(site=site).count() == count, name
                if n >= warmup:
                    samples[name].append(took)
        return samples

    def uploaded(self, site: IntakeSite, content: bytes, kind: str, count: int) -> Job:
        """The upload as its page takes it (the form's check of the file as it comes, the file
        kept, the job made) and its job run as a worker runs it."""
        form = uploads.UploadForm({"key": uuid.uuid4()},
                                  {"file": SimpleUploadedFile(f"day.{kind}", content)})  # fmt: skip
        assert form.is_valid(), form.errors
        job = self.job(site, uploads.upload_params(site, form))
        job.params["file"] = uploads.keep_file(job, form.cleaned_data["file"])
        Job.objects.filter(pk=job.pk).update(params=job.params)
        return self.run(job, count)

    def job(self, site: IntakeSite, params: dict) -> Job:
        return Job.objects.create(kind=uploads.KIND, owner=self.clerk, title="Bench upload",
                                  params=params, credential=self.credential)  # fmt: skip

    @staticmethod
    def run(job: Job, count: int) -> Job:
        intake_upload(job.pk)
        job.refresh_from_db()
        assert job.state == Job.State.DONE, job.message
        assert job.message == f"{count:,} recorded.", job.message
        return job

    def one_by_one(self, site: IntakeSite, table: list[dict[str, str]]) -> None:
        """Each load as the clerk's form records it: the form made and checked, the verdict
        asked as the look-up asks it, the load recorded in a transaction of its own."""
        passports = {passport.short_code: passport for passport in self.passports}
        for row in table:
            passport = passports[row["short_code"]]
            form = LoadForm(rows.form_data(row), site=site, crop=passport.crop_type,
                            loaded=passport.loading_date)  # fmt: skip
            assert form.is_valid(), form.errors
            verdict = verdicts.kept(lookup.verdict(passport.short_code, with_details=False))
            loads.record(site, form.cleaned_data["ticket"], passport, form.figures(),
                         by="haulier", verdict=verdict)  # fmt: skip

    # --- memory --------------------------------------------------------------------------------

    def memory(self, count: int, kind: str) -> dict[str, float]:
        """The peak memory of the upload's job of `count` rows: its file kept first, then the
        job run under tracemalloc."""
        site = self.new_site()
        content = as_file(self.rows(count), kind)
        job = self.job(site, {"site": site.pk, "name": f"day.{kind}", "kind": kind,
                              "rows": count})  # fmt: skip
        job.params["file"] = uploads.keep_file(job, SimpleUploadedFile(f"day.{kind}", content))
        Job.objects.filter(pk=job.pk).update(params=job.params)
        del content
        gc.collect()
        tracemalloc.start()
        started = time.perf_counter()
        self.run(job, count)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return {"traced": peak, "rss": rss, "seconds": seconds}


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
