"""The addresses the page frame links to (portal/accounts/navigation.py): the installed pages' own,
worked out once for each script prefix, and none for a page that is not installed."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.test import Client, RequestFactory
from django.urls import NoReverseMatch, get_script_prefix, reverse, set_script_prefix

from portal.accounts.navigation import links
from tests.portal.accounts.helpers import sign_in
from tests.portal.pages import navigation

FRAME = {
    "home": "/",
    "standards": "/standards/",
    "sign_in": "/accounts/sign-in/",
    "sign_out": "/accounts/sign-out/",
    "admin": "/admin/",
    "lookup": "/p/",
    "intake": "/p/check",
    "checker": "/V/",
    "passports": "/passports/",
    "dashboard": "/staff/",
}


def frame_links() -> dict[str, str]:
    return links(RequestFactory().get("/"))["links"]


@pytest.fixture
def under_portal() -> Iterator[None]:
    """The portal served under /portal/, as behind a proxy that mounts it there."""
    previous = get_script_prefix()
    set_script_prefix("/portal/")
    try:
        yield
    finally:
        set_script_prefix(previous)


def test_the_links_are_the_frames_pages():
    found = frame_links()
    assert {key: found.get(key) for key in FRAME} == FRAME


def test_a_page_not_installed_is_left_out(settings):
    assert frame_links()["dashboard"] == "/staff/"
    settings.ROOT_URLCONF = "tests.portal.urls_without_dashboard"
    with pytest.raises(NoReverseMatch):
        reverse("dashboard:index")
    assert "dashboard" not in frame_links()
    assert frame_links()["home"] == "/"


@pytest.mark.django_db
def test_the_navigation_does_not_link_to_a_page_not_installed(client: Client, upstream_sandbox):
    anonymous = navigation(client.get("/accounts/sign-in/").content.decode())
    assert '<a href="/p/">Look up a passport</a>' in anonymous  # for everyone
    assert sign_in(client, "grower").status_code == 302
    nav = navigation(client.get("/").content.decode())
    assert '<a href="/standards/"' in nav  # an installed page is linked
    assert '<a href="/p/">Look up a passport</a>' in nav
    assert '<a href="/passports/">Passports</a>' in nav
    assert "Staff dashboard" not in nav  # for staff only
    assert 'href=""' not in nav


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["/accounts/sign-in/", "/p/", "/V/"])
def test_everyone_s_header_links_the_intake_check_and_the_offline_checker(
    client: Client, upstream_sandbox, address: str
):
    for signed_in_as in (None, "grower"):
        if signed_in_as:
            assert sign_in(client, signed_in_as).status_code == 302
        nav = navigation(client.get(address, follow=True).content.decode())
        assert '<a href="/p/check">Check a day\'s loads</a>' in nav
        assert re.search(r'<a href="/V/"( aria-current="page")?>Check a signed code</a>', nav)


def test_under_another_script_prefix_the_links_start_with_it(under_portal):
    found = frame_links()
    assert found["home"] == "/portal/"
    assert {key: found[key] for key in FRAME} == {
        key: f"/portal{address}" for key, address in FRAME.items()
    }
    assert all(address.startswith("/portal/") for address in found.values())


def test_the_links_of_one_prefix_are_not_given_under_another(under_portal):
    assert frame_links()["standards"] == "/portal/standards/"
    set_script_prefix("/")
    assert frame_links()["standards"] == "/standards/"
    set_script_prefix("/portal/")
    assert frame_links()["standards"] == "/portal/standards/"


@pytest.mark.django_db
def test_a_page_under_another_script_prefix_links_under_it(client: Client, under_portal):
    nav = navigation(client.get("/accounts/sign-in/").content.decode())
    assert '<a href="/portal/accounts/sign-in/"' in nav
    assert 'href="/accounts/' not in nav
