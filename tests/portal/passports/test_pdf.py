"""A passport's PDF (`/passports/<short code>/pdf` and its `pdf/state` fragment): fetched from
the live sandbox by a job of the user's, run here as the worker runs it, and downloaded by the
contacts of the passport's membership alone."""

from __future__ import annotations

import io

import pypdf
import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django_htmx.http import HTMX_STOP_POLLING

from portal.jobs.models import Job
from portal.passports import pdfs
from portal.passports.tasks import CLAIM_NOT_VALID, passport_pdf
from tests.demo import WENHAM
from tests.jobs import run
from tests.portal.accounts.helpers import AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN, signed_in
from tests.portal.passports.helpers import no_longer_a_contact, suspended, text
from tests.portal.passports.made import (
    made_elsewhere,
    made_here,
    wenham_made_here,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def pdf_job(owner: str = "grower") -> Job:
    return Job.objects.get(kind=passport_pdf.name, owner__username=owner)


def asked(client: Client, short_code: str) -> None:
    """The PDF asked for on the passport's page, as its button does."""
    assert client.post(f"/passports/{short_code}/pdf").status_code == 302


def ready(client: Client, short_code: str) -> Job:
    """The PDF asked for on the passport's page, and its job run as the worker runs it."""
    asked(client, short_code)
    return run(pdf_job())


def pdf_text(content: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


@pytest.mark.parametrize("made", [made_here, made_elsewhere], ids=["here", "elsewhere"])
def test_the_grower_downloads_the_pdf_once_its_job_has_fetched_it(grower, made):
    short_code = made()
    job = ready(grower, short_code)
    assert job.state == Job.State.DONE
    page = text(grower.get(f"/passports/{short_code}/"))
    assert "Download the PDF" in page
    assert "being prepared" not in page
    response = grower.get(f"/passports/{short_code}/pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert f'filename="passport-{short_code}.pdf"' in response["Content-Disposition"]
    content = b"".join(response.streaming_content)
    assert content.startswith(b"%PDF")
    assert short_code in pdf_text(content)


def test_the_job_made_with_the_passport_is_the_one_its_page_shows(grower):
    short_code = made_here()
    request = RequestFactory().post("/passports/new")
    request.session = grower.session
    request.user = get_user_model().objects.get(username="grower")
    started = pdfs.start(request, short_code.replace("-", ""))  # as the service writes it
    asked(grower, short_code)
    assert pdf_job() == started
    assert started.params == {"short_code": short_code}


def test_before_it_is_ready_the_pdfs_address_leads_back_to_the_page(grower):
    short_code = made_here()
    asked(grower, short_code)
    response = grower.get(f"/passports/{short_code}/pdf")
    assert response.status_code == 302
    assert response["Location"] == f"/passports/{short_code}/"


def test_its_state_is_polled_until_the_job_has_ended(grower):
    short_code = made_here()
    asked(grower, short_code)
    state = f"/passports/{short_code}/pdf/state"
    polled = grower.get(state, headers=HTMX)
    assert polled.status_code == 200
    html = polled.content.decode()
    assert "<html" not in html
    assert f'hx-get="{state}?shown=queued.0.0.0"' in html
    assert "The PDF is being prepared." in text(polled)
    # Polled by a page that says so already: nothing to swap.
    assert grower.get(f"{state}?shown=queued.0.0.0", headers=HTMX).status_code == 204
    run(pdf_job())
    ended = grower.get(f"{state}?shown=queued.0.0.0", headers=HTMX)
    assert ended.status_code == HTMX_STOP_POLLING
    assert "hx-get" not in ended.content.decode()
    assert f'href="/passports/{short_code}/pdf"' in ended.content.decode()
    assert "Download the PDF" in text(ended)


def test_a_fetch_the_service_refuses_says_why_and_is_retried(grower, upstream_sandbox):
    short_code = wenham_made_here()
    with suspended(upstream_sandbox, WENHAM):
        ready(grower, short_code)
    job = pdf_job()
    assert job.state == Job.State.FAILED
    assert job.message == CLAIM_NOT_VALID
    page = grower.get(f"/passports/{short_code}/")
    assert CLAIM_NOT_VALID in text(page)
    assert "Retry" in text(page)
    assert "<noscript><meta http-equiv" not in page.content.decode()  # nothing to wait for

    retried = grower.post(f"/passports/{short_code}/pdf", headers=HTMX)
    assert retried.status_code == 200
    assert "<html" not in retried.content.decode()
    assert "The PDF is being prepared." in text(retried)
    assert pdf_job() == job  # the same job, queued again
    run(job)
    download = grower.get(f"/passports/{short_code}/pdf")
    assert b"".join(download.streaming_content).startswith(b"%PDF")


def test_without_javascript_retry_goes_back_to_the_page(grower, upstream_sandbox):
    short_code = wenham_made_here()
    with suspended(upstream_sandbox, WENHAM):
        ready(grower, short_code)
    response = grower.post(f"/passports/{short_code}/pdf")
    assert response.status_code == 302
    assert response["Location"] == f"/passports/{short_code}/"
    assert pdf_job().state == Job.State.QUEUED


def test_a_fetch_that_fails_otherwise_says_so_with_a_retry(grower, monkeypatch):
    short_code = made_here()

    class Broken:
        def passport_pdf(self, *args: object) -> bytes:
            raise RuntimeError("the service answered nonsense")

    monkeypatch.setattr("portal.passports.tasks.client", Broken)
    ready(grower, short_code)
    page = text(grower.get(f"/passports/{short_code}/"))
    assert (
        "The PDF could not be fetched. Something went wrong while making this. Try again." in page
    )
    assert "Retry" in page


@pytest.mark.parametrize("username", ["haulier", "lapsed"])
def test_no_one_but_a_contact_downloads_it_or_asks_for_it(grower, username):
    short_code = made_here()
    ready(grower, short_code)
    stranger = signed_in(username)
    assert stranger.get(f"/passports/{short_code}/pdf").status_code == 404
    assert stranger.post(f"/passports/{short_code}/pdf").status_code == 404
    assert stranger.get(f"/passports/{short_code}/pdf/state").status_code == 404
    assert not Job.objects.filter(owner__username=username).exists()


def test_a_pdf_made_elsewhere_is_no_ones_but_its_contacts(grower):
    short_code = made_elsewhere()
    stranger = signed_in("lapsed")
    assert stranger.get(f"/passports/{short_code}/pdf").status_code == 404
    assert stranger.post(f"/passports/{short_code}/pdf", headers=HTMX).status_code == 404


def test_from_the_jobs_a_pdf_is_downloaded_only_while_its_owner_is_a_contact(
    grower, upstream_sandbox, settings
):
    settings.PORTAL_AUTHORISATION_SECONDS = 0  # the service is asked on every download
    with time_machine.travel(AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN):
        short_code = wenham_made_here()
        job = ready(grower, short_code)
        assert f'href="/jobs/{job.pk}/download/"' in grower.get("/jobs/").content.decode()

        response = grower.get(f"/jobs/{job.pk}/download/", follow=True)
        assert response.status_code == 200
        assert short_code in pdf_text(b"".join(response.streaming_content))

        with no_longer_a_contact(upstream_sandbox, WENHAM, "grower"):
            assert grower.get(f"/jobs/{job.pk}/download/", follow=True).status_code == 404
