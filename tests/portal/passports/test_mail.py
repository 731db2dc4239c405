"""Passports sent by e-mail (`/passports/send`): from a passport's page, a batch or the passports
ticked in the list, by a job (run here as a worker runs it) through a real SMTP server started
by the test, read back as it arrived; the limits that keep the portal from relaying for anyone;
a mail server down or refusing loses nothing and sends no mail twice."""

from __future__ import annotations

import io
import re
import threading
from datetime import UTC, datetime, timedelta

import msgspec
import pypdf
import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.utils import timezone

from portal.audit.models import Event
from portal.jobs.models import Job
from portal.jobs.tasks import TryAgain
from portal.passports.models import Mailing
from portal.passports.tasks import passport_mail
from tests.demo import HOLLOWFIELD
from tests.jobs import run
from tests.mailserver import MailServer
from tests.portal.accounts.helpers import sign_in
from tests.portal.passports.helpers import (
    details_of,
    no_longer_a_contact,
    suspended,
    table_of,
    text,
    words,
)
from tests.portal.passports.made import (
    SOME_OF_THE_LOAD,
    filled,
    made_here,
    made_with_the_form,
    wenham_made_here,
)

pytestmark = pytest.mark.django_db

HAULIER = "dispatch@haulage.example"


def form_key(page) -> str:
    return re.search(r'name="key" value="([^"]+)"', page.content.decode())[1]


def reply_to_given(page) -> str | None:
    """The address the form offers for replies, as filled in."""
    field = re.search(r'<input type="email" name="reply_to"[^>]*>', page.content.decode())[0]
    value = re.search(r'value="([^"]*)"', field)
    return value[1] if value else None


def opened_from_its_page(client: Client, code: str, **headers: str):
    """The send form, opened as the passport's page links to it."""
    page = client.get(f"/passports/{code}/").content.decode()
    link = re.search(r'<a class="button" href="(/passports/send\?code=[^"]+)"', page)[1]
    return client.get(link, headers=headers)


def mail_form(client: Client, codes: list[str], **fields: str) -> dict:
    """The send form as the user fills it, for the passports of `codes`, with `fields` over."""
    page = client.post("/passports/send", {"code": codes})
    assert page.status_code == 200, text(page)
    return {"code": codes, "key": form_key(page), "recipient": HAULIER,
            "reply_to": "grower@example.com", "note": "", **fields}  # fmt: skip


def sent(client: Client, codes: list[str], **fields: str):
    return client.post("/passports/send", mail_form(client, codes, **fields))


def mail_job() -> Job:
    return Job.objects.get(kind=passport_mail.name)


def pdf_words(content: bytes) -> str:
    return " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(content)).pages)


def test_a_passport_sent_from_its_page_arrives_with_its_pdf_code_and_look_up_address(
    grower, mail_server: MailServer
):
    code = made_with_the_form(grower)
    page = opened_from_its_page(grower, code)
    assert f"Send passport {code} by e-mail" in text(page)
    note = "Load 3 of 5.\nCollect from gate B."
    form = {"code": code, "key": form_key(page), "recipient": HAULIER,
            "reply_to": "grower@example.com", "note": note}  # fmt: skip
    response = grower.post("/passports/send", form)
    job = mail_job()
    assert response.status_code == 303 and response["Location"] == f"/jobs/{job.pk}/"
    assert run(job).state == Job.State.DONE, job.message

    [mail] = mail_server.wait_for(1)
    message = mail.message
    assert mail.recipients == [HAULIER]
    assert message["To"] == HAULIER
    assert message["From"] == "Assurance portal <portal@localhost>"
    assert message["Reply-To"] == "grower@example.com"
    assert message["Subject"] == f"Crop passport {code} from Hollowfield Farms Ltd"
    plain = mail.body("plain").replace("\r\n", "\n")
    assert f"http://testserver/p/{code}" in plain
    assert "sent by grower (grower@example.com)" in plain
    assert "Load 3 of 5.\nCollect from gate B." in plain
    html = mail.body("html")
    assert f'href="http://testserver/p/{code}"' in html and 'src="cid:qr-0@passports"' in html
    assert "Load 3 of 5.<br>Collect from gate B." in html
    attachments = mail.attachments()
    assert list(attachments) == [f"passport-{code}.pdf"]
    assert code in pdf_words(attachments[f"passport-{code}.pdf"]).replace(" ", "")
    [qr] = [p for p in message.walk() if p.get_content_type() == "image/png"]
    assert qr["Content-ID"] == "<qr-0@passports>"

    words = text(grower.get(f"/jobs/{job.pk}/"))
    assert f"Sent to {HAULIER} on" in words
    listed = text(grower.get(f"/passports/{code}/"))
    assert f"To {HAULIER}, asked by grower" in listed and "sent at" in listed


def sent_and_read(client: Client, code: str, mail_server: MailServer) -> tuple[str, str]:
    """The passport sent by e-mail as the user sends it, and the mail's plain and HTML bodies
    as they arrived."""
    assert sent(client, [code]).status_code == 303
    assert run(mail_job()).state == Job.State.DONE, mail_job().message
    [mail] = mail_server.wait_for(1)
    return mail.body("plain").replace("\r\n", "\n"), mail.body("html")


def test_the_mail_shows_the_passport_by_its_printed_labels_and_dates_as_its_page(
    grower, mail_server: MailServer
):
    code = made_with_the_form(grower, haulier_company_name="Stour Valley Haulage")
    on_its_page = details_of(grower.get(f"/passports/{code}/"))
    plain, html = sent_and_read(grower, code, mail_server)
    lines = re.findall(r"^  (.+?): (.+)$", plain, re.M)
    rows = re.findall(r'<th scope="row"[^>]*>(.*?)</th><td[^>]*>(.*?)</td>', html)
    in_brief = ["Crop type", "Variety", "Loading date", "Harvest year", "Haulier company name"]
    for shown in (lines, rows):
        pairs = [(words(label), words(value)) for label, value in shown]
        fields = {label: value for label, value in pairs if label in on_its_page}
        assert list(fields) == in_brief
        assert fields == {label: on_its_page[label] for label in in_brief}
    assert on_its_page["Loading date"] == "21 August 2026"
    assert "  Loading date: 21 August 2026\n" in plain


def test_a_passports_loading_date_and_when_it_was_made_read_alike_on_the_list_its_page_and_mail(
    grower, mail_server: MailServer
):
    # Half past eleven at night in UTC is half past midnight the next day in London: a day
    # written in the wrong time zone would read a day out.
    late = datetime(2026, 8, 21, 23, 30, tzinfo=UTC)
    with time_machine.travel(late, tick=True):
        code = made_here(msgspec.structs.replace(SOME_OF_THE_LOAD, loading_date=late))
    loaded, made = "21 August 2026", "22 August 2026, 00:30"

    _, rows = table_of(grower.get("/passports/"), "passports")
    [listed] = [row for row in rows if row["Passport short code"] == code]
    assert (listed["Loading date"], listed["Made"]) == (loaded, f"Made by grower {made}")
    page = grower.get(f"/passports/{code}/")
    assert details_of(page)["Loading date"] == loaded
    assert f"Made by grower on {made}." in text(page)
    plain, html = sent_and_read(grower, code, mail_server)
    assert f"  Loading date: {loaded}\n" in plain
    assert f"  Made by grower on {made}\n" in plain
    assert f"Loading date {loaded}" in words(html)
    assert f"Made by grower on {made}" in words(html)


def test_the_form_opens_from_a_passports_page_with_nothing_marked_wrong(grower):
    code = made_with_the_form(grower)
    page = opened_from_its_page(grower, code)
    assert page.status_code == 200 and "<html" in page.content.decode()
    assert "Nothing was sent" not in text(page) and "required" not in text(page)
    assert 'class="error-summary"' not in page.content.decode()
    assert page["Vary"] == "HX-Request, Cookie"


def test_with_htmx_the_form_opens_alone_in_the_passports_page_nothing_marked_wrong(grower):
    code = made_with_the_form(grower)
    fragment = opened_from_its_page(grower, code, HX_Request="true")
    content = fragment.content.decode()
    assert fragment.status_code == 200 and "<html" not in content
    assert content.lstrip().startswith('<form method="post" action="/passports/send"')
    assert f'name="code" value="{code}"' in content
    assert re.search(r'<input type="email" name="recipient"[^>]* autofocus', content)
    assert "Nothing was sent" not in text(fragment) and "required" not in text(fragment)


def test_the_form_says_what_is_wrong_only_once_sent(grower):
    code = made_with_the_form(grower)
    key = form_key(opened_from_its_page(grower, code))
    response = grower.post("/passports/send", {"code": code, "key": key})
    assert response.status_code == 400
    assert "Send to: This field is required." in text(response)
    assert not Mailing.objects.exists()


def test_with_htmx_the_form_sent_comes_back_in_place_with_what_is_wrong(grower):
    code = made_with_the_form(grower)
    form = mail_form(grower, [code], recipient="not an address")
    response = grower.post("/passports/send", form, headers={"HX-Request": "true"})
    assert response.status_code == 400 and "<html" not in response.content.decode()
    assert "Nothing was sent. Check what is marked below." in text(response)
    assert "Send to: Enter a valid email address." in text(response)
    assert not Mailing.objects.exists()


def test_with_htmx_the_form_sent_goes_on_to_its_jobs_page(grower):
    code = made_with_the_form(grower)
    response = grower.post("/passports/send", mail_form(grower, [code]),
                           headers={"HX-Request": "true"})  # fmt: skip
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/jobs/{mail_job().pk}/"


def test_your_address_is_the_one_you_gave_last_time(grower, django_user_model):
    code = made_with_the_form(grower)
    account = django_user_model.objects.get(username="grower")
    account.email = "office@hollowfield.example"
    account.save()
    assert reply_to_given(opened_from_its_page(grower, code)) == "office@hollowfield.example"
    assert sent(grower, [code], reply_to="jo@hollowfield.example").status_code == 303
    assert reply_to_given(opened_from_its_page(grower, code)) == "jo@hollowfield.example"
    ticked = grower.post("/passports/send", {"code": [code], "scope": "ticked"})
    assert reply_to_given(ticked) == "jo@hollowfield.example"


def test_the_passports_ticked_in_the_list_go_in_one_mail_in_their_order(
    grower, mail_server: MailServer
):
    first, second = made_with_the_form(grower), made_with_the_form(grower, crop_type="Barley")
    response = grower.post("/passports/send", {"code": [second, first], "scope": "ticked"})
    assert "Send 2 passports by e-mail" in text(response)
    grower.post("/passports/send", mail_form(grower, [second, first]))
    assert run(mail_job()).state == Job.State.DONE
    [mail] = mail_server.wait_for(1)
    assert list(mail.attachments()) == [f"passport-{first}.pdf", f"passport-{second}.pdf"]
    assert mail.message["Subject"] == "2 crop passports from Hollowfield Farms Ltd"


def test_a_finished_batch_offers_to_send_its_passports(grower, mail_server: MailServer):
    grower.post("/passports/new", filled(grower, loads="3"))
    batch = run(Job.objects.get(kind="passport-batch"))
    page = grower.get(f"/jobs/{batch.pk}/")
    assert "Send by e-mail" in text(page)
    codes = re.findall(r'name="code" value="([^"]+)"', page.content.decode())
    assert len(codes) == 3
    grower.post("/passports/send", mail_form(grower, codes))
    job = run(mail_job())
    assert job.state == Job.State.DONE
    [mail] = mail_server.wait_for(1)
    assert list(mail.attachments()) == [f"passport-{code}.pdf" for code in codes]
    outcome = grower.get(f"/jobs/{job.pk}/").content.decode()
    assert re.findall(r'class="code" href="/passports/([^/]+)/"', outcome) == codes


def test_the_form_sent_twice_sends_one_mail(grower, mail_server: MailServer):
    code = made_with_the_form(grower)
    form = mail_form(grower, [code])
    first, second = grower.post("/passports/send", form), grower.post("/passports/send", form)
    assert first["Location"] == second["Location"]
    assert Mailing.objects.count() == 1 and Job.objects.filter(kind=passport_mail.name).count() == 1
    job = run(mail_job())
    assert run(job).state == Job.State.DONE  # its message delivered twice
    mail_server.wait_for(1)
    assert len(mail_server.received) == 1


@pytest.mark.django_db(transaction=True)
def test_a_job_run_twice_at_once_sends_one_mail_and_records_it_once(grower, mail_server):
    mail_server.inbox.delay = 2  # the first run still sending as the second comes to send
    sent(grower, [made_with_the_form(grower)])
    job = mail_job()
    runs = [threading.Thread(target=run_and_close, args=(job.pk,)) for _ in range(2)]
    for each in runs:
        each.start()
    for each in runs:
        each.join(60)
    assert len(mail_server.received) == 1
    assert Event.objects.filter(kind=Event.Kind.MAIL_SENT).count() == 1
    assert Job.objects.get(pk=job.pk).state == Job.State.DONE


def run_and_close(job_id: int) -> None:
    try:
        run(job_id)
    finally:
        connection.close()  # the thread's own


@pytest.mark.parametrize(
    ("recipient", "error"),
    [
        ("haulier@example.com\r\nBcc: everyone@example.com", "Enter a valid email address."),
        ("one@example.com, two@example.com", "Enter a valid email address."),
        ("not an address", "Enter a valid email address."),
        ("", "This field is required."),
    ],
)
def test_a_recipient_that_is_not_one_address_is_refused_and_nothing_is_sent(
    grower, recipient, error
):
    code = made_with_the_form(grower)
    response = sent(grower, [code], recipient=recipient)
    assert response.status_code == 400
    assert f"Send to: {error}" in text(response)
    assert not Mailing.objects.exists() and not Job.objects.filter(kind=passport_mail.name).exists()


def test_a_message_longer_than_500_characters_is_refused(grower):
    code = made_with_the_form(grower)
    response = sent(grower, [code], note="x" * 501)
    assert response.status_code == 400
    assert "The message is longer than 500 characters" in text(response)
    assert not Mailing.objects.exists()


def test_a_passport_of_another_business_is_never_sent(grower, partner):
    code = made_with_the_form(grower)
    other = wenham_made_here()  # partner is a contact of Hollowfield only
    page = partner.post("/passports/send", {"code": [other]})
    assert page.status_code == 400 and "not among your business's passports" in text(page)
    response = partner.post("/passports/send", mail_form(partner, [code]) | {"code": [code, other]})
    assert response.status_code == 400
    assert "not among your business's passports" in text(response)
    assert not Mailing.objects.exists()


def test_the_21st_mail_in_an_hour_is_refused_with_a_clear_message(grower):
    code = made_with_the_form(grower)
    for n in range(20):
        assert sent(grower, [code], recipient=f"buyer{n}@example.com").status_code == 303
    refused = sent(grower, [code], recipient="buyer20@example.com")
    assert refused.status_code == 429
    assert "you have asked for 20 mails in the last hour" in text(refused)
    assert Mailing.objects.count() == 20
    with time_machine.travel(timezone.now() + timedelta(hours=1, minutes=1)):
        assert sign_in(grower, "grower").status_code == 302  # a session lasts an hour idle
        assert sent(grower, [code], recipient="buyer20@example.com").status_code == 303


def test_one_recipient_is_sent_at_most_the_day_s_limit_by_everyone(grower, partner, settings):
    settings.PORTAL_MAILS_PER_RECIPIENT_PER_DAY = 2
    code = made_with_the_form(grower)
    assert sent(grower, [code]).status_code == 303
    assert sent(partner, [code], reply_to="partner@example.com").status_code == 303
    refused = sent(grower, [code], recipient=HAULIER.upper())
    assert refused.status_code == 429
    assert "has been sent 2 mails from this portal in the last day" in text(refused)


def test_a_mail_server_that_is_down_loses_nothing_and_the_mail_goes_once_it_is_back(
    grower, settings
):
    server = MailServer()  # chosen, not yet started: nothing answers on its port
    settings.MAILERS = server.mailer()
    code = made_with_the_form(grower)
    sent(grower, [code])
    job = mail_job()
    with pytest.raises(TryAgain):  # a worker sends the job again later
        run(job)
    waiting = Job.objects.get(pk=job.pk)
    assert waiting.state == Job.State.QUEUED
    assert "The mail server could not be reached" in waiting.message
    assert "Trying again at" in text(grower.get(f"/jobs/{job.pk}/"))
    server.start()
    try:
        assert run(job).state == Job.State.DONE
        assert len(server.wait_for(1)) == 1
    finally:
        server.stop()


def test_a_mail_server_still_down_after_every_try_fails_the_job_with_retry(grower, settings):
    settings.PORTAL_MAIL_TRIES = 1
    settings.MAILERS = MailServer().mailer()
    code = made_with_the_form(grower)
    sent(grower, [code])
    job = run(mail_job())
    assert job.state == Job.State.FAILED
    assert "The mail server could not be reached" in job.message and "Tried 1 times" in job.message
    listed = text(grower.get(f"/passports/{code}/"))
    assert f"To {HAULIER}, asked by grower" in listed
    assert "✗ not sent : The mail server could not be reached" in listed
    assert "Retry" in text(grower.get(f"/jobs/{job.pk}/"))


def test_an_address_the_mail_server_refuses_fails_at_once_in_words(grower, mail_server: MailServer):
    mail_server.inbox.refusal = "550 5.1.1 No such user here"
    code = made_with_the_form(grower)
    sent(grower, [code])
    job = run(mail_job())
    assert job.state == Job.State.FAILED
    assert job.message == (f"The mail server refused the address {HAULIER}: 550 5.1.1 No such "
                           "user here. Check the address and send it again.")  # fmt: skip
    assert not mail_server.received


def test_a_mail_server_that_says_try_later_is_tried_again(grower, mail_server: MailServer):
    mail_server.inbox.refusal = "451 4.3.0 Mailbox busy, try again later"
    code = made_with_the_form(grower)
    sent(grower, [code])
    with pytest.raises(TryAgain):
        run(mail_job())
    assert "for now (451 4.3.0 Mailbox busy" in Job.objects.get(kind=passport_mail.name).message
    mail_server.inbox.refusal = ""
    assert run(mail_job()).state == Job.State.DONE
    assert len(mail_server.wait_for(1)) == 1


def test_a_sender_no_longer_a_contact_when_the_job_runs_sends_nothing(
    grower, upstream_sandbox, mail_server: MailServer
):
    code = made_with_the_form(grower)
    sent(grower, [code])
    with no_longer_a_contact(upstream_sandbox, HOLLOWFIELD, "grower"):
        job = run(mail_job())
    assert job.state == Job.State.FAILED
    assert "no longer a registered contact" in job.message
    assert not mail_server.received


def test_a_passport_whose_claim_is_not_valid_now_is_sent_without_a_pdf_and_says_why(
    grower, upstream_sandbox, mail_server: MailServer
):
    code = made_with_the_form(grower)
    sent(grower, [code])
    with suspended(upstream_sandbox, HOLLOWFIELD):
        assert run(mail_job()).state == Job.State.DONE
    [mail] = mail_server.wait_for(1)
    assert mail.attachments() == {}
    assert "No PDF: the Assurance service gives none" in mail.body("plain")
