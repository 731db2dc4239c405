"""The page's language: English at today's addresses, Welsh under /cy/; the addresses printed
on paper (/p/, /V/) in the person's choice (the switch's cookie, else the browser's language);
the switch on every page, leading to the same page in the other language; a signed-in person's
choice kept on their account's page and used from their next sign-in."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from tests.portal.accounts.helpers import sign_in
from tests.portal.pages import page_language

pytestmark = pytest.mark.django_db


def switch(page) -> str:
    return re.search(r'<nav class="language-switch".*?</nav>', page.content.decode(), re.S)[0]


def test_english_stays_where_it_was_and_welsh_is_under_cy(client: Client, upstream_sandbox):
    english, welsh = client.get("/accounts/sign-in/"), client.get("/cy/accounts/sign-in/")
    assert (english.status_code, page_language(english)) == (200, "en-GB")
    assert (welsh.status_code, page_language(welsh)) == (200, "cy")
    assert welsh["Content-Language"] == "cy"
    assert client.get("/en-gb/accounts/sign-in/").status_code == 404


def test_the_switch_names_each_language_in_itself_and_marks_the_current_one(client: Client):
    nav = switch(client.get("/cy/accounts/sign-in/?next=/passports/"))
    assert '<span aria-current="true" lang="cy">Cymraeg</span>' in nav
    assert ('href="/language/en-gb?next=%2Fcy%2Faccounts%2Fsign-in%2F%3Fnext%3D%2Fpassports%2F" '
            'hreflang="en-GB" lang="en-GB"') in nav  # fmt: skip
    assert '<span class="visually-hidden">Change the language to English</span>' in nav
    assert 'aria-label="Iaith"' in nav
    english = switch(client.get("/accounts/sign-in/"))
    assert '<span class="visually-hidden">Newid yr iaith i’r Gymraeg</span>' in english
    assert 'aria-label="Language"' in english


def test_switching_leads_to_the_same_page_in_the_other_language(client: Client):
    to_welsh = client.get("/language/cy", {"next": "/passports/?crop=wheat&page=2"})
    assert to_welsh.status_code == 302
    assert to_welsh["Location"] == "/cy/passports/?crop=wheat&page=2"
    assert to_welsh.cookies[settings.LANGUAGE_COOKIE_NAME].value == "cy"
    back = client.get("/language/en-gb", {"next": "/cy/passports/?crop=wheat"})
    assert back["Location"] == "/passports/?crop=wheat"
    assert back.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en-gb"


def test_the_printed_addresses_stay_the_same_in_either_language(client: Client):
    assert client.get("/language/cy", {"next": "/p/ABCDE-FGHJK"})["Location"] == "/p/ABCDE-FGHJK"


@pytest.mark.parametrize("away", ["https://elsewhere.example/", "//elsewhere.example/x", ""])
def test_the_switch_leads_nowhere_but_this_portal(client: Client, away: str):
    assert client.get("/language/cy", {"next": away})["Location"] == "/cy/"


def test_a_language_it_does_not_have_is_not_found(client: Client):
    response = client.get("/language/fr", {"next": "/"})
    assert response.status_code == 404
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


def test_the_printed_addresses_follow_the_switch_then_the_browser(client: Client):
    assert page_language(client.get("/p/")) == "en-GB"
    assert (
        page_language(client.get("/p/", headers={"accept-language": "cy-GB,cy;q=0.9,en;q=0.5"}))
        == "cy"
    )
    client.get("/language/cy", {"next": "/p/"})
    page = client.get("/p/", headers={"accept-language": "en-GB"})
    assert page_language(page) == "cy"
    assert {"Accept-Language", "Cookie"} <= {v.strip() for v in page["Vary"].split(",")}


def test_a_page_of_one_language_does_not_vary_by_the_browser(client: Client):
    page = client.get("/accounts/sign-in/", headers={"accept-language": "cy"})
    assert page_language(page) == "en-GB"
    assert "Accept-Language" not in page.get("Vary", "")


def test_a_choice_saved_on_the_account_is_kept_and_used_at_the_next_sign_in(
    client: Client, upstream_sandbox
):
    assert sign_in(client, "grower").status_code == 302
    saved = client.post("/accounts/you/", {"email": "", "intake_mail": "on", "language": "cy"})
    assert saved["Location"] == "/cy/accounts/you/"
    assert saved.cookies[settings.LANGUAGE_COOKIE_NAME].value == "cy"
    page = client.get("/cy/accounts/you/")
    assert "Mae eich gosodiadau wedi’u cadw." in page.content.decode()
    client.post("/accounts/sign-out/")

    fresh = Client()
    signed = sign_in(fresh, "grower", next_path="/passports/")
    assert signed["Location"] == "/cy/passports/"
    assert signed.cookies[settings.LANGUAGE_COOKIE_NAME].value == "cy"


def test_until_a_choice_is_saved_the_account_page_offers_the_pages_language(
    client: Client, upstream_sandbox
):
    assert sign_in(client, "grower").status_code == 302
    page = client.get("/cy/accounts/you/").content.decode()
    assert re.search(r'<input type="radio" name="language" value="cy"[^>]* checked', page)
    assert sign_in(Client(), "grower", next_path="/passports/")["Location"] == "/passports/"


def test_a_language_it_does_not_have_is_refused_beside_its_field(client: Client, upstream_sandbox):
    assert sign_in(client, "grower").status_code == 302
    refused = client.post("/accounts/you/", {"email": "", "language": "fr"})
    assert refused.status_code == 400
    assert "Choose English or Cymraeg." in refused.content.decode()


def test_welsh_dates_are_written_in_welsh_words_and_times_in_24_hours():
    from datetime import date, datetime

    from django.utils import translation
    from django.utils.formats import date_format

    with translation.override("cy"):
        assert date_format(date(2026, 7, 9)) == "9 Gorffennaf 2026"
        assert date_format(datetime(2026, 7, 9, 14, 30), "DATETIME_FORMAT") == (
            "9 Gorffennaf 2026, 14:30"
        )


def test_mail_to_one_who_has_not_chosen_is_in_both_languages_and_asks(
    client: Client, upstream_sandbox
):
    from django.contrib.auth import get_user_model

    from portal.accounts import language

    assert sign_in(client, "grower").status_code == 302
    grower = get_user_model().objects.get(username="grower")
    assert language.mail_languages(grower) == ["cy", "en-gb"]
    body = language.mail_body(["cy", "en-gb"], "mail/choose_language.txt", {})
    welsh, english = body.split("\n\n—\n\n")
    assert "/cy/accounts/you/" in welsh and "Dewiswch" in welsh
    assert "/accounts/you/" in english and "/cy/" not in english
    assert "Choose the language" in english
    client.post("/accounts/you/", {"email": "", "language": "en-gb"})
    assert language.mail_languages(grower) == ["en-gb"]
    assert language.mail_body(["en-gb"], "mail/choose_language.txt", {}).strip() == ""
