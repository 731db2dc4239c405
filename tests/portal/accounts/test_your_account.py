"""`/accounts/you/`: the signed-in user's own settings, the address for replies (and for the
portal's mail to them) and whether they are mailed the intake results of the passports they
made; one row a user, made when they first save; a bad address said beside its field, nothing
saved. The passport mail form offers the address kept here."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from portal.accounts import preferences
from portal.accounts.models import Preferences
from portal.passports.models import Mailing
from tests.portal.accounts.helpers import sign_in
from tests.portal.pages import navigation
from tests.portal.passports.helpers import text
from tests.portal.passports.made import made_with_the_form
from tests.portal.passports.test_mail import HAULIER, reply_to_given

pytestmark = pytest.mark.django_db


def grower_user():
    return get_user_model().objects.get(username="grower")


def field(page, name: str) -> str:
    """The form's input named `name`, as the page writes it."""
    return re.search(rf'<input [^>]*name="{name}"[^>]*>', page.content.decode())[0]


def saved(client: Client, **fields: str):
    return client.post("/accounts/you/", fields)


@pytest.fixture
def by_address(client: Client, upstream_sandbox) -> Client:
    """The grower signed in with their e-mail address: the portal knows it as their account's."""
    assert sign_in(client, "grower@example.com").status_code == 302
    return client


def test_it_needs_a_sign_in(client: Client):
    response = client.get("/accounts/you/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/sign-in/?next=/accounts/you/"
    assert client.post("/accounts/you/", {"email": "a@example.com"}).status_code == 302
    assert not Preferences.objects.exists()


def test_it_is_linked_from_the_menu(grower):
    assert '<a href="/accounts/you/">Your account</a>' in navigation(
        grower.get("/").content.decode()
    )
    nav = navigation(grower.get("/accounts/you/").content.decode())
    assert '<a href="/accounts/you/" aria-current="page">Your account</a>' in nav


def test_until_saved_it_offers_the_accounts_address_and_the_mail_on(by_address):
    page = by_address.get("/accounts/you/")
    assert page.status_code == 200
    words = text(page)
    assert "You are signed in as grower" in words
    assert "Leave it empty to use your account's address, grower@example.com." in words
    assert 'value="' not in field(page, "email")
    assert "checked" in field(page, "intake_mail")
    assert not Preferences.objects.exists()


def test_someone_whose_address_the_portal_does_not_know_is_told(grower):
    assert "Your account has no address the portal knows of." in text(grower.get("/accounts/you/"))


def test_what_is_saved_is_kept_in_one_row_and_shown_again(grower):
    response = saved(grower, email="  office@hollowfield.example ", intake_mail="on")
    assert response.status_code == 302 and response["Location"] == "/accounts/you/"
    page = grower.get("/accounts/you/")
    assert "Your settings are saved." in text(page)
    assert 'value="office@hollowfield.example"' in field(page, "email")
    assert "checked" in field(page, "intake_mail")
    assert saved(grower, email="farm@hollowfield.example").status_code == 302  # unticked
    [kept] = Preferences.objects.all()
    assert (kept.user, kept.email, kept.intake_mail) == (
        grower_user(),
        "farm@hollowfield.example",
        False,
    )
    assert "checked" not in field(grower.get("/accounts/you/"), "intake_mail")


def test_an_address_left_empty_is_the_accounts(by_address):
    assert saved(by_address, email="", intake_mail="on").status_code == 302
    user = get_user_model().objects.get(username="grower")
    assert preferences.kept_address(user) == ""
    assert preferences.intake_mail_address(user) == "grower@example.com"


@pytest.mark.parametrize(
    "typed",
    [
        "not an address",
        "grower@",
        "grower@example.com, other@example.com",
        "grower@example.com\r\nBcc: everyone@example.com",
        "a" * 250 + "@example.com",
    ],
)
def test_a_bad_address_is_said_beside_it_and_nothing_is_saved(grower, typed):
    saved(grower, email="kept@hollowfield.example", intake_mail="on")
    response = saved(grower, email=typed)
    assert response.status_code == 400
    html = response.content.decode()
    error = re.search(r'<ul class="errorlist" id="id_email_error">(.*?)</ul>', html, re.S)[1]
    assert re.search(r"Enter an e-mail address in the form name@example.com|at most 254", error)
    assert 'aria-invalid="true"' in field(response, "email")
    assert "Nothing was saved. Check what is marked below." in text(response)
    assert '<a href="#id_email">Your e-mail address:' in html
    assert "checked" not in field(response, "intake_mail")  # as sent, to put right
    [kept] = Preferences.objects.all()
    assert (kept.email, kept.intake_mail) == ("kept@hollowfield.example", True)


def test_each_user_keeps_their_own(grower, partner):
    saved(grower, email="grower-office@example.com", intake_mail="on")
    saved(partner, email="partner-office@example.com")
    assert 'value="grower-office@example.com"' in field(grower.get("/accounts/you/"), "email")
    assert 'value="partner-office@example.com"' in field(partner.get("/accounts/you/"), "email")
    assert Preferences.objects.count() == 2


def test_the_mail_form_offers_the_address_kept_here_before_the_last_one_given(grower):
    code = made_with_the_form(grower)
    assert reply_to_given(grower.post("/passports/send", {"code": [code]})) is None
    Mailing.objects.create(key=uuid.uuid4(), sender=grower_user(), recipient=HAULIER,
                           sender_email="last-time@hollowfield.example")  # fmt: skip
    assert reply_to_given(grower.post("/passports/send", {"code": [code]})) == (
        "last-time@hollowfield.example"
    )
    saved(grower, email="office@hollowfield.example", intake_mail="on")
    assert reply_to_given(grower.post("/passports/send", {"code": [code]})) == (
        "office@hollowfield.example"
    )


@pytest.mark.parametrize("method", ["put", "delete", "patch"])
def test_it_answers_only_get_and_post(grower, method):
    assert getattr(grower, method)("/accounts/you/").status_code == 405
