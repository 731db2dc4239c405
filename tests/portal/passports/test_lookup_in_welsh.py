"""The public pages in Welsh (issue 40): the look-up (`/p/`), a passport's verdict, the gate
check and its CSV file, a signed code's page and the offline checker keep one address, written
in the person's choice (the language switch's cookie), else their browser's language
(Accept-Language), else in English; against the live sandbox."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.test import Client

from tests.portal.pages import page_language
from tests.portal.passports.helpers import suspended_after_it_was_made, text

pytestmark = pytest.mark.django_db

DEMO = "7KXM4-QHT2W"
UNKNOWN = "ABCDE-FGHJK"


@pytest.fixture
def welsh_visitor(visitor: Client) -> Client:
    """Someone without an account who chose Cymraeg with the language switch on the look-up."""
    chosen = visitor.get("/language/cy", {"next": "/p/"})
    assert chosen.status_code == 302 and chosen["Location"] == "/p/"
    return visitor


# --- the look-up and its verdict ------------------------------------------------------------------


def test_the_look_up_is_in_welsh_once_cymraeg_is_chosen(welsh_visitor):
    response = welsh_visitor.get("/p/")
    assert response.status_code == 200
    assert page_language(response) == "cy"
    page = text(response)
    assert "Gwirio pasbort · Porth sicrwydd" in page  # the title
    assert "Teipiwch y cod byr sydd wedi’i argraffu ar y pasbort cnwd" in page
    assert "Cod byr 8 i 12 o lythrennau a rhifau" in page
    assert '<button type="submit">Gwirio</button>' in response.content.decode()
    assert "Gwirio llawer o basbortau ar unwaith" in page
    assert "Check a passport" not in page and "short code" not in page
    assert "Cookie" in response["Vary"] and "Accept-Language" in response["Vary"]


def test_the_look_up_is_in_welsh_for_a_browser_that_asks_for_it(visitor):
    response = visitor.get("/p/", HTTP_ACCEPT_LANGUAGE="cy,en;q=0.5")
    assert page_language(response) == "cy"
    assert "Teipiwch y cod byr" in text(response)


def test_the_look_up_is_in_english_otherwise(visitor):
    for asked in ({}, {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.8"}, {"HTTP_ACCEPT_LANGUAGE": "fr"}):
        response = visitor.get("/p/", **asked)
        assert page_language(response) == "en-GB"
        assert "Type the short code printed on the crop passport" in text(response)


def test_english_chosen_wins_over_a_browser_that_asks_for_welsh(visitor):
    visitor.get("/language/en-gb", {"next": "/p/"})
    response = visitor.get("/p/", HTTP_ACCEPT_LANGUAGE="cy")
    assert page_language(response) == "en-GB"


def test_a_valid_passports_verdict_is_in_welsh(welsh_visitor):
    response = welsh_visitor.get(f"/p/{DEMO}")
    assert response.status_code == 200
    page = text(response)
    assert f"Dilys: {DEMO} · Porth sicrwydd" in page
    assert f"Pasbort {DEMO}" in page
    assert "✓ Dilys" in page
    assert "Mae’r honiad sicrwydd yn ddilys nawr." in page
    assert "Gwiriwyd gan y porth newydd nawr; cofnodwyd yr honiad ar" in page
    assert "Gwirio pasbort arall" in page
    assert "The assurance claim" not in page and "Checked by the portal" not in page


def test_a_suspended_passports_verdict_is_in_welsh(welsh_visitor, upstream_sandbox):
    with suspended_after_it_was_made(upstream_sandbox) as suspended:
        page = text(welsh_visitor.get(f"/p/{suspended}"))
    assert "✗ Annilys" in page
    assert "Nid yw’r honiad sicrwydd yn ddilys nawr." in page


def test_an_unknown_code_and_a_code_left_out_are_answered_in_welsh(welsh_visitor):
    unknown = welsh_visitor.get(f"/p/{UNKNOWN}")
    assert unknown.status_code == 404
    assert "Does dim pasbort â’r cod byr hwnnw." in text(unknown)
    left_out = welsh_visitor.get("/p/", {"code": ""})
    assert left_out.status_code == 400
    html = left_out.content.decode()
    assert '<p class="error" id="id_code_error">Rhowch god byr y pasbort.</p>' in html


def test_too_many_look_ups_are_refused_in_welsh(welsh_visitor, settings, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    welsh_visitor.get(f"/p/{DEMO}")
    refused = welsh_visitor.get(f"/p/{DEMO}")
    assert refused.status_code == 429
    page = text(refused)
    assert "Gormod o chwiliadau" in page
    assert re.search(r"Rhowch gynnig arall arni ymhen \d+ eiliad\.", page)


# --- the gate check -------------------------------------------------------------------------------


def test_the_gate_checks_page_and_table_are_in_welsh(welsh_visitor):
    form = welsh_visitor.get("/p/check")
    assert page_language(form) == "cy"
    assert "Gwirio llwythi diwrnod" in text(form)
    assert '<script src="/cy/jsi18n/" defer>' in form.content.decode()  # the scanner's words

    sent = welsh_visitor.post("/p/check", {"codes": f"{DEMO}\n{UNKNOWN}\nnot-a-code\n{DEMO}"})
    assert sent.status_code == 303
    page = text(welsh_visitor.get(sent["Location"]))
    assert "Llwythi a wiriwyd" in page
    assert "Dyfarniad" in page and "Nodyn" in page
    assert "Wedi’i restru ddwywaith." in page
    assert "Does dim pasbort â’r cod byr hwn." in page
    assert "Nid yw’n god byr" in page
    assert "3 cod wedi’u rhestru, yn y drefn a roddwyd" in page
    assert "Lawrlwytho’r tabl fel CSV" in page
    assert "Listed twice" not in page and "No passport" not in page


def test_the_gate_checks_csv_has_welsh_headings_and_neutral_values(welsh_visitor):
    sent = welsh_visitor.post("/p/check", {"codes": f"{DEMO}\n{UNKNOWN}\n{DEMO}"})
    welsh = welsh_visitor.get(f"{sent['Location']}.csv").content.decode().removeprefix("\ufeff")
    table = list(csv.reader(io.StringIO(welsh)))
    # The headings of our own columns (the passport's fields are labelled as the passport is).
    assert table[0][1:3] == ["Dyfarniad", "Nodyn"]
    assert table[0][-1] == "Gwiriwyd"
    # The cells: values to sort and match, in the same words whatever the language.
    assert [row[1:3] for row in table[1:]] == [
        ["Valid", "Listed twice."], ["No passport", "No passport has this short code."]
    ]  # fmt: skip

    welsh_visitor.get("/language/en-gb", {"next": "/p/"})
    english = welsh_visitor.get(f"{sent['Location']}.csv").content.decode().removeprefix("\ufeff")
    in_english = list(csv.reader(io.StringIO(english)))
    assert in_english[0][1:3] == ["Verdict", "Note"] and in_english[0][-1] == "Checked"
    assert in_english[1:] == table[1:]


def test_a_list_too_long_is_refused_in_welsh(welsh_visitor, settings):
    settings.PORTAL_INTAKE_LIMIT = 2
    refused = welsh_visitor.post("/p/check", {"codes": f"{DEMO}\n{UNKNOWN}\nBCDEF-GHJKM"})
    assert refused.status_code == 400
    assert (
        "Dyna 3 cod: dim ond 2 y gellir eu gwirio ar y tro. Gwiriwch y 2 cyntaf, yna’r gweddill."
        in text(refused)
    )


# --- a signed code's page and the offline checker -------------------------------------------------


def test_a_signed_code_that_cannot_be_read_is_refused_in_welsh(welsh_visitor):
    response = welsh_visitor.get("/V/NOTACODE")
    assert response.status_code == 400
    page = text(response)
    assert "Nid yw’n god pasbort · Porth sicrwydd" in page
    assert "Nid yw’r cyfeiriad hwn yn cynnwys cod pasbort wedi’i lofnodi" in page
    assert '<script src="/cy/jsi18n/" defer>' in response.content.decode()


def test_the_checker_its_manifest_and_its_words_are_in_welsh(welsh_visitor):
    page = welsh_visitor.get("/V/")
    assert page_language(page) == "cy"
    assert "Gwirio cod pasbort wedi’i lofnodi" in text(page)
    manifest = json.loads(welsh_visitor.get("/V/manifest.webmanifest").content)
    assert manifest["short_name"] == "Gwiriwr pasbortau" and manifest["lang"] == "cy"
    words = Client().get("/cy/jsi18n/").content.decode()
    assert "Nid yw\\u2019n go iawn" in words or "Nid yw’n go iawn" in words
    assert "Gorffennaf" in words


def test_the_checkers_worker_keeps_the_shell_and_the_words_in_each_language(client: Client):
    worker = client.get("/V/worker.js").content.decode()
    config = json.loads(re.match(r"self\.CHECKER = (.*?);\n\n", worker, re.S)[1])
    assert config["languages"] == ["en-GB", "cy"]
    kept = {entry["url"] for entry in config["kept"]}
    assert {"/jsi18n/", "/cy/jsi18n/", "/static/js/words.js"} <= kept
