"""POST /standards/<guid>/export/: the whole scheme as a job, its progress in place."""

from __future__ import annotations

import csv
import io

import pypdf
import pytest

from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.standards.helpers import CROPS, HTMX, UNKNOWN_SCHEME, demo

pytestmark = pytest.mark.django_db
EXPORT = f"/standards/{CROPS}/export/"


def test_the_scheme_page_offers_the_whole_scheme(grower):
    page = grower.get(f"/standards/{CROPS}/").content.decode()
    assert f'action="{EXPORT}"' in page
    assert 'name="format" value="pdf"' in page and 'name="format" value="csv"' in page


def test_without_javascript_it_starts_a_job_and_shows_its_page(grower):
    response = grower.post(EXPORT, {"format": "pdf"})
    job = Job.objects.get()
    assert response.status_code == 302
    assert response.url == f"/jobs/{job.pk}/"
    assert job.kind == "scheme-export-pdf"
    assert job.params == {"stage": "live", "scheme_guid": CROPS}
    assert job.title == f"{demo('crops')['name']} as a PDF checklist"
    assert job.state == Job.State.QUEUED


def test_with_htmx_its_progress_takes_the_forms_place(grower):
    response = grower.post(EXPORT, {"format": "csv"}, headers=HTMX)
    assert response.status_code == 200
    content = response.content.decode()
    assert "<html" not in content
    job = Job.objects.get()
    assert f'id="job-{job.pk}"' in content
    assert f'hx-get="/jobs/{job.pk}/?shown=queued.0.0.0"' in content  # it polls while the job runs


def test_asking_again_for_the_same_content_reuses_the_job(grower):
    grower.post(EXPORT, {"format": "csv"})
    grower.post(EXPORT, {"format": "csv"})
    assert Job.objects.count() == 1
    grower.post(EXPORT, {"format": "pdf"})
    grower.post(f"/standards/preview/{CROPS}/export/", {"format": "csv"})
    assert Job.objects.count() == 3


@pytest.mark.parametrize("form", [{}, {"format": "docx"}], ids=["none", "unknown"])
def test_a_format_it_does_not_make_is_a_bad_request(grower, form):
    response = grower.post(EXPORT, form)
    assert response.status_code == 400
    assert Job.objects.count() == 0


def test_an_unknown_scheme_is_not_found(grower):
    assert grower.post(f"/standards/{UNKNOWN_SCHEME}/export/", {"format": "pdf"}).status_code == 404
    assert Job.objects.count() == 0


def test_it_takes_only_a_post(grower):
    assert grower.get(EXPORT).status_code == 405


def test_the_job_makes_the_whole_scheme_as_csv(grower):
    grower.post(EXPORT, {"format": "csv"})
    job = Job.objects.get()
    run(job)  # as the worker does
    job.refresh_from_db()
    assert job.state == Job.State.DONE
    assert job.done == job.total > 0
    assert job.result_name == "combinable-crops-and-sugar-beet.csv"
    rows = list(csv.DictReader(io.StringIO(job.result.read().decode("utf-8-sig"))))
    expected = [f"{s['sector']}.{s['prefix']}.{p['number']}" for s in demo("crops")["sections"]
                for p in s["points"]]  # fmt: skip
    assert sorted(r["Reference"] for r in rows) == sorted(expected)


def test_the_job_makes_the_whole_preview_as_a_pdf(grower):
    grower.post(f"/standards/preview/{CROPS}/export/", {"format": "pdf"})
    job = Job.objects.get()
    run(job)
    job.refresh_from_db()
    assert job.state == Job.State.DONE
    assert job.result_name == "combinable-crops-and-sugar-beet-preview.pdf"
    download = grower.get(f"/jobs/{job.pk}/download/")
    assert download["Content-Type"] == "application/pdf"
    pdf = pypdf.PdfReader(io.BytesIO(b"".join(download.streaming_content)))
    assert "Preview of the next version" in pdf.pages[0].extract_text()
