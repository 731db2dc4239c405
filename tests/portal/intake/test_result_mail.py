"""The mail to a passport's maker when a load of it is recorded or corrected at intake
(portal.intake.notifying): queued with the entry, sent by a job of the maker's once the
transaction commits (run here as a worker runs it) through a real SMTP server started by the
test; only where the portal knows their address and they have not turned it off; a mail
server down loses nothing and sends nothing twice."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from portal.accounts.models import Preferences
from portal.intake import loads, notifying
from portal.intake.models import Decision, LoadEntry, ResultMail
from portal.jobs import actions
from portal.jobs.models import Job
from portal.jobs.tasks import TryAgain
from tests.jobs import run
from tests.mailserver import MailServer
from tests.portal.intake.builders import a_load, a_site, figures
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db

KIND = notifying.result_mail.name


@pytest.fixture
def grower_mailed(grower, settings):
    """The grower, whose account's address the portal knows, who chose English; links to the
    portal's address."""
    settings.PORTAL_URL = "https://portal.example"
    get_user_model().objects.filter(username="grower").update(email="grower@example.com")
    chose_language("grower", "en-gb")
    return grower


def chose_language(username: str, language: str) -> None:
    """The user chose `language` on their account's page."""
    user = get_user_model().objects.get(username=username)
    Preferences.objects.update_or_create(user=user, defaults={"language": language})


def mail_job() -> Job:
    return Job.objects.get(kind=KIND)


def sent_mail(mail_server: MailServer, job: Job | None = None):
    """The job run as a worker runs it, and the one mail the server took."""
    assert run(job or mail_job()).state == Job.State.DONE
    [mail] = mail_server.wait_for(1)
    return mail


def test_a_load_recorded_is_mailed_to_its_passports_maker(grower_mailed, mail_server):
    load = a_load(a_site())
    code = load.passport.short_code
    mail = sent_mail(mail_server)
    assert mail.recipients == ["grower@example.com"]
    assert mail.message["From"] == "Assurance portal <portal@localhost>"
    assert mail.message["Subject"] == (
        f"Passport {code} at intake: Accepted with a claim, 29,100 kg"
    )
    assert mail.message.get_content_type() == "text/plain"  # plain, no HTML part
    body = mail.body("plain").replace("\r\n", "\n")
    assert body.startswith(
        f"Stour Valley Grain, Sudbury recorded the load of passport {code} (ticket T-1001).\n"
    )
    assert "Decision: Accepted with a claim (Specific weight below specification)\n" in body
    assert "Net weight: 29,100 kg\n" in body
    assert f"https://portal.example/passports/{code}/\n" in body
    assert (
        "To stop it, or to\nchange the address it goes to: https://portal.example/accounts/you/"
        in body
    )
    assert len(body) < 700  # short


def test_the_mail_is_a_job_of_the_makers_that_says_how_it_ended(grower_mailed, mail_server):
    a_load(a_site())
    job = mail_job()
    assert job.owner.username == "grower" and job.credential == ""  # acts at no service
    sent_mail(mail_server, job)
    page = text(grower_mailed.get(f"/jobs/{job.pk}/"))
    assert "Sent to grower@example.com on" in page
    assert ResultMail.objects.get().sent is not None


def test_a_correction_is_mailed_with_its_reason(grower_mailed, mail_server):
    load = a_load(a_site())
    sent_mail(mail_server)
    corrected = figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=(), reasons=())
    loads.correct(load, corrected, by="intake", reason="Tare of the wrong lorry")
    second = Job.objects.filter(kind=KIND).order_by("-pk").first()
    assert run(second).state == Job.State.DONE
    mail = mail_server.wait_for(2)[1]
    code = load.passport.short_code
    assert mail.message["Subject"] == f"Passport {code} corrected: Accepted, 30,100 kg"
    body = mail.body("plain").replace("\r\n", "\n")
    assert "corrected the record of the load of passport" in body
    at = f"{timezone.localtime(load.entries.get(kind='corrected').at):%H:%M}"
    assert (
        f"Decision: Accepted\nNet weight: 30,100 kg\n\nWhy it was corrected at {at}: "
        "Stour Valley Grain, Sudbury wrote:\n> Tare of the wrong lorry\n"
    ) in body


def test_a_query_answer_or_standing_by_is_not_mailed(grower_mailed):
    load = a_load(a_site())
    for kind in (LoadEntry.Kind.QUERIED, LoadEntry.Kind.ANSWERED, LoadEntry.Kind.STOOD_BY):
        LoadEntry.objects.create(load=load, kind=kind, by="grower", words="Why?")
    assert Job.objects.filter(kind=KIND).count() == 1  # the recording's


def test_the_address_kept_on_the_account_page_is_the_one_mailed(grower_mailed, mail_server):
    grower_mailed.post(
        "/accounts/you/", {"email": "office@hollowfield.example", "intake_mail": "on"}
    )
    a_load(a_site())
    assert sent_mail(mail_server).recipients == ["office@hollowfield.example"]


def test_none_is_mailed_once_the_maker_turned_it_off(grower_mailed, mail_server):
    assert grower_mailed.post("/accounts/you/", {"email": ""}).status_code == 302
    assert Preferences.objects.get().intake_mail is False
    a_load(a_site())
    assert not Job.objects.filter(kind=KIND).exists() and not ResultMail.objects.exists()


def test_none_is_mailed_where_the_portal_knows_no_address_of_the_makers(grower, mail_server):
    assert get_user_model().objects.get(username="grower").email == ""  # signed in by name
    a_load(a_site())
    assert not Job.objects.filter(kind=KIND).exists() and not ResultMail.objects.exists()


def test_it_is_sent_a_while_after_the_recording_commits_and_never_for_one_undone(
    grower_mailed, django_capture_on_commit_callbacks, monkeypatch, settings
):
    settings.PORTAL_INTAKE_MAIL_WAIT_SECONDS = 45
    sent_to_workers: list[tuple[int, int]] = []
    queued = lambda job, countdown: sent_to_workers.append((*job, countdown))  # noqa: E731
    monkeypatch.setattr(notifying.result_mail, "apply_async", queued)
    with django_capture_on_commit_callbacks(execute=True):
        a_load(a_site())
        assert sent_to_workers == []
    assert sent_to_workers == [(mail_job().pk, 45)]
    site = a_site(code="another-site")
    with pytest.raises(RuntimeError), transaction.atomic():
        a_load(site, "T-2")
        raise RuntimeError("the clerk's upload failed on a later row")
    assert ResultMail.objects.count() == Job.objects.filter(kind=KIND).count() == 1


def test_a_mail_server_down_loses_nothing_and_the_mail_goes_once(grower_mailed, settings):
    server = MailServer()  # chosen, not yet started: nothing answers on its port
    settings.MAILERS = server.mailer()
    a_load(a_site())
    with pytest.raises(TryAgain):  # a worker sends the job again later
        run(mail_job())
    assert mail_job().state == Job.State.QUEUED
    assert "The mail server could not be reached" in mail_job().message
    server.start()
    try:
        assert run(mail_job()).state == Job.State.DONE
        assert run(mail_job()).state == Job.State.DONE  # its message delivered twice
        assert len(server.wait_for(1)) == 1
    finally:
        server.stop()
    assert len(server.received) == 1


def test_a_mail_marked_sent_is_not_sent_again_by_a_second_run(grower_mailed, mail_server):
    a_load(a_site())
    ResultMail.objects.update(sent="2026-09-03T10:20:00Z")  # a run cut short once it was sent
    assert run(mail_job()).state == Job.State.DONE
    assert mail_server.received == []


def test_an_address_the_mail_server_refuses_fails_the_job_in_words(grower_mailed, mail_server):
    mail_server.inbox.refusal = "550 5.1.1 No such user here"
    a_load(a_site())
    job = run(mail_job())
    assert job.state == Job.State.FAILED
    assert "The mail server refused the address grower@example.com: 550 5.1.1" in job.message


def test_a_failed_mail_is_retried_by_its_owner_or_by_staff(grower_mailed, mail_server):
    mail_server.inbox.refusal = "550 5.1.1 No such user here"
    a_load(a_site())
    job = run(mail_job())
    mail_server.inbox.refusal = ""
    assert actions.retry_as_staff(job)  # it kept no credentials, and needs none
    assert run(job).state == Job.State.DONE
    assert len(mail_server.wait_for(1)) == 1


@pytest.mark.django_db(transaction=True)  # migrations run as `migrate` runs them
def test_mails_made_before_they_were_gathered_keep_what_they_told(grower_mailed, mail_server):
    """Migration 0007: a mail of before is its entry's load's, queued when it was made; one
    sent told its entry, so the load's next mail tells only what changed since."""
    site = a_site()
    load = a_load(site)
    ResultMail.objects.all().delete()
    Job.objects.filter(kind=KIND).delete()
    executor = MigrationExecutor(connection)
    executor.migrate([("intake", "0006_entries_keep_their_specification")])
    try:
        before = executor.loader.project_state(
            [("intake", "0006_entries_keep_their_specification")]
        ).apps
        before.get_model("intake", "ResultMail").objects.create(
            entry_id=load.entries.get().pk, recipient="grower@example.com",
            sent="2026-09-03T10:20:00Z", message_id="<1@portal.example>",
        )  # fmt: skip
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    kept = ResultMail.objects.get()
    assert kept.load == load and kept.queued == kept.created
    assert kept.told_up_to == load.entries.get()
    corrected = figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=(), reasons=())
    loads.correct(load, corrected, by="intake", reason="Tare of the wrong lorry")
    body = sent_mail(mail_server).body("plain")
    assert "corrected the record" in body and "gathers" not in body  # the correction alone
