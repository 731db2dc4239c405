"""Jobs in Welsh: Your jobs and a job's page under /cy/, its progress in its kind's own words,
and what a job started from a Welsh page writes (its message) in Welsh."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client, RequestFactory
from django.utils import timezone, translation

from portal.intake import tasks as intake_tasks  # noqa: F401 (registers its kind)
from portal.intake import uploads
from portal.jobs.actions import start_job
from portal.jobs.models import Job
from portal.passports import tasks as passports_tasks  # noqa: F401 (registers its kinds)
from tests.jobs import run
from tests.portal.jobs.conftest import new_job
from tests.portal.jobs.kinds import scheme_references
from tests.portal.standards.helpers import CROPS

HTMX = {"HX-Request": "true"}


def start_from_a_welsh_page(grower: Client, scheme: str) -> Job:
    """A job of the tests' kind started as a view of a page under /cy/ starts one."""
    request = RequestFactory().get("/cy/")
    request.session = grower.session
    request.user = Job._meta.get_field("owner").related_model.objects.get(username="grower")
    with translation.override("cy"):
        return start_job(request, scheme_references, "Cyfeirnodau’r cynllun cnydau",
                         {"scheme": scheme, "pause": 0})  # fmt: skip


def test_your_jobs_says_there_are_none_in_welsh(grower):
    page = grower.get("/cy/jobs/").content.decode()
    assert '<html lang="cy">' in page
    assert "<h1>Eich tasgau</h1>" in page
    assert "Nid oes gennych unrhyw dasgau." in page
    assert "a’u ffeiliau am 7 diwrnod wedyn." in page
    assert '<a href="/cy/jobs/" aria-current="page">Eich tasgau</a>' in page


def test_your_jobs_counts_the_days_files_are_kept_in_welsh_words(grower, settings):
    for days, said in ((1, "am ddiwrnod wedyn."), (2, "am 2 ddiwrnod wedyn.")):
        settings.PORTAL_JOB_RESULT_DAYS = days
        assert f"a’u ffeiliau {said}" in grower.get("/cy/jobs/").content.decode()


def test_your_jobs_lists_their_states_in_welsh(grower):
    new_job(grower, title="Cyfeirnodau", state=Job.State.RUNNING, done=2, total=9)
    new_job(grower, title="Allforio", state=Job.State.QUEUED)
    page = grower.get("/cy/jobs/").content.decode()
    assert "Yn rhedeg: 2 o 9" in page
    assert "Yn aros i ddechrau" in page


def test_a_running_job_s_progress_is_in_welsh(grower):
    started = timezone.now() - timedelta(seconds=20)
    job = new_job(grower, state=Job.State.RUNNING, done=5, total=10, started=started)
    fragment = grower.get(f"/cy/jobs/{job.pk}/", headers=HTMX).text
    assert "<strong>References of the crops scheme</strong>: yn rhedeg, 5 o 10 wedi’u gwneud." in (
        fragment
    )
    assert "Tua 20 eiliad ar ôl." in fragment
    assert ">Canslo</button>" in fragment
    assert 'aria-label="Cynnydd References of the crops scheme"' in fragment


def test_a_finished_job_started_from_a_welsh_page_is_shown_in_welsh(grower):
    job = run(start_from_a_welsh_page(grower, CROPS))
    assert (job.state, job.language) == (Job.State.DONE, "cy")
    page = grower.get(f"/cy/jobs/{job.pk}/").content.decode()
    assert "<title>Cyfeirnodau’r cynllun cnydau · Porth sicrwydd</title>" in page
    assert "<strong>Cyfeirnodau’r cynllun cnydau</strong>: wedi’i gorffen." in page
    assert f'href="/cy/jobs/{job.pk}/download/" download>Llwytho ' in page
    assert "Cedwir tan " in page
    assert "Dechreuwyd ar " in page and '<a href="/cy/jobs/">Eich tasgau</a>' in page


def test_a_job_started_from_a_welsh_page_writes_its_message_in_welsh(grower):
    job = run(start_from_a_welsh_page(grower, "no-such-scheme"))
    assert job.state == Job.State.FAILED
    assert job.message == "Aeth rhywbeth o’i le wrth wneud hyn. Rhowch gynnig arall arni."
    page = grower.get(f"/cy/jobs/{job.pk}/").content.decode()
    assert job.message in page
    assert "wedi methu." in page and ">Ceisio eto</button>" in page


def test_a_job_stopped_for_sign_in_says_so_in_welsh(grower):
    job = run(new_job(grower, credential="", language="cy"))
    assert (job.state, job.message) == (Job.State.FAILED, "Mewngofnodwch eto i orffen y dasg hon")
    assert ">Parhau</button>" in grower.get(f"/cy/jobs/{job.pk}/").text


def test_each_kind_says_its_progress_in_its_own_whole_welsh_words():
    def said(kind: str, state: str, done: int, total: int) -> str:
        with translation.override("cy"):
            return Job(kind=kind, state=state, done=done, total=total).progress

    assert said("passport-batch", "running", 3, 12) == "yn rhedeg, 3 o 12 wedi’u gwneud"
    assert said("passport-export", "failed", 3, 12) == "wedi methu, 3 o 12 wedi’u hallforio"
    assert said("passport-mail", "running", 1, 3) == "yn anfon, 1 o 3 wedi’u hatodi"
    assert said(uploads.KIND, "running", 1, 2) == "yn cofnodi, 1 o 2 res wedi’u darllen"
    assert said(uploads.KIND, "running", 4, 30) == "yn cofnodi, 4 o 30 rhes wedi’u darllen"
    assert said(uploads.KIND, "running", 0, 0) == "yn cofnodi"
    assert said("no-longer-a-kind", "cancelled", 0, 0) == "wedi’i chanslo"
    with translation.override("en-gb"):
        assert Job(kind=uploads.KIND, state="running", done=4, total=30).progress == (
            "recording, 4 of 30 rows read"
        )
