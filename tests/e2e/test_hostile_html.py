"""Hostile HTML in the Assurance service's standards reaches the browser harmless.

A scheme of hostile content is written straight into the live sandbox's SQLite database: its
HTML fields carry scripts, event handlers, `javascript:` links, SVG, frames, styles and a
mutation-XSS payload, and its plain-text fields (names, questions, answers) carry markup that
the templates must escape. Every page that shows it is then opened in Chromium: no payload may
run (`window.__pwned` stays undefined, no dialog opens, the CSP watch hears nothing), and none
may reach the DOM as an element or attribute that could run or load something.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import count

import pytest
from django.utils.safestring import mark_safe
from playwright.sync_api import Page, expect

from portal.standards import points
from tests.e2e.conftest import CspWatch, assert_accessible

pytestmark = pytest.mark.browser

# Each payload sets window.__pwned to its own number if it ever runs.
PAYLOADS = {
    1: "<script>window.__pwned=1</script>",
    2: '<img src=x onerror="window.__pwned=2">',
    3: '<a href="javascript:window.__pwned=3">click me</a>',
    4: '<svg onload="window.__pwned=4"><script>window.__pwned=5</script></svg>',
    6: '<iframe src="javascript:parent.__pwned=6"></iframe>',
    7: '<div style="background:url(javascript:alert(1))" onclick="window.__pwned=7">x</div>',
    8: "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=8>",
}
ESCAPED = '"><script>window.__pwned=9</script>'  # in a plain-text field: shown as text
SAFE_LINK = '<a href="https://example.org/x" target="_blank">safe link</a>'
EVERY_PAYLOAD = "".join(PAYLOADS.values())

GUID_PREFIX = "HOSTILE000."
SECTOR, PREFIX = "HX", "ZZ"
SCHEME_NAME = "Hostile HTML scheme <img src=x onerror=window.__pwned=10>"
SECTION_NAME = f"Hostile section {PAYLOADS[2]}"
AIM_NAME = f"Aim {PAYLOADS[1]}"
SCOPE_NAME = f"Scope {PAYLOADS[4]}"
SEARCH_WORD = "quokka"  # in every hostile point's guidelines, beside the payload


@dataclass(frozen=True)
class HostileScheme:
    guid: str
    live_points: list[str]  # references
    preview_points: list[str]

    @property
    def path(self) -> str:
        return f"/standards/{self.guid}/"

    @property
    def section_path(self) -> str:
        return f"{self.path}{SECTOR}/{PREFIX}/"


# --- the hostile data, in the sandbox's database --------------------------------------------------


class _Writer:
    """Inserts rows into the sandbox's tables, each with a GUID of the hostile series."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        self._numbers = count(1)

    def guid(self) -> str:
        return f"{GUID_PREFIX}{next(self._numbers):013d}"

    def insert(self, table: str, **columns: object) -> int:
        names = ", ".join(f'"{name}"' for name in columns)
        marks = ", ".join("?" for _ in columns)
        cursor = self.db.execute(
            f"INSERT INTO {table} ({names}) VALUES ({marks})",  # noqa: S608 (our own names)
            list(columns.values()),
        )
        return cursor.lastrowid

    def edition(self, scheme_id: int, stage: str) -> tuple[int, int, int]:
        edition = self.insert("sandbox_edition", stage=stage, changed=self.now, scheme_id=scheme_id)
        scope = self.insert(
            "sandbox_scope", guid=self.guid(), name=SCOPE_NAME, start_date=self.now,
            end_date=None, modified=self.now, edition_id=edition,
        )  # fmt: skip
        aim = self.insert(
            "sandbox_aim", guid=self.guid(), name=AIM_NAME, description=PAYLOADS[2],
            modified=self.now, edition_id=edition,
        )  # fmt: skip
        return edition, scope, aim

    def section(self, edition: int, scope: int, what_has_changed: str = "") -> int:
        return self.insert(
            "sandbox_section", guid=self.guid(), sector_prefix=SECTOR, prefix=PREFIX,
            name=SECTION_NAME, description=f"Described {PAYLOADS[6]}", index=1,
            what_has_changed=what_has_changed, modified=self.now, content_changed=self.now,
            edition_id=edition, scope_id=scope,
        )  # fmt: skip

    def point(
        self, section: int, aim: int, number: int, question: str, html: str, critical=False
    ) -> str:
        reference = f"{SECTOR}.{PREFIX}.{number}"
        point = self.insert(
            "sandbox_standardpoint", guid=self.guid(), reference=reference,
            assessment_question=question,
            assessment_guidelines=f"<p>How {number} is measured: {SEARCH_WORD}.</p>{html}",
            reference_sources=f"<ul><li>Record {number}</li></ul>{html}",
            guidance=f"<p>Guidance {number}.</p>{html}", score=1, revision_status="",
            index=number, modified=self.now, section_id=section,
        )  # fmt: skip
        self.insert(
            "sandbox_auditpoint", guid=self.guid(), reference=f"{reference}-A1",
            item_text=f"Checks {html}", index=1, modified=self.now, standard_point_id=point,
        )  # fmt: skip
        for n, critical_point in enumerate((False, critical), start=1):
            self.insert(
                "sandbox_answer", guid=self.guid(), reference=f"{reference}-R{n}",
                answer_text=f"Answer {n} {html}", critical_point=critical_point, score=1 - n,
                index=n, modified=self.now, standard_point_id=point,
            )  # fmt: skip
        self.insert(
            "sandbox_link", guid=self.guid(), modified=self.now, aim_id=aim,
            standard_point_id=point,
        )  # fmt: skip
        return reference


def _write_hostile_scheme(db: sqlite3.Connection) -> HostileScheme:
    w = _Writer(db)
    guid = w.guid()
    scheme = w.insert("sandbox_scheme", guid=guid, name=SCHEME_NAME, key="hostile-html")

    live, scope, aim = w.edition(scheme, "live")
    section = w.section(live, scope)
    live_points = [
        w.point(section, aim, n, f"Hostile point {n}: {payload}", payload, critical=n % 2 == 1)
        for n, payload in PAYLOADS.items()
    ]
    with_safe_link = f"<p>{SAFE_LINK}</p>{EVERY_PAYLOAD}"
    live_points.append(
        w.point(section, aim, 9, f"Escaped point {ESCAPED}", with_safe_link, critical=True)
    )

    preview, scope, aim = w.edition(scheme, "preview")
    section = w.section(preview, scope, f"<p>Changed {SAFE_LINK}</p>{EVERY_PAYLOAD}")
    preview_points = [
        w.point(section, aim, 1, f"Reworded {ESCAPED}", f"<p>Now {PAYLOADS[3]}</p>{PAYLOADS[2]}"),
        w.point(section, aim, 9, f"Escaped point {ESCAPED}", EVERY_PAYLOAD),
        w.point(section, aim, 10, f"New {PAYLOADS[4]}", PAYLOADS[8], critical=True),
    ]
    return HostileScheme(guid, live_points, preview_points)


_TABLES = (  # children first
    "sandbox_link", "sandbox_answer", "sandbox_auditpoint", "sandbox_standardpoint",
    "sandbox_section", "sandbox_aim", "sandbox_scope",
)  # fmt: skip


def _remove_hostile_scheme(db: sqlite3.Connection) -> None:
    like = f"{GUID_PREFIX}%"
    for table in _TABLES:
        db.execute(f"DELETE FROM {table} WHERE guid LIKE ?", [like])  # noqa: S608
    schemes = "SELECT id FROM sandbox_scheme WHERE guid LIKE ?"
    db.execute(f"DELETE FROM sandbox_edition WHERE scheme_id IN ({schemes})", [like])  # noqa: S608
    db.execute("DELETE FROM sandbox_scheme WHERE guid LIKE ?", [like])


@pytest.fixture(scope="module")
def hostile(sandbox) -> Iterator[HostileScheme]:
    """The hostile scheme, in the live sandbox for this module's tests only."""
    with closing(sqlite3.connect(sandbox.database, timeout=30)) as db:
        with db:
            _remove_hostile_scheme(db)  # what a broken run may have left
            scheme = _write_hostile_scheme(db)
        try:
            yield scheme
        finally:
            with db:
                _remove_hostile_scheme(db)
    with closing(sqlite3.connect(f"file:{sandbox.database}?mode=ro", uri=True)) as db:
        left = db.execute(
            "SELECT COUNT(*) FROM sandbox_scheme WHERE guid LIKE ?", [GUID_PREFIX + "%"]
        )
        assert left.fetchone() == (0,), "the hostile scheme is gone"


# --- what a page must never hold ------------------------------------------------------------------


@pytest.fixture
def dialogs(signed_in_page: Page) -> list[str]:
    """The message of every dialog (alert, confirm, prompt) the page opens; each dismissed."""
    opened: list[str] = []

    def record(dialog) -> None:
        opened.append(dialog.message)
        dialog.dismiss()

    signed_in_page.on("dialog", record)
    return opened


_DANGEROUS_ATTRIBUTES = """() => {
    const found = [];
    const runs = /^\\s*(javascript|vbscript|data):/i;
    for (const element of document.querySelectorAll("#main, #main *")) {
        for (const attribute of element.attributes) {
            const name = attribute.name.toLowerCase();
            const value = attribute.value.replace(/[\\u0000-\\u0020]/g, "");
            if (name.startsWith("on")
                || name === "style"
                || name === "srcdoc"
                || (["href", "src", "action", "formaction", "xlink:href", "data", "background",
                     "poster"].includes(name) && runs.test(value))) {
                found.push(`<${element.localName} ${attribute.name}="${attribute.value}">`);
            }
        }
    }
    return found;
}"""

_NOTHING_THAT_RUNS_OR_LOADS = (
    "iframe, frame, frameset, object, embed, applet, svg, math, img, video, audio, source, "
    "picture, style, link, meta, base, template, portal, script"
)


def assert_harmless(page: Page, dialogs: list[str], csp: CspWatch) -> None:
    """No payload ran, and nothing that could run or load reached the page's content."""
    page.wait_for_timeout(100)  # room for anything that would run on load or on an error
    assert page.evaluate("() => typeof window.__pwned") == "undefined", page.evaluate(
        "() => window.__pwned"
    )
    assert dialogs == [], f"dialogs opened on {page.url}: {dialogs}"
    assert page.locator("#main").count() == 1
    elements = page.evaluate(
        "(selector) => [...document.querySelectorAll(selector)].map((e) => e.outerHTML)",
        ", ".join(f"#main {tag}" for tag in _NOTHING_THAT_RUNS_OR_LOADS.split(", ")),
    )
    assert elements == [], f"elements that run or load on {page.url}: {elements}"
    assert page.evaluate(_DANGEROUS_ATTRIBUTES) == [], page.url
    assert csp.violations == [], f"CSP violations on {page.url}: {csp.violations}"


# --- the pages ------------------------------------------------------------------------------------


def test_the_schemes_and_the_scheme_page_show_hostile_names_as_text(
    signed_in_page: Page, portal_url: str, hostile: HostileScheme, dialogs, csp
):
    page = signed_in_page
    page.goto(f"{portal_url}/standards/")
    live = page.get_by_role("region", name="In force now").get_by_role("link", name=SCHEME_NAME)
    expect(live).to_have_attribute("href", hostile.path)
    expect(page.get_by_role("link", name=f"{SCHEME_NAME} (preview)")).to_be_visible()
    assert_harmless(page, dialogs, csp)
    assert_accessible(page)

    live.click()
    expect(page).to_have_url(f"{portal_url}{hostile.path}")
    expect(page.get_by_role("heading", level=1)).to_have_text(SCHEME_NAME)
    expect(page).to_have_title(f"{SCHEME_NAME} · Assurance portal")
    expect(page.locator(".scopes")).to_contain_text(SCOPE_NAME)
    section = page.locator("#sections").get_by_role(
        "link", name=f"{SECTOR}.{PREFIX} {SECTION_NAME}"
    )
    expect(section).to_have_attribute("href", hostile.section_path)
    expect(page.locator("#sections")).to_contain_text(f"Described {PAYLOADS[6]}")
    assert_harmless(page, dialogs, csp)
    assert_accessible(page)


def test_the_section_page_shows_hostile_content_harmless(
    signed_in_page: Page, portal_url: str, hostile: HostileScheme, dialogs, csp
):
    page = signed_in_page
    page.goto(f"{portal_url}{hostile.section_path}")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{SECTOR}.{PREFIX} {SECTION_NAME}")
    points = page.locator("#points details.point")
    expect(points).to_have_count(len(hostile.live_points))
    expect(page.locator(".point-question").last).to_have_text(f"Escaped point {ESCAPED}")
    expect(page.locator("select[name=aim] option")).to_have_text(["Every aim", AIM_NAME])
    assert_harmless(page, dialogs, csp)

    for point in points.all():
        point.locator("summary").click()
        expect(point).to_have_attribute("open", "")
    expect(page.locator(".audit-points").first).to_contain_text(f"Checks {PAYLOADS[1]}")
    expect(page.locator(".point-facts").first).to_contain_text(f"Aims: {AIM_NAME}")
    assert_harmless(page, dialogs, csp)

    # The javascript: links keep their words and lose their address: a click goes nowhere.
    click_me = page.locator("#main a", has_text="click me")
    expect(click_me).to_have_count(6)  # point 3's three fields, point 9's three
    for link in click_me.all():
        expect(link).not_to_have_attribute("href", "javascript:window.__pwned=3")
        link.click()
        expect(page).to_have_url(f"{portal_url}{hostile.section_path}")
    assert_harmless(page, dialogs, csp)

    # The safe link keeps its address, and cannot reach back to the portal.
    safe = page.locator("#main a", has_text="safe link")
    expect(safe).to_have_count(3)
    for link in safe.all():
        expect(link).to_have_attribute("href", "https://example.org/x")
        rel = (link.get_attribute("rel") or "").split()
        assert "noopener" in rel, rel

    # The htmx fragment of the filtered points is as harmless as the page.
    with page.expect_response(lambda r: "critical=1" in r.url):
        page.get_by_label("Critical answers only").check()
    expect(points).to_have_count(4)  # HX.ZZ.1, 3, 7 and 9
    assert_harmless(page, dialogs, csp)
    assert_accessible(page)


def test_every_point_page_shows_hostile_content_harmless(
    signed_in_page: Page, portal_url: str, hostile: HostileScheme, dialogs, csp
):
    page = signed_in_page
    for reference in hostile.live_points:
        page.goto(f"{portal_url}{hostile.path}points/{reference}/")
        expect(page.get_by_role("heading", level=1)).to_have_text(reference)
        expect(page.locator("details.point")).to_have_attribute("open", "")
        expect(page.locator(".point-body .html")).to_have_count(3)
        assert_harmless(page, dialogs, csp)
    expect(page.locator(".point-question")).to_have_text(f"Escaped point {ESCAPED}")
    expect(page.get_by_role("navigation", name="Breadcrumbs")).to_contain_text(SECTION_NAME)
    assert_accessible(page)


def test_search_shows_hostile_content_harmless(
    signed_in_page: Page, portal_url: str, hostile: HostileScheme, dialogs, csp
):
    page = signed_in_page
    page.goto(f"{portal_url}{hostile.path}")
    page.get_by_label("Search this scheme by reference").fill(SEARCH_WORD)
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".hits li")).to_have_count(len(hostile.live_points))
    expect(page.locator(".hits mark").first).to_have_text(SEARCH_WORD)
    assert_harmless(page, dialogs, csp)
    assert_accessible(page)

    # A word of the payloads themselves: in the questions, shown as text with the word marked.
    page.get_by_label("A reference (such as CR.ST.3) or words").fill("pwned")
    page.get_by_role("button", name="Search").click()
    hits = page.locator(".hits li")
    expect(hits).to_have_count(len(hostile.live_points))
    expect(hits.last.locator("a")).to_have_text(
        f"{hostile.live_points[-1]} Escaped point {ESCAPED}"
    )
    expect(hits.last.locator("a mark")).to_have_text("pwned")
    assert_harmless(page, dialogs, csp)

    page.get_by_label("A reference (such as CR.ST.3) or words").fill(f"{SECTOR}.{PREFIX}.9")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".hits li")).to_have_count(1)
    assert_harmless(page, dialogs, csp)


def test_what_has_changed_shows_hostile_content_harmless(
    signed_in_page: Page, portal_url: str, hostile: HostileScheme, dialogs, csp
):
    page = signed_in_page
    page.goto(f"{portal_url}/standards/{hostile.guid}/changes/")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"What has changed in {SCHEME_NAME}")
    change = page.locator(".change-section")
    expect(change).to_have_count(1)
    expect(change.locator(".what-has-changed")).to_contain_text("Changed safe link")
    safe = change.locator(".what-has-changed a", has_text="safe link")
    expect(safe).to_have_attribute("href", "https://example.org/x")
    assert "noopener" in (safe.get_attribute("rel") or "").split()
    expect(change.locator(".point-change-added")).to_contain_text(f"New {PAYLOADS[4]}")
    expect(change.locator(".point-change-reworded").first).to_contain_text(f"Reworded {ESCAPED}")
    expect(change.locator(".point-change-removed")).to_have_count(6)  # 2, 3, 4, 6, 7, 8
    assert_harmless(page, dialogs, csp)
    assert_accessible(page)

    page.goto(f"{portal_url}/standards/preview/{hostile.guid}/{SECTOR}/{PREFIX}/")
    expect(page.locator("#points details.point")).to_have_count(len(hostile.preview_points))
    for point in page.locator("#points details.point").all():
        point.locator("summary").click()
    assert_harmless(page, dialogs, csp)


def test_the_harmless_check_is_not_blind(
    signed_in_page: Page,
    portal_url: str,
    hostile: HostileScheme,
    dialogs,
    csp,
    monkeypatch: pytest.MonkeyPatch,
):
    """Without the sanitiser, assert_harmless fails, and the CSP watch hears the payloads."""
    monkeypatch.setattr(points, "sanitise", lambda fragment: mark_safe(fragment or ""))  # noqa: S308
    page = signed_in_page
    page.goto(f"{portal_url}{hostile.section_path}")
    with pytest.raises(AssertionError, match=r"elements that run or load .*<iframe"):
        assert_harmless(page, dialogs, csp)
    assert page.evaluate("() => typeof window.__pwned") == "undefined", "the CSP held"
    assert any("inline event handler" in v for v in csp.violations), csp.violations
    csp.violations.clear()
