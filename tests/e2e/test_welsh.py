"""Every page of the portal in Welsh, as each kind of person sees it (anonymous, grower, clerk,
staff), in Chromium at 360 px: under /cy/ (the addresses printed on paper, /p/ and /V/, with
Welsh chosen by the language switch), the page says `lang="cy"`, no sentence of ours is left in
English, nothing is hidden sideways nor a table's word broken (Welsh words are longer), and
axe-core finds no serious or critical fault.

A sentence is "left in English" when the Welsh page shows a line that the English page shows
too and that reads as English (it has one of English's commonest words), or that holds a
sentence of the English catalogue. What comes from the Assurance service (marked `lang="en"`),
and what the test itself typed in English (a clerk's reason, a query), are not ours.

The data is made once (a clerk's upload from the Welsh page, as its report is written once, in
the language of the page it was sent from), and each page visited in English and in Welsh by the
first test to run; each test reads what its page found."""

from __future__ import annotations

import re
from io import StringIO

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import Browser, Page

from tests.e2e.conftest import GROWER, PHONE, CspWatch, axe, sign_in
from tests.e2e.every_page import CLERK, MEASURE, PAGES, STAFF, made_for_every_page

pytestmark = pytest.mark.browser

ONE_ADDRESS = ("/p/", "/V/")
# English's commonest words, but not those that are Welsh words too ("a", "at", "is", "an").
ENGLISH_WORDS = re.compile(
    r"\b(the|of|to|are|and|or|your|you|for|with|this|that|in|on|not|by|has|have|was|"
    r"be|it|its|from|no|yet|here|there|what|which|when|will|can|cannot|been)\b",
    re.IGNORECASE,
)
# What the test data typed in English: a person's words, not the portal's.
TYPED = ("The weighbridge's ticket", "Our own test of the sample gave 77.1 kg/hl")
# The page's text, without what is marked as in another language (the service's words, the
# language switch's other language).
TEXT = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll("[lang]:not([lang='cy']), script, style, template").forEach(
    (e) => e.remove());
  document.body.append(copy);
  copy.style.position = "absolute";
  const text = copy.innerText;
  copy.remove();
  return text;
}"""


def _catalogue_sentences() -> list[str]:
    """The English catalogue's sentences of four words or more, placeholders and markup cut."""
    found = set()
    for entry in polib.pofile(str(settings.BASE_DIR / "locale/cy/LC_MESSAGES/django.po")):
        for english in (entry.msgid, entry.msgid_plural):
            for piece in re.split(r"%\(\w+\)[sd]|%[sd]|<[^>]+>|\{\w*\}", english or ""):
                piece = " ".join(piece.split()).strip(" .,:;")
                if len(piece.split()) >= 4:
                    found.add(piece)
    return sorted(found)


def _lines(text: str) -> set[str]:
    return {" ".join(line.split()) for line in text.splitlines() if line.strip()}


def _left_in_english(english: str, welsh: str, sentences: list[str]) -> list[str]:
    same = _lines(english) & _lines(welsh)
    left = [line for line in same
            if len(line.split()) >= 3 and ENGLISH_WORDS.search(line)
            and not any(typed in line for typed in TYPED)]  # fmt: skip
    welsh_text = " ".join(welsh.split())
    left += [sentence for sentence in sentences if sentence in welsh_text
             and not any(typed in sentence for typed in TYPED)]  # fmt: skip
    return sorted(set(left))


def _in_welsh(address: str) -> str:
    return address if address.startswith(ONE_ADDRESS) else "/cy" + address


_found: dict[str, dict] = {}


def _visit(browser: Browser, portal_url: str, csp: CspWatch) -> None:
    made = made_for_every_page(language_prefix="/cy")
    sentences = _catalogue_sentences()
    context = csp.watch(browser.new_context(**PHONE))
    page = context.new_page()
    for who in (None, GROWER, CLERK, STAFF):
        page.context.clear_cookies()
        if who:
            sign_in(page, portal_url, *who)
        for name, (opener, address) in PAGES.items():
            if opener != who:
                continue
            path = address(made)
            _to_language(page, portal_url, "en-gb")
            page.goto(portal_url + path)
            english = page.evaluate(TEXT)
            _to_language(page, portal_url, "cy")
            page.goto(portal_url + _in_welsh(path))
            serious = [v for v in axe(page) if v["impact"] in ("serious", "critical")]
            faults = [f"{v['id']} ({v['impact']}): {v['help']} at {v['targets']}" for v in serious]
            _found[name] = {
                "lang": page.evaluate("() => document.documentElement.lang"),
                "left": _left_in_english(english, page.evaluate(TEXT), sentences),
                "sideways": page.evaluate(MEASURE),
                "axe": faults,
            }
    context.close()


def _to_language(page: Page, portal_url: str, language: str) -> None:
    """The language chosen as the switch chooses it: what /p/ and /V/ are written in."""
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language,
                               "url": portal_url}])  # fmt: skip


@pytest.fixture
def found(browser: Browser, portal_url: str, csp: CspWatch) -> dict:
    if not _found:
        call_command("grant_staff", STAFF[0], stdout=StringIO())
        _visit(browser, portal_url, csp)
    return _found


@pytest.mark.parametrize("page_name", PAGES)
def test_every_page_is_in_welsh(found, page_name: str):
    seen = found[page_name]
    assert seen["lang"] == "cy"
    assert seen["left"] == [], f"{page_name}: left in English:\n" + "\n".join(seen["left"])
    assert seen["sideways"] == [], f"{page_name} in Welsh at 360 px:\n" + "\n".join(
        seen["sideways"]
    )
    assert seen["axe"] == [], f"{page_name} in Welsh:\n" + "\n".join(seen["axe"])
