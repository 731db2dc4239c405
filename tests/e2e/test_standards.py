"""The standards pages in the browser: the issue's "done when" as one journey, then the sector
filter, the points' folding, print, no JavaScript and a phone-sized screen."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import GROWER, assert_accessible, sign_in
from tests.portal.standards.helpers import CROPS as CROPS_GUID
from tests.portal.standards.helpers import (
    demo,
    demo_critical_references,
    demo_references,
    pdf_words,
)

pytestmark = pytest.mark.browser

CROPS = demo("crops")["name"]
STORAGE_POINTS = len(demo_references("crops", "CR.ST"))
STORAGE_CRITICAL = len(demo_critical_references("crops", "CR.ST"))


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def _section_path(sector: str = "CR", prefix: str = "ST") -> str:
    return f"/standards/{CROPS_GUID}/{sector}/{prefix}/"


def _points(page: Page):
    return page.locator("#points details.point")


def _hit(page: Page, reference: str):
    """The search result whose reference is exactly `reference`."""
    code = page.locator(".code", has_text=re.compile(rf"^{re.escape(reference)}$"))
    return page.locator(".hits a").filter(has=code)


def _open_standards(page: Page, portal_url: str) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Standards").click()
    expect(page).to_have_url(f"{portal_url}/standards/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Standards")


def test_a_grower_finds_a_section_filters_searches_compares_and_downloads(
    signed_in_page: Page, portal_url: str
):
    page = signed_in_page

    # Standards, from the navigation.
    _open_standards(page, portal_url)
    expect(page.get_by_role("link", name="Standards")).to_have_attribute("aria-current", "page")
    assert_accessible(page)

    # The scheme, from the schemes in force.
    page.get_by_role("region", name="In force now").get_by_role("link", name=CROPS).click()
    expect(page).to_have_url(f"{portal_url}/standards/{CROPS_GUID}/")
    expect(page.get_by_role("heading", level=1)).to_have_text(CROPS)
    assert_accessible(page)

    # Its Storage section.
    page.locator("#sections").get_by_role("link", name="CR.ST Storage").click()
    expect(page).to_have_url(f"{portal_url}{_section_path()}")
    expect(page.get_by_role("heading", level=1)).to_have_text("CR.ST Storage")
    expect(page.locator("#points .count")).to_have_text(f"{STORAGE_POINTS} standard points")
    expect(_points(page)).to_have_count(STORAGE_POINTS)
    expect(page.get_by_role("button", name="Apply")).to_have_count(0)  # filters apply at once
    sub_point = page.locator("#point-CR-ST-3-1").bounding_box()
    assert sub_point["x"] > page.locator("#point-CR-ST-3").bounding_box()["x"], "indented"
    assert_accessible(page)

    # Critical answers only: htmx narrows the list in place and pushes the address.
    page.evaluate("() => { window.__samePage = 'still here'; }")
    with page.expect_response(lambda r: "critical=1" in r.url) as answer:
        page.get_by_label("Critical answers only").check()
    assert answer.value.request.header_value("HX-Request") == "true"
    expect(page.locator("#points .count")).to_have_text(
        f"{STORAGE_CRITICAL} of {STORAGE_POINTS} standard points"
    )
    expect(_points(page)).to_have_count(STORAGE_CRITICAL)
    expect(page.locator("#points details.point:not(.point-critical)")).to_have_count(0)
    expect(page).to_have_url(f"{portal_url}{_section_path()}?critical=1")  # only what is set
    assert urlsplit(page.url).path == _section_path()
    assert page.evaluate("() => window.__samePage") == "still here", "the page was reloaded"
    expect(page.get_by_role("heading", level=1)).to_have_count(1)  # no page inside the page
    expect(page.locator("#points")).to_have_count(1)
    # The downloads follow the filter: a checklist of the critical points alone.
    with page.expect_download() as download:
        page.get_by_role(
            "link", name=f"Download a PDF checklist of these {STORAGE_CRITICAL}"
        ).click()
    assert download.value.suggested_filename == "CR.ST-storage-filtered.pdf"
    text = pdf_words(download.value.path().read_bytes())
    assert f"checklist of {STORAGE_CRITICAL} standard points" in text
    assert_accessible(page)

    # The pushed address is a page of its own: reloaded, it is the whole page, still narrowed.
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("CR.ST Storage")
    expect(page.get_by_label("Critical answers only")).to_be_checked()
    expect(_points(page)).to_have_count(STORAGE_CRITICAL)
    assert page.evaluate("() => window.__samePage") is None

    # Clear filters: every point again, and nothing ticked.
    page.get_by_role("link", name="Clear filters").click()
    expect(page).to_have_url(f"{portal_url}{_section_path()}")
    expect(_points(page)).to_have_count(STORAGE_POINTS)
    expect(page.get_by_label("Critical answers only")).not_to_be_checked()
    expect(page.get_by_role("link", name="Clear filters")).to_have_count(0)

    # Search by reference, from the scheme's page.
    page.get_by_role("navigation", name="Breadcrumbs").get_by_role("link", name=CROPS).click()
    expect(page).to_have_url(f"{portal_url}/standards/{CROPS_GUID}/")
    page.get_by_label("Search this scheme by reference").fill("CR.ST.3")
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"/search/\?q=CR\.ST\.3$"))
    expect(page.locator(".count")).to_have_text("3 standard points found under CR.ST.3.")
    expect(page.locator(".hits a .code")).to_have_text(["CR.ST.3", "CR.ST.3.1", "CR.ST.3.2"])
    assert_accessible(page)

    _hit(page, "CR.ST.3").click()
    expect(page).to_have_url(f"{portal_url}/standards/{CROPS_GUID}/points/CR.ST.3/")
    expect(page.get_by_role("heading", level=1)).to_have_text("CR.ST.3")
    expect(page.locator("details.point")).to_have_attribute("open", "")
    expect(page.locator(".point-question")).to_contain_text("A pre-harvest inspection")
    assert_accessible(page)

    page.go_back()
    _hit(page, "CR.ST.3.1").click()
    expect(page).to_have_url(f"{portal_url}/standards/{CROPS_GUID}/points/CR.ST.3.1/")
    expect(page.get_by_role("heading", level=1)).to_have_text("CR.ST.3.1")
    expect(page.locator(".point-question")).to_contain_text("Where the pre-harvest inspection")
    assert_accessible(page)

    # What has changed in the preview of the next version.
    _open_standards(page, portal_url)
    preview = page.get_by_role("region", name="Next versions")
    preview.get_by_role("listitem").filter(has_text=CROPS).get_by_role(
        "link", name="what has changed"
    ).click()
    expect(page).to_have_url(f"{portal_url}/standards/{CROPS_GUID}/changes/")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"What has changed in {CROPS}")
    storage = page.locator(".change-section").filter(
        has=page.get_by_role("heading", level=2, name="CR.ST Storage")
    )
    expect(storage).to_have_count(1)
    scheme_says = storage.locator(".what-has-changed")
    expect(scheme_says).to_contain_text("Temporary outdoor heaps are no longer permitted")
    expect(scheme_says.locator("li strong")).to_contain_text(["CR.ST.3", "CR.ST.15"])
    expect(storage.locator(".muted").first).to_have_text("2 added, 3 reworded, 1 removed.")
    added = storage.locator(".point-change-added")
    expect(added.locator(".code")).to_have_text(["CR.ST.19", "CR.ST.20"])
    removed = storage.locator(".point-change-removed")
    expect(removed.locator(".code")).to_have_text(["CR.ST.15"])
    expect(removed.get_by_role("link")).to_have_count(0)  # nothing to link to any more
    expect(storage.locator(".point-change-reworded h3 .code")).to_have_text(
        ["CR.ST.3", "CR.ST.8", "CR.ST.12"]
    )
    reworded = storage.locator(".point-change-reworded").filter(
        has=page.locator(".code", has_text=re.compile(r"^CR\.ST\.3$"))
    )
    expect(reworded).to_have_count(1)
    expect(reworded.locator("ins").first).to_be_visible()
    expect(reworded.locator("del").first).to_be_visible()
    expect(reworded.locator("ins")).to_contain_text(["dryer and cooling system"])
    assert_accessible(page)

    # The section as a PDF checklist.
    page.goto(f"{portal_url}{_section_path()}")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download a PDF checklist").click()
    assert download.value.suggested_filename == "CR.ST-storage.pdf"
    content = download.value.path().read_bytes()
    assert content.startswith(b"%PDF")
    text = pdf_words(content)
    assert "CR.ST.3" in text
    assert "Storage" in text
    assert urlsplit(page.url).path == _section_path()  # the download left the page as it was


def test_the_sector_filter_shows_only_that_sectors_sections(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    page.goto(f"{portal_url}/standards/{CROPS_GUID}/")
    codes = page.locator("#sections .code")
    expect(codes).to_have_count(10)
    page.evaluate("() => { window.__samePage = 'still here'; }")

    with page.expect_response(lambda r: "sector=SB" in r.url):
        page.get_by_label("SB", exact=True).check()
    expect(codes).to_have_text(["SB.SM", "SB.CP", "SB.HA"])
    expect(page).to_have_url(re.compile(r"[?&]sector=SB(&|$)"))
    assert page.evaluate("() => window.__samePage") == "still here"
    assert_accessible(page)

    page.get_by_label("All", exact=True).check()
    expect(codes).to_have_count(10)
    page.reload()  # the pushed address of one sector is a whole page too
    page.get_by_label("CR", exact=True).check()
    expect(codes).to_have_count(7)
    page.reload()
    expect(page.get_by_label("CR", exact=True)).to_be_checked()
    expect(codes).to_have_count(7)
    assert all(code.startswith("CR.") for code in codes.all_inner_texts())


def test_back_and_forward_show_the_filter_that_narrowed_the_list(
    signed_in_page: Page, portal_url: str
):
    page = signed_in_page
    page.goto(f"{portal_url}{_section_path()}")
    critical = page.get_by_label("Critical answers only")
    with page.expect_response(lambda r: "critical=1" in r.url):
        critical.check()
    expect(_points(page)).to_have_count(STORAGE_CRITICAL)

    page.go_back()
    expect(page).to_have_url(f"{portal_url}{_section_path()}")
    expect(_points(page)).to_have_count(STORAGE_POINTS)
    expect(critical).not_to_be_checked()

    page.go_forward()
    expect(page).to_have_url(f"{portal_url}{_section_path()}?critical=1")  # only what is set
    expect(_points(page)).to_have_count(STORAGE_CRITICAL)
    expect(critical).to_be_checked()
    expect(page.get_by_role("heading", level=1)).to_have_count(1)  # the whole page, once


def test_a_point_opens_and_closes_on_a_click(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    page.goto(f"{portal_url}{_section_path()}")
    point = page.locator("#point-CR-ST-3")
    body = point.locator(".point-body")
    expect(point).not_to_have_attribute("open", "")
    expect(body).to_be_hidden()

    point.locator("summary").click()
    expect(point).to_have_attribute("open", "")
    expect(body).to_be_visible()
    expect(body.get_by_role("heading", name="What the assessor checks")).to_be_visible()
    expect(body.get_by_role("link", name="Link to CR.ST.3")).to_have_attribute(
        "href", f"/standards/{CROPS_GUID}/points/CR.ST.3/"
    )
    expect(page.locator("details.point[open]")).to_have_count(1)  # the others stay folded
    assert_accessible(page)

    point.locator("summary").click()
    expect(point).not_to_have_attribute("open", "")
    expect(body).to_be_hidden()


def test_a_folded_point_shows_that_it_opens(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    page.goto(f"{portal_url}{_section_path()}")
    summary = page.locator("#point-CR-ST-1 summary")
    expect(summary).to_be_visible()
    drawn = summary.evaluate(
        """(s) => ({
            display: getComputedStyle(s).display,
            before: getComputedStyle(s, "::before").content,
            after: getComputedStyle(s, "::after").content,
        })"""
    )
    has_marker = drawn["display"] == "list-item"
    has_own_marker = any(drawn[p] not in ("none", "normal", '""') for p in ("before", "after"))
    assert has_marker or has_own_marker, drawn


def test_a_section_prints_with_every_point_unfolded(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    page.goto(f"{portal_url}{_section_path()}")
    expect(_points(page).first.locator(".point-body")).to_be_hidden()

    page.emulate_media(media="print")
    expect(page.locator("details.point[open]")).to_have_count(0)  # folded, yet printed whole
    for reference in ("CR-ST-1", "CR-ST-3-1", "CR-ST-18"):
        body = page.locator(f"#point-{reference} .point-body")
        expect(body).to_be_visible()
        box = body.bounding_box()
        assert box is not None and box["height"] > 40, (reference, box)
    expect(page.locator(".filters")).to_be_hidden()
    expect(page.locator(".section-tools")).to_be_hidden()
    expect(page.locator(".site-nav")).to_be_hidden()
    assert_accessible(page)

    page.emulate_media(media="screen")
    expect(_points(page).first.locator(".point-body")).to_be_hidden()


def test_the_section_page_works_without_javascript(watched_context, portal_url: str):
    page = watched_context(java_script_enabled=False).new_page()
    sign_in(page, portal_url, *GROWER, next_path=_section_path())
    expect(page).to_have_url(f"{portal_url}{_section_path()}")
    expect(_points(page)).to_have_count(STORAGE_POINTS)

    page.get_by_label("Critical answers only").check()
    page.wait_for_timeout(300)
    assert urlsplit(page.url).query == "", "nothing but the form's own button submits it"
    with page.expect_navigation():
        page.get_by_role("button", name="Apply").click()
    assert urlsplit(page.url).path == _section_path()
    assert _query(page.url)["critical"] == ["1"]
    expect(page.get_by_role("heading", level=1)).to_have_text("CR.ST Storage")
    expect(page.locator("#points .count")).to_have_text(
        f"{STORAGE_CRITICAL} of {STORAGE_POINTS} standard points"
    )
    expect(_points(page)).to_have_count(STORAGE_CRITICAL)
    expect(page.get_by_label("Critical answers only")).to_be_checked()

    # Points still open and close (details needs no script).
    point = _points(page).first
    point.locator("summary").click()
    expect(point.locator(".point-body")).to_be_visible()
    # No axe check: without JavaScript page.evaluate never returns (see test_sign_in.py).


def test_a_phone_sized_screen_shows_the_section_without_sideways_scroll(
    watched_context, portal_url: str
):
    page = watched_context(viewport={"width": 360, "height": 740}).new_page()
    sign_in(page, portal_url, *GROWER, next_path=_section_path())
    expect(page).to_have_url(f"{portal_url}{_section_path()}")
    expect(_points(page)).to_have_count(STORAGE_POINTS)
    page.locator("#point-CR-ST-3 summary").click()  # an open point, with its lists and links
    expect(page.locator("#point-CR-ST-3 .point-body")).to_be_visible()
    assert_accessible(page)

    for control in (
        page.get_by_label("Aim"),
        page.get_by_label("Revision"),
        page.get_by_label("Critical answers only"),
        page.get_by_role("link", name="Download a PDF checklist"),
        page.locator("#point-CR-ST-3 summary"),
        page.locator("#point-CR-ST-3 .point-body"),
    ):
        box = control.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.evaluate(ONE_LINE_LABELS), "a filter's label is broken across lines"

    # A word far wider than the screen, searched for and said back, wraps.
    page.goto(f"{portal_url}/standards/{CROPS_GUID}/search/?q={'x' * 120}")
    expect(page.locator(".count")).to_contain_text("x" * 100)  # as much as is searched for
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


# Whether the text of each filter's label ("Aim", "Revision") takes one line: a line is about
# 1.55 em high, two over 3 em.
ONE_LINE_LABELS = """() => [...document.querySelectorAll('.filters label:not(.choice)')].every(
    label => {
        const words = document.createRange();
        words.selectNodeContents(label.firstChild);
        const height = words.getBoundingClientRect().height;
        return height > 0 && height < 2.4 * parseFloat(getComputedStyle(label).fontSize);
    })"""


def test_a_welsh_speaker_reads_a_section_with_the_standards_in_english(
    signed_in_page: Page, portal_url: str
):
    page = signed_in_page
    page.goto(f"{portal_url}/cy/standards/")
    expect(page.locator("html")).to_have_attribute("lang", "cy")
    expect(page.get_by_role("heading", level=1)).to_have_text("Safonau")
    notice = page.locator(".standards-in-english")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text("Dim ond yn Saesneg y cyhoeddir y safonau")
    assert_accessible(page)

    page.get_by_role("link", name=CROPS, exact=True).click()
    expect(page).to_have_url(f"{portal_url}/cy/standards/{CROPS_GUID}/")
    page.get_by_role("link", name=re.compile(r"CR\.ST\s+Storage")).click()
    expect(page).to_have_url(f"{portal_url}/cy{_section_path()}")
    expect(page.locator(".standards-in-english")).to_have_count(1)
    expect(page.locator("#points .count")).to_have_text(f"{STORAGE_POINTS} pwynt safon")
    expect(_points(page).first.locator(".point-question")).to_have_attribute("lang", "en")

    # The filter works in Welsh, and the page stays Welsh.
    page.get_by_label("Atebion critigol yn unig").check()
    expect(_points(page)).to_have_count(STORAGE_CRITICAL)
    expect(page).to_have_url(re.compile(r"/cy/standards/.*\?critical=1$"))
    expect(page.locator("#points .count")).to_have_text(
        f"{STORAGE_CRITICAL} o {STORAGE_POINTS} pwynt safon"
    )
    _points(page).first.locator("summary").click()
    expect(_points(page).first.get_by_role("heading", name="Atebion")).to_be_visible()
    assert_accessible(page)
