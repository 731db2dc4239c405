"""Every page of the portal (public, the grower's, a clerk's, staff's) with data on it, for the
browser tests that go through them all (test_layout.py at three widths, test_welsh.py in Welsh):
who opens each page and its address, the data they show (`made_for_every_page`), and what
measures a page's content wider than its frame (`MEASURE`)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from portal.accounts.session import portal_user
from portal.intake import loads, uploads
from portal.intake.models import Load
from portal.jobs.models import Job
from portal.passports.models import Passport
from tests.e2e.conftest import GROWER
from tests.jobs import run_queued
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import a_load, a_site, figures, queried, tickets_file, upload_row
from tests.portal.passports.helpers import signed_address
from tests.portal.passports.made import filled, made_with_the_form
from tests.portal.standards.helpers import CROPS

CLERK = ("intake", "intake-demo-pass")
STAFF = ("partner", "partner-demo-pass")


@dataclass(frozen=True)
class Made:
    """What the pages show: a passport with a load at intake, corrected and queried, a batch,
    a finished job of each kind a person watches, a day's codes checked."""

    code: str
    load: Load
    site: str
    batch: str
    batch_codes: str
    pdf_job: int
    upload_job: int
    check: str

    @property
    def signed(self) -> str:
        return signed_address(self.code).split("/V/", 1)[1]


# Each page: who opens it, and its address with the data made. Not Django's admin, whose lists
# scroll sideways in their frame by Django's own design.
PAGES: dict[str, tuple[tuple[str, str] | None, Callable[[Made], str]]] = {
    "sign-in": (None, lambda made: "/accounts/sign-in/"),
    "look-up": (None, lambda made: "/p/"),
    "a passport looked up": (None, lambda made: f"/p/{made.code}"),
    "a code not found": (None, lambda made: "/p/ABCDE-FGHJK"),
    "the gate check": (None, lambda made: "/p/check"),
    "codes checked": (None, lambda made: f"/p/check/{made.check}"),
    "codes no longer kept": (None, lambda made: "/p/check/no-longer-kept"),
    "the offline checker": (None, lambda made: "/V/"),
    "a signed code": (None, lambda made: f"/V/{made.signed}"),
    "a page not found": (None, lambda made: "/no-such-page/"),
    "an address too long": (None, lambda made: "/address-too-long/"),
    "home": (GROWER, lambda made: "/"),
    "your account": (GROWER, lambda made: "/accounts/you/"),
    "standards": (GROWER, lambda made: "/standards/"),
    "a scheme": (GROWER, lambda made: f"/standards/{CROPS}/"),
    "a scheme's preview": (GROWER, lambda made: f"/standards/preview/{CROPS}/"),
    "a section": (GROWER, lambda made: f"/standards/{CROPS}/CR/ST/"),
    "a standard point": (GROWER, lambda made: f"/standards/{CROPS}/points/CR.ST.3/"),
    "a search": (GROWER, lambda made: f"/standards/{CROPS}/search/?q=store"),
    "what has changed": (GROWER, lambda made: f"/standards/{CROPS}/changes/"),
    "your jobs": (GROWER, lambda made: "/jobs/"),
    "a finished job": (GROWER, lambda made: f"/jobs/{made.pdf_job}/"),
    "the business's passports": (GROWER, lambda made: "/passports/"),
    "create a passport": (GROWER, lambda made: "/passports/new"),
    "a finished batch": (GROWER, lambda made: made.batch),
    "a batch's signed codes": (GROWER, lambda made: made.batch_codes),
    "a passport with its load at intake": (GROWER, lambda made: f"/passports/{made.code}/"),
    "send passports by e-mail": (GROWER, lambda made: f"/passports/send?codes={made.code}"),
    "query a result": (GROWER, lambda made: f"/intake/loads/{made.load.pk}/query"),
    "intake, for one who is not a clerk": (GROWER, lambda made: "/intake/"),
    "intake": (CLERK, lambda made: "/intake/"),
    "record a load by its code": (CLERK, lambda made: "/intake/record"),
    "a site's loads": (CLERK, lambda made: f"/intake/sites/{made.site}/"),
    "record a load": (CLERK, lambda made: f"/intake/sites/{made.site}/record?code={made.code}"),
    "a load corrected and queried": (CLERK, lambda made: f"/intake/loads/{made.load.pk}/"),
    "correct a load": (CLERK, lambda made: f"/intake/loads/{made.load.pk}/correct"),
    "answer a query": (CLERK, lambda made: f"/intake/loads/{made.load.pk}/answer"),
    "upload a day's tickets": (CLERK, lambda made: f"/intake/sites/{made.site}/upload"),
    "an upload's job": (CLERK, lambda made: f"/jobs/{made.upload_job}/"),
    "codes checked by a clerk": (CLERK, lambda made: f"/p/check/{made.check}"),
    "the staff dashboard": (STAFF, lambda made: "/staff/"),
}

# What the page measures: the document wider than the window; a box whose content is wider
# than it (scrolled, cut or spilling), form fields and boxes hidden from sight aside; a word of
# a table's cell whose letters are on more than one line.
MEASURE = """() => {
  const problems = [];
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
    + (e.classList.length ? "." + [...e.classList].join(".") : "");
  const root = document.documentElement;
  if (root.scrollWidth > innerWidth) {
    problems.push(`the page is ${root.scrollWidth} px wide in a window of ${innerWidth}`);
  }
  // Out of sight on purpose: clipped to nothing (a table's headings on a phone, words for
  // screen readers), closed, or not shown.
  const clipped = (e) => getComputedStyle(e).clipPath !== "none";
  const unseen = (e) => !e.checkVisibility() || [e, ...ancestors(e)].some(clipped);
  const ancestors = function* (e) {
    for (let a = e.parentElement; a; a = a.parentElement) yield a;
  };
  for (const box of document.querySelectorAll("body *")) {
    const field = box.matches("input, select, textarea, option, svg *");
    if (field || box.clientWidth < 2 || unseen(box)) continue;
    if (box.scrollWidth > box.clientWidth + 1) {
      problems.push(`${name(box)} is ${box.scrollWidth} px wide inside, ${box.clientWidth} px out`);
    }
  }
  for (const cell of document.querySelectorAll("td, th")) {
    if (unseen(cell)) continue;
    const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      for (const word of text.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(text, word.index);
        range.setEnd(text, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.bottom)));
        if (lines.size > 1) problems.push(`${name(cell)} breaks "${word[0]}" over two lines`);
      }
    }
  }
  return problems;
}"""


def made_for_every_page(language_prefix: str = "") -> Made:
    """The data every page shows; the upload (whose report a job writes once, in the language
    of the page it was sent from) sent from the pages under `language_prefix` ("/cy")."""
    grower = signed_in("grower")
    code = made_with_the_form(grower)  # its PDF fetched by a job
    pdf_job = run_queued("passport-pdf")
    site = a_site()
    site.clerks.add(portal_user(CLERK[0]))
    load = a_load(site, passport=Passport.objects.get(short_code=code))
    loads.correct(load, figures(gross_kg=44_020), by=CLERK[0], reason="The weighbridge's ticket")
    queried(load, "Our own test of the sample gave 77.1 kg/hl, above the specification.")
    batch = grower.post("/passports/new", filled(grower, loads="3", crop_type="Barley"))
    run_queued("passport-batch")
    [batch_codes] = re.findall(r'href="(/passports/batch/[0-9a-f-]+/codes)"',
                               grower.get(batch["Location"]).content.decode())  # fmt: skip
    uploaded = _uploaded(site.code, code, language_prefix)
    return Made(
        code=code, load=load, site=site.code, batch=batch["Location"], batch_codes=batch_codes,
        pdf_job=pdf_job.pk, upload_job=uploaded.pk, check=_checked(code),
    )  # fmt: skip


def _uploaded(site: str, code: str, language_prefix: str) -> Job:
    """A day's tickets uploaded by the clerk, one of them refused, its job run."""
    tickets = tickets_file([upload_row(code, "T-2"), upload_row(code, "T-3", moisture="300")])
    file = SimpleUploadedFile("monday.csv", tickets)
    response = signed_in(CLERK[0]).post(
        f"{language_prefix}/intake/sites/{site}/upload", {"key": str(uuid.uuid4()), "file": file}
    )
    assert response.status_code == 303, response.content.decode()[:2000]
    return run_queued(uploads.KIND)


def _checked(code: str) -> str:
    response = Client().post("/p/check", {"codes": f"{code}\nABCDE-FGHJK\n7KXM4-QHT2W"})
    return response["Location"].rsplit("/", 1)[1]
