"""One way of writing things everywhere a person reads them: tonnes to three places on every
page and in every message, "e-mail" in Django's admin as in the portal's own words, and the
upload's job page leading back to the site's loads. ("below specification", never "under":
tests/portal/intake/test_demo.py.)"""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from portal.accounts.session import portal_user
from portal.intake import loads, uploads
from portal.passports.models import Mailing
from tests.jobs import run_queued
from tests.portal.accounts.helpers import signed_in, signed_in_staff
from tests.portal.intake.builders import a_clerk, a_load, a_site, figures, tickets_file, upload_row
from tests.portal.intake.many_at_once.uploading import report_of, sent
from tests.portal.passports.helpers import text
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.django_db

TONNES = re.compile(r"\b(\d[\d,]*(?:\.\d+)?) (?:t|tonnes)\b")


@pytest.fixture
def clerk(upstream_sandbox) -> Client:
    signed_in("grower")  # the passports' maker
    return signed_in("haulier")


def test_tonnes_are_written_to_three_places_on_every_page_that_shows_them(clerk):
    site = a_clerk("haulier", a_site())
    claim = loads.Claim("specific_weight", Decimal("2.50"), Decimal("29.1"))  # as a clerk types
    load = a_load(site, claims=(claim,))
    second = loads.Claim("moisture", Decimal("1"), Decimal("5"))
    loads.correct(load, figures(claims=(claim, second)), by="haulier", reason="A second claim")
    grower = signed_in("grower")
    pages = {
        "the load's page": text(clerk.get(f"/intake/loads/{load.pk}/")),
        "the passport's page": text(grower.get(f"/passports/{load.passport.short_code}/")),
    }
    for name, page in pages.items():
        written = TONNES.findall(page)
        assert "29.100" in written and "5.000" in written, (name, written)
        assert all(re.fullmatch(r"[\d,]+\.\d{3}", figure) for figure in written), (name, written)
    listed = grower.get("/passports/").content.decode()
    assert re.findall(r'data-label="Net tonnes">([^<]*)<', listed) == ["29.100"]


def test_the_admin_writes_e_mail_as_the_portal_does(upstream_sandbox):
    staff = signed_in_staff("grower", superuser=True)
    user_id = re.search(r'href="/admin/auth/user/(\d+)/change/"',
                        staff.get("/admin/auth/user/").content.decode())[1]  # fmt: skip
    mailing = Mailing.objects.create(sender=portal_user("grower"), sender_email="g@example.com",
                                     recipient="buyer@example.com", key=uuid.uuid4())  # fmt: skip
    users, mailings = "/admin/auth/user/", "/admin/passports/mailing/"
    pages = (users, f"{users}{user_id}/change/", mailings, f"{mailings}{mailing.pk}/change/")
    for address in pages:
        page = text(staff.get(address))
        assert not re.search(r"\bemail\b", page, re.IGNORECASE), address
    assert "E-mail address" in text(staff.get(f"/admin/auth/user/{user_id}/change/"))


def test_the_upload_s_job_page_leads_back_to_the_site_s_loads(clerk):
    site = a_clerk("haulier", a_site())
    tickets = SimpleUploadedFile("monday.csv", tickets_file([upload_row(made_here(), "T-2")]))
    clerk.post(f"/intake/sites/{site.code}/upload", {"key": str(uuid.uuid4()), "file": tickets})
    job = run_queued(uploads.KIND)
    page = clerk.get(f"/jobs/{job.pk}/").content.decode()
    assert f'<a href="/intake/sites/{site.code}/">{site.name}\'s loads</a>' in page


def test_an_upload_s_report_writes_each_short_code_as_a_person_reads_it(clerk):
    site = a_clerk("haulier", a_site())
    code = made_here()
    typed = code.replace("-", "").lower()  # as a clerk may type it
    sent(clerk, site, tickets_file([upload_row(typed, "T-2"), upload_row("not a code", "T-3")]))
    report = report_of(run_queued(uploads.KIND))
    assert [row["short_code"] for row in report] == [code, "not a code"]
