"""The page frame's main menu in Chromium: on a phone, the signed-in header is one row, the
brand and a Menu button that opens every link and Sign out, with the keyboard too and without
JavaScript (a <details> disclosure); on a wide screen, the header as it always was, its links
in a row and read by screen readers. Both layouts: the portal's pages and the look-up's.
axe-core in each state."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from tests.e2e.conftest import (
    GROWER,
    PHONE,
    assert_accessible,
    no_sideways_scroll,
    sign_in,
    submit_sign_in,
)
from tests.portal.intake.builders import a_clerk, a_site

pytestmark = pytest.mark.browser

# Every page the grower's menu links to, by its link's name: the address and the page's heading.
LINKED = {
    "Home": ("/", "Welcome, grower"),
    "Standards": ("/standards/", "Standards"),
    "Your jobs": ("/jobs/", "Your jobs"),
    "Create a passport": ("/passports/new", "Create a crop passport"),
    "Passports": ("/passports/", "Your business's passports"),
    "Your account": ("/accounts/you/", "Your account"),
    "Look up a passport": ("/p/", "Check a passport"),
    "Check a day's loads": ("/p/check", "Check a day's loads"),
    "Check a signed code": ("/V/", "Check a passport's signed code"),
}
WIDE = {"viewport": {"width": 1280, "height": 800}}


def main_menu(page: Page) -> Locator:
    return page.get_by_role("navigation", name="Main")


def menu_button(page: Page) -> Locator:
    return page.locator(".site-header, header").get_by_text("Menu", exact=True)


def one_row(page: Page, *parts: Locator) -> None:
    """The parts side by side in one row of the header, the header no taller than that row."""
    boxes = [part.bounding_box() for part in parts]
    assert all(boxes), boxes
    middles = [box["y"] + box["height"] / 2 for box in boxes]
    assert max(middles) - min(middles) < 8, boxes
    header = page.locator("body > header").bounding_box()
    assert header is not None and header["height"] < 72, header


def as_announced(page: Page) -> tuple[str, str, bool | None]:
    """The focused element as Chromium gives it to screen readers: its role, its name, and
    whether it is expanded (None if it cannot be)."""
    nodes = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    for node in nodes:
        properties = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        if properties.get("focused") and node["role"]["value"] != "RootWebArea":
            return node["role"]["value"], node["name"]["value"], properties.get("expanded")
    raise AssertionError("nothing in the page is focused")


def signed_in_on_a_phone(make: Callable[..., BrowserContext], portal_url: str, javascript: bool):
    page = make(**PHONE, java_script_enabled=javascript).new_page()
    page.goto(f"{portal_url}/accounts/sign-in/")
    submit_sign_in(page, *GROWER)
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, grower")
    page.wait_for_load_state("load")  # its stylesheets applied before the header is measured
    return page


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_on_a_phone_the_signed_in_header_is_one_row_with_a_menu_of_every_link(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):  # fmt: skip
    page = signed_in_on_a_phone(watched_context, portal_url, javascript)
    brand = page.get_by_role("link", name="Assurance portal")
    one_row(page, brand, menu_button(page))
    for name in LINKED:
        expect(main_menu(page).get_by_role("link", name=name, exact=True)).to_be_hidden()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    menu_button(page).click()
    for name in LINKED:
        link = main_menu(page).get_by_role("link", name=name, exact=True)
        expect(link).to_be_visible()
        box = link.bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 360, box
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    expect(main_menu(page).get_by_text("grower", exact=True)).to_be_visible()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    # every page is reached from the menu, which is there on each, closed
    for name, (path, heading) in LINKED.items():
        if not menu_button(page).evaluate("summary => summary.parentElement.open"):
            menu_button(page).click()
        main_menu(page).get_by_role("link", name=name, exact=True).click()
        expect(page).to_have_url(f"{portal_url}{path}")
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        page.wait_for_load_state("load")  # its stylesheets applied before the header is measured
        one_row(page, page.locator(".brand"), menu_button(page))
        expect(main_menu(page).get_by_role("link", name="Home", exact=True)).to_be_hidden()

    menu_button(page).click()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You have signed out.")).to_be_visible()


def test_on_a_phone_the_menu_opens_and_closes_with_the_keyboard(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = signed_in_on_a_phone(watched_context, portal_url, javascript=True)
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")  # the brand
    page.keyboard.press("Tab")
    assert as_announced(page) == ("DisclosureTriangle", "Menu", False)
    page.keyboard.press("Enter")
    assert as_announced(page) == ("DisclosureTriangle", "Menu", True)
    page.keyboard.press("Tab")
    expect(main_menu(page).get_by_role("link", name="Home", exact=True)).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Space")
    assert as_announced(page) == ("DisclosureTriangle", "Menu", False)
    expect(main_menu(page).get_by_role("link", name="Home", exact=True)).to_be_hidden()
    page.keyboard.press("Tab")  # past the closed menu, to the language switch
    assert as_announced(page)[:2] == ("link", "Newid yr iaith i’r Gymraeg")
    page.keyboard.press("Tab")  # and to the page
    role, name, _ = as_announced(page)
    assert role == "link" and name.startswith("Create a crop passport")  # the grower's first
    assert_accessible(page)


def test_the_look_ups_pages_have_the_same_menu_on_a_phone(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = signed_in_on_a_phone(watched_context, portal_url, javascript=True)
    page.goto(f"{portal_url}/p/check")
    one_row(page, page.get_by_role("link", name="Assurance portal"), menu_button(page))
    expect(main_menu(page).get_by_role("link", name="Standards")).to_be_hidden()
    assert_accessible(page)
    menu_button(page).click()
    for name in LINKED:
        expect(main_menu(page).get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    no_sideways_scroll(page)
    assert_accessible(page)
    main_menu(page).get_by_role("link", name="Standards").click()
    expect(page).to_have_url(f"{portal_url}/standards/")


@pytest.mark.parametrize("where", ["/", "/p/check"])
def test_on_a_wide_screen_the_header_shows_every_link_and_no_menu_button(
    watched_context: Callable[..., BrowserContext], portal_url: str, where: str
):
    page = watched_context(**WIDE).new_page()
    sign_in(page, portal_url, *GROWER, next_path=where)
    expect(menu_button(page)).to_be_hidden()
    links = [main_menu(page).get_by_role("link", name=name, exact=True) for name in LINKED]
    for link in links:
        expect(link).to_be_visible()
    # Below the brand, on the portal's pages; the user and Sign out beside the brand.
    if where == "/":
        brand = page.get_by_role("link", name="Assurance portal").bounding_box()
        assert all(link.bounding_box()["y"] > brand["y"] + brand["height"] for link in links)
        sign_out = page.get_by_role("button", name="Sign out")
        expect(sign_out).to_have_count(1)
        assert abs(sign_out.bounding_box()["y"] - brand["y"]) < 20
    # Screen readers read the links, and the keyboard reaches them.
    tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    read = {n["name"]["value"] for n in tree if n["role"]["value"] == "link" and not n["ignored"]}
    assert set(LINKED) <= read, read
    reached = []
    for _ in range(12):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.textContent.trim()"))
    assert set(LINKED) <= set(reached), reached
    assert_accessible(page)


@pytest.mark.parametrize(
    ("who", "offered", "not_offered"),
    [("intake", ["Intake at Stour Valley Grain, Sudbury", "Look up a passport"],
      ["Create a crop passport", "Your passports"]),
     ("grower", ["Create a crop passport", "Your passports", "Look up a passport"],
      ["Intake at Stour Valley Grain, Sudbury"])],
)  # fmt: skip
def test_each_persons_home_offers_what_they_can_do(
    watched_context: Callable[..., BrowserContext], portal_url: str, who, offered, not_offered
):
    a_clerk("intake", a_site())  # the demo clerk: no memberships
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, who, f"{who}-demo-pass")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Welcome, {who}")
    tasks = page.get_by_role("main").locator(".tasks")
    for name in offered:
        expect(tasks.get_by_role("link", name=name)).to_be_visible()
    for name in not_offered:
        expect(tasks.get_by_role("link", name=name)).to_have_count(0)
    no_sideways_scroll(page)
    assert_accessible(page)
    if who == "intake":
        tasks.get_by_role("link", name="Intake at Stour Valley Grain, Sudbury").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Stour Valley Grain, Sudbury")
