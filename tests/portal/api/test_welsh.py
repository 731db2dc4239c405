"""API tokens and the API in Welsh: the tokens page under /cy/ (its headings, button, errors
beside fields and messages); the API's error messages in the person's language, asked with
Accept-Language, their codes the same in every language; the sign-in reminder in Welsh to a
user who chose Welsh, and in Welsh and English, asking, to one who has not chosen."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.utils import timezone

from portal.accounts.models import LatestSignIn
from portal.api.models import Token
from portal.api.reminders import KIND, send_reminders
from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.accounts.helpers import signed_in
from tests.portal.api.builders import bearer, made_on_the_page, site_token
from tests.portal.intake.builders import a_clerk, a_site
from tests.portal.pages import page_language
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db

CHOOSING = "This e-mail is in Welsh and in English because you have not yet chosen a language."


def test_the_tokens_page_is_in_welsh_under_cy(grower):
    page = grower.get("/cy/accounts/you/tokens/")
    words = text(page)
    assert (page.status_code, page_language(page)) == (200, "cy")
    assert "<title>Eich tocynnau API" in page.content.decode()
    assert "Eich tocynnau API" in words and "Gwneud tocyn" in words
    assert "Nid oes tocyn wedi’i wneud eto." in words
    assert "Beth y caiff ei wneud" in words and "Darllen pasbortau’r busnes" in words
    assert "Gwneud y tocyn" in words
    assert "Make a token" not in words and "Your API tokens" not in words


def test_a_token_made_under_cy_is_shown_and_listed_in_welsh(grower):
    form = {"name": "Cofnodion fferm", "scopes": ["passports:read"], "days": 30}
    made = grower.post("/cy/accounts/you/tokens/", form)
    words = text(made)
    assert made.status_code == 201
    assert "Tocyn wedi’i wneud: Cofnodion fferm" in words and "Y tocyn" in words
    assert "Defnyddiwyd ddiwethaf" in words and "Byth" in words and "Dirymu" in words


def test_a_bad_token_form_under_cy_says_why_in_welsh(grower):
    refused = grower.post("/cy/accounts/you/tokens/", {"scopes": ["passports:read"], "days": 90})
    words = text(refused)
    assert refused.status_code == 400
    assert "Ni wnaed tocyn. Gwiriwch yr hyn sydd wedi’i farcio isod." in words
    assert "Rhowch enw i’r tocyn: at beth y mae." in words
    assert not Token.objects.exists()


def test_revoking_under_cy_says_so_in_welsh(grower):
    made_on_the_page(grower, "/cy/accounts/you/tokens/", name="Cynlluniwr")
    token = Token.objects.get()
    revoked = grower.post(f"/cy/accounts/you/tokens/{token.pk}/revoke", follow=True)
    assert "Mae’r tocyn Cynlluniwr wedi’i ddirymu: nid yw’n agor dim bellach." in text(revoked)


def test_a_site_s_tokens_page_is_in_welsh_under_cy(upstream_sandbox):
    site = a_clerk("intake", a_site())
    clerk = signed_in("intake")
    page = clerk.get(f"/cy/intake/sites/{site.code}/tokens/")
    words = text(page)
    assert (page.status_code, page_language(page)) == (200, "cy")
    assert f"Tocynnau API {site.name}" in words
    assert "Mae meddalwedd pont bwyso neu labordy’r safle yn anfon ei llwythi" in words
    assert "Darllen llwythi safle derbyn" in words and "Gwneud y tocyn" in words


def test_the_english_tokens_page_stays_english(grower):
    page = grower.get("/accounts/you/tokens/")
    assert page_language(page) == "en-GB" and "Make the token" in text(page)


# --- the API's errors -----------------------------------------------------------------------------


def error_of(response) -> dict:
    assert response["Content-Type"] == "application/json"
    return response.json()["error"]


def test_an_api_error_is_in_welsh_when_asked_with_the_same_code():
    welsh = Client().get("/api/v1/passports", headers={"accept-language": "cy"})
    english = Client().get("/api/v1/passports", headers={"accept-language": "en-GB,en;q=0.8"})
    unasked = Client().get("/api/v1/passports")
    assert welsh.status_code == english.status_code == unasked.status_code == 401
    assert error_of(welsh)["code"] == error_of(english)["code"] == "token_missing"
    assert error_of(welsh)["message"] == "Anfonwch docyn: Authorization: Bearer <token>."
    assert error_of(english)["message"] == "Send a token: Authorization: Bearer <token>."
    assert error_of(unasked) == error_of(english)
    assert "Accept-Language" in welsh["Vary"]


def test_an_unknown_api_address_is_not_found_in_welsh():
    welsh = Client().get("/api/v1/nothing", headers={"accept-language": "cy-GB,cy;q=0.9"})
    assert error_of(welsh)["code"] == "not_found"
    assert (
        error_of(welsh)["message"]
        == "Does dim byd yn y cyfeiriad hwn, neu nid yw’n eiddo i chi ei weld."
    )


def test_a_field_refused_by_the_api_says_why_in_welsh(upstream_sandbox):
    token = site_token(a_site())
    sent = {"headers": bearer(token) | {"accept-language": "cy"}}
    welsh = Client().post("/api/v1/intake/loads", b"[]", content_type="application/json", **sent)
    error = error_of(welsh)
    assert (welsh.status_code, error["code"]) == (400, "body_invalid")
    said = "Anfonwch gofnod (gwrthrych JSON o feysydd llwyth) neu restr ohonynt."
    assert error["message"] == said and error["fields"] == {"body": [said]}


def test_a_body_too_large_is_refused_in_welsh():
    body = b"[" + b" " * (1024 * 1024) + b"]"
    welsh = Client().post("/api/v1/intake/loads", body, content_type="application/json",
                          headers={"accept-language": "cy"})  # fmt: skip
    assert error_of(welsh)["code"] == "body_too_large"
    assert error_of(welsh)["message"].startswith("Mae’r corff yn fwy na 1,048,576 beit")


# --- the sign-in reminder -------------------------------------------------------------------------


def reminded(client: Client, mail_server):
    """The reminder the user of `client` (with a token made) is sent a week before their
    sign-in ends, as the hourly run and a worker send it."""
    made_on_the_page(client, scopes=["passports:read"])
    ends = LatestSignIn.objects.get(user__username="grower").expires
    with time_machine.travel(ends - timedelta(days=6)):
        assert send_reminders() == 1
        [job] = Job.objects.filter(kind=KIND)
        assert run(job).state == Job.State.DONE
    [mail] = mail_server.received
    return mail, timezone.localtime(ends)


def test_the_reminder_is_in_welsh_to_a_user_who_chose_welsh(upstream_sandbox, mail_server):
    client = signed_in("grower@example.com")
    client.post("/accounts/you/", {"email": "", "intake_mail": "on", "language": "cy"})
    mail, _ = reminded(client, mail_server)
    subject = " ".join(mail.message["Subject"].split())
    body = mail.body("plain")
    assert subject.startswith("Mewngofnodwch i’r porth Sicrwydd erbyn")
    assert "Sign in" not in subject and " / " not in subject
    assert "mae’r mewngofnodi hwnnw’n dod i ben am" in body
    assert f"{settings.PORTAL_URL}/cy/accounts/sign-in/" in body
    assert f"{settings.PORTAL_URL}/cy/accounts/you/" in body
    assert "Your API tokens" not in body and CHOOSING not in body
    assert Job.objects.get(kind=KIND).title.startswith("E-bost atoch: mewngofnodwch erbyn")


def test_the_reminder_is_in_both_asking_to_a_user_who_has_not_chosen(upstream_sandbox, mail_server):
    client = signed_in("grower@example.com")
    mail, ends = reminded(client, mail_server)
    subject = " ".join(mail.message["Subject"].split())
    welsh, english = mail.body("plain").replace("\r\n", "\n").split("\n—\n")
    assert subject.startswith("Mewngofnodwch i’r porth Sicrwydd erbyn")
    assert f" / Sign in to the Assurance portal by {ends.day} {ends:%B}" in subject
    assert "Mae eich tocynnau API ar y porth Sicrwydd" in welsh
    assert "Mae’r e-bost hwn yn Gymraeg ac yn Saesneg am nad ydych wedi dewis iaith eto." in welsh
    assert f"{settings.PORTAL_URL}/cy/accounts/sign-in/" in welsh
    assert "Your API tokens on the Assurance portal" in english and CHOOSING in english
    assert f"{settings.PORTAL_URL}/accounts/sign-in/" in english


def test_the_documentation_page_s_own_words_are_in_welsh_and_the_api_s_in_english():
    welsh = Client().get("/api/v1/docs", headers={"accept-language": "cy"})
    page = welsh.content.decode()
    assert page_language(welsh) == "cy"
    assert "Gwnewch docyn ar" in page and 'href="/cy/accounts/you/tokens/"' in page
    assert "Mae dogfennaeth yr API isod yn Saesneg." in page
    assert '<h1 class="api-docs-title" lang="en">Assurance portal API</h1>' in page
    assert '<div id="swagger-ui" lang="en"' in page
    english = Client().get("/api/v1/docs").content.decode()
    assert "Make a token on" in english and "Saesneg" not in english
    assert Client().get("/api/v1/openapi.json", headers={"accept-language": "cy"}).json() == (
        Client().get("/api/v1/openapi.json").json()
    )
