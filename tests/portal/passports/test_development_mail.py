"""The mail `make run`'s own mail server keeps (scripts/servers.py: aiosmtpd writing a Maildir),
shown at /development/mail/ where PORTAL_DEVELOPMENT_MAILBOX names the Maildir, and nowhere
else: a passport sent by e-mail through that server, then read on the page by staff, its PDF
opened; no one else reads it."""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from portal.jobs.models import Job
from scripts import servers
from tests.jobs import run_queued
from tests.portal.passports.helpers import text
from tests.portal.passports.made import made_with_the_form
from tests.portal.passports.test_mail import HAULIER, mail_form
from tests.services import wait_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def maildir(tmp_path: Path, settings) -> Iterator[Path]:
    """make run's mail server, on a free port, keeping mail in a Maildir of the test's own."""
    folder, port = tmp_path / "mail", servers.free_port()
    process = servers.start_mail_server(folder, port, log=tmp_path / "mail.log")
    wait_for(lambda: _answers(port), "the mail server")
    settings.MAILERS = {"default": {"OPTIONS": {"host": servers.LOOPBACK, "port": port}}}
    settings.PORTAL_DEVELOPMENT_MAILBOX = str(folder)
    yield folder
    servers.stop(process)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection((servers.LOOPBACK, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def sent(grower, maildir) -> str:
    """The address of the page of a mail the grower sent, with a passport."""
    code = made_with_the_form(grower)
    grower.post("/passports/send", mail_form(grower, [code]))
    assert run_queued("passport-mail").state == Job.State.DONE
    return code


def test_a_passport_sent_by_e_mail_is_seen_on_the_page_with_its_pdf(grower, staff, maildir):
    client = staff
    assert "No mail yet" in text(client.get("/development/mail/"))
    code = made_with_the_form(grower)
    grower.post("/passports/send", mail_form(grower, [code]))
    assert run_queued("passport-mail").state == Job.State.DONE
    listed = client.get("/development/mail/")
    assert f"Crop passport {code} from Hollowfield Farms Ltd" in text(listed)
    one = re.search(r'href="(/development/mail/[^"]+/)"', listed.content.decode())[1]
    page = text(client.get(one))
    assert f"To {HAULIER}" in page and "Reply-To grower@example.com" in page
    assert f"passport-{code}.pdf application/pdf" in page
    assert f"http://testserver/p/{code}" in page  # the text part
    pdf = client.get(f"{one}0")
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    html = client.get(f"{one}html")
    assert html["Content-Security-Policy"].startswith("sandbox")
    assert f"/p/{code}" in html.content.decode()


def test_it_is_not_there_without_a_development_mailbox(staff, settings):
    settings.PORTAL_DEVELOPMENT_MAILBOX = ""
    assert staff.get("/development/mail/").status_code == 404


def test_an_unknown_mail_is_not_found(staff, maildir):
    assert staff.get("/development/mail/nothing-here/").status_code == 404
    assert staff.get("/development/mail/../../etc/passwd/").status_code == 404


def mail_addresses(staff: Client) -> list[str]:
    """Every address of the mailbox: the list, and each mail's page, HTML and attachments."""
    listed = staff.get("/development/mail/").content.decode()
    one = re.search(r'href="(/development/mail/[^"]+/)"', listed)[1]
    return ["/development/mail/", one, f"{one}html", f"{one}0"]


def test_someone_signed_out_is_sent_to_sign_in_and_reads_nothing(staff, sent):
    for address in mail_addresses(staff):
        answer = Client().get(address)
        assert answer.status_code == 302, address
        assert answer["Location"].startswith("/accounts/sign-in/")


def test_a_user_who_is_not_staff_reads_nothing_of_it(grower, staff, sent):
    """Not even the mail they sent themselves: the mailbox holds every business's mail."""
    for address in mail_addresses(staff):
        answer = grower.get(address)
        assert answer.status_code == 403, address
        assert sent not in answer.content.decode()


def test_a_refusal_is_one_line_in_the_log_not_a_traceback(grower, staff, sent, caplog):
    """A 403 is the portal working as it should: the log says so in one line."""
    caplog.set_level(logging.WARNING, logger="django.request")
    addresses = mail_addresses(staff)
    for address in addresses:
        assert grower.get(address).status_code == 403, address
    refused = [record for record in caplog.records if record.name == "django.request"]
    assert [record.getMessage() for record in refused] == [
        f"Forbidden (Permission denied): {address}" for address in addresses
    ]
    assert "Traceback" not in caplog.text
