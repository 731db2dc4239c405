"""Sign-in, sign-out and Your account in Welsh, under /cy/: the page, its labels, the errors beside
its fields and its refusals (the tries left, the lockout, with how long in words) in Welsh, and
the frame's links leading on in Welsh."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client

from tests.portal.accounts.helpers import PASSWORDS, error_summary
from tests.portal.pages import page_language

pytestmark = pytest.mark.django_db

SIGN_IN = "/cy/accounts/sign-in/"
WRONG = "Nid yw’r enw defnyddiwr neu’r cyfrinair yn gywir."
STILL_WORKS = (
    "Os ydych wedi mewngofnodi yma o’r blaen, mae eich cyfrinair arferol yn dal i weithio."
)


def welsh_sign_in(
    client: Client, username: str, password: str | None = None, address: str | None = None
):
    """Posts the Welsh sign-in page's form (from `address`, through a trusted proxy)."""
    data = {"username": username, "password": password or PASSWORDS[username]}
    headers = {"X-Forwarded-For": address} if address else None
    return client.post(SIGN_IN, data, headers=headers)


@pytest.fixture
def forwarding(settings, upstream_sandbox) -> None:
    settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS = True
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]


def test_the_sign_in_page_is_in_welsh_with_its_links_under_cy(client: Client):
    response = client.get(SIGN_IN)
    page = response.content.decode()
    assert (response.status_code, page_language(response)) == (200, "cy")
    assert "<title>Mewngofnodi · Porth sicrwydd</title>" in page
    assert "<h1>Mewngofnodi</h1>" in page
    assert "Enw defnyddiwr neu gyfeiriad e-bost" in page and "Cyfrinair" in page
    assert '<button type="submit" class="button">Mewngofnodi</button>' in page
    assert '<a class="skip-link" href="#main">Neidio i’r prif gynnwys</a>' in page
    assert '<a class="brand" href="/cy/">' in page  # the frame's links lead on in Welsh
    assert f'<form method="post" action="{SIGN_IN}"' in page
    assert "Daw’r safonau a’r pasbortau o’r gwasanaeth Sicrwydd." in page
    assert "Skip to main content" not in page and "Username" not in page


def test_an_empty_form_is_refused_with_the_errors_beside_its_fields_in_welsh(client: Client):
    response = client.post(SIGN_IN, {"username": "", "password": ""})
    page = response.content.decode()
    assert response.status_code == 400
    assert "Rhowch eich enw defnyddiwr neu eich cyfeiriad e-bost." in page
    assert "Rhowch eich cyfrinair." in page


def test_a_wrong_password_is_refused_in_welsh(client: Client, upstream_sandbox, fresh_lockouts):
    response = welsh_sign_in(client, "grower", "not-the-password")
    assert response.status_code == 400
    assert error_summary(response) == f"{WRONG} Gwiriwch nhw a rhowch gynnig arall arni."


def test_the_tries_left_and_the_lockout_are_said_in_welsh(
    client: Client, forwarding, client_address: str
):
    answers = [welsh_sign_in(client, "grower", "not-the-password", client_address)
               for _ in range(4)]  # fmt: skip
    assert [a.status_code for a in answers] == [400, 400, 400, 429]
    locked = ("Mae mewngofnodi i’r cyfrif hwn o’ch cyfeiriad chi wedi’i gloi am tua 15 munud "
              f"ar ôl methu dro ar ôl tro. {STILL_WORKS}")  # fmt: skip
    assert [error_summary(a) for a in answers[1:]] == [
        f"{WRONG} Mae gennych un cynnig arall cyn y bydd mewngofnodi i’r cyfrif hwn o’ch "
        "cyfeiriad chi yn cael ei gloi am tua 15 munud.",
        f"{WRONG} {locked}",
        locked,
    ]
    with time_machine.travel(timedelta(minutes=13, seconds=30)):  # the last minutes, in words
        later = welsh_sign_in(client, "grower", "not-the-password", client_address)
    assert "wedi’i gloi am tua 2 funud ar ôl" in error_summary(later)


def test_signing_in_from_the_welsh_page_leads_to_the_welsh_home_page(
    client: Client, upstream_sandbox
):
    signed = welsh_sign_in(client, "grower")
    assert (signed.status_code, signed["Location"]) == (302, "/cy/")
    home = client.get("/cy/")
    assert "<h1>Croeso, grower</h1>" in home.content.decode()


def test_signing_out_from_a_welsh_page_says_so_in_welsh(client: Client, upstream_sandbox):
    welsh_sign_in(client, "grower")
    page = client.get("/cy/accounts/you/").content.decode()
    assert '<form method="post" action="/cy/accounts/sign-out/">' in page
    assert '<button type="submit" class="button button-quiet">Allgofnodi</button>' in page
    signed_out = client.post("/cy/accounts/sign-out/")
    assert signed_out["Location"] == SIGN_IN
    assert "Rydych wedi allgofnodi." in client.get(SIGN_IN).content.decode()


def test_your_account_is_in_welsh(client: Client, upstream_sandbox):
    welsh_sign_in(client, "grower")
    response = client.get("/cy/accounts/you/")
    page = response.content.decode()
    assert (response.status_code, page_language(response)) == (200, "cy")
    assert "<title>Eich cyfrif · Porth sicrwydd</title>" in page
    assert "<h1>Eich cyfrif</h1>" in page
    assert "Rydych wedi mewngofnodi fel <strong>grower</strong>, eich cyfrif Sicrwydd." in page
    assert "Eich cyfeiriad e-bost" in page
    assert "<legend>Canlyniadau derbyn</legend>" in page
    assert "Anfon ataf drwy e-bost ganlyniadau derbyn y pasbortau a wnes i" in page
    assert '<a href="/cy/accounts/you/tokens/">Tocynnau API</a>' in page
    assert '<button type="submit" class="button">Cadw</button>' in page


def test_a_bad_address_on_your_account_is_refused_beside_its_field_in_welsh(
    client: Client, upstream_sandbox
):
    welsh_sign_in(client, "grower")
    refused = client.post("/cy/accounts/you/", {"email": "not an address", "language": "cy"})
    page = refused.content.decode()
    assert refused.status_code == 400
    assert "Ni chafodd dim ei gadw. Gwiriwch yr hyn sydd wedi’i farcio isod." in page
    assert ("Rhowch gyfeiriad e-bost ar y ffurf enw@example.com, neu gadewch ef yn wag i "
            "ddefnyddio cyfeiriad eich cyfrif.") in page  # fmt: skip
