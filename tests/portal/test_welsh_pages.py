"""The home page, the memberships and the error pages in Welsh, under /cy/: for a grower and for
an intake clerk, with the frame (menu, header, footer) in Welsh and its links under /cy/; what
the Assurance service sends (business and scheme names, a membership's status) kept as it
sends it, marked as English."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from portal.intake.models import IntakeSite
from tests.portal.accounts.helpers import replace_view, sign_in, signed_in
from tests.portal.intake.builders import a_clerk, a_site
from tests.portal.pages import page_language

pytestmark = pytest.mark.django_db


def test_a_grower_s_home_page_is_in_welsh(client: Client, upstream_sandbox):
    sign_in(client, "grower")
    response = client.get("/cy/")
    page = response.content.decode()
    assert (response.status_code, page_language(page)) == (200, "cy")
    assert "<title>Hafan · Porth sicrwydd</title>" in page
    assert "<h1>Croeso, grower</h1>" in page
    assert '<a class="task" href="/cy/passports/new"><strong>Creu pasbort cnwd</strong>' in page
    assert "<strong>Eich pasbortau</strong>" in page
    assert "<strong>Chwilio am basbort</strong>" in page
    assert '<h2 id="memberships-heading">Eich aelodaethau</h2>' in page
    assert '<nav class="site-nav" aria-label="Y brif ddewislen">' in page
    assert "<summary>Dewislen</summary>" in page
    assert '<a href="/cy/" aria-current="page">Hafan</a>' in page
    assert '<a href="/cy/jobs/">Eich tasgau</a>' in page
    assert '<a href="/cy/accounts/you/">Eich cyfrif</a>' in page
    assert 'title="Wedi mewngofnodi fel grower"' in page
    assert "Welcome" not in page and "Your account" not in page


def test_a_clerk_s_home_page_offers_their_site_in_welsh(upstream_sandbox):
    site = a_clerk("haulier", a_site())
    clerk = signed_in("haulier")
    page = clerk.get("/cy/").content.decode()
    assert f'<a class="task" href="/cy/intake/sites/{site.code}/">' in page
    assert f"<strong>Derbyn yn {site.name}</strong>" in page
    assert "<span>Cofnodi llwyth, a gweld a chywiro llwythi’r safle.</span>" in page
    assert '<a href="/cy/intake/">Derbyn</a>' in page
    assert IntakeSite.objects.count() == 1


def test_the_memberships_are_in_welsh_and_the_service_s_words_marked_english(
    client: Client, upstream_sandbox
):
    sign_in(client, "grower")
    response = client.get("/cy/memberships/", headers={"HX-Request": "true"})
    page = " ".join(response.content.decode().split())
    assert '<h3 lang="en">Hollowfield Farms Ltd</h3>' in page
    assert page.count('<span class="status status-valid" lang="en">Valid</span>') == 2
    assert "· aelodaeth " in page and "· membership " not in page
    welsh_months = ("Ionawr|Chwefror|Mawrth|Ebrill|Mai|Mehefin|Gorffennaf|Awst|Medi|Hydref"
                    "|Tachwedd|Rhagfyr")  # fmt: skip
    expires = rf'mae’r dystysgrif yn dod i ben ar <span class="nowrap">\d+ ({welsh_months}) \d{{4}}'
    assert re.search(expires, page)
    assert re.search(r'\d+ safle · ardystiwyd ar gyfer <span lang="en">[^<]+</span>', page)


def test_the_empty_memberships_are_in_welsh(client: Client, upstream_sandbox):
    sign_in(client, "haulier")
    page = client.get("/cy/memberships/").content.decode()
    assert "<h1>Eich aelodaethau</h1>" in page
    assert "Nid ydych yn gyswllt cofrestredig ar unrhyw aelodaeth" in page


def test_an_unknown_address_under_cy_gives_the_404_page_in_welsh(client: Client):
    response = client.get("/cy/no-such-page/")
    page = response.content.decode()
    assert (response.status_code, page_language(page)) == (404, "cy")
    assert "<title>Heb ddod o hyd i’r dudalen · Porth sicrwydd</title>" in page
    assert "<h1>Heb ddod o hyd i’r dudalen</h1>" in page
    assert "Does dim byd yn y cyfeiriad hwn." in page
    assert '<a class="button" href="/cy/">Ewch i’r hafan</a>' in page
    english = client.get("/no-such-page/").content.decode()
    assert (page_language(english), "<h1>Page not found</h1>" in english) == ("en-GB", True)


def test_the_500_page_is_in_the_language_of_its_address(
    client: Client, upstream_sandbox, monkeypatch
):
    sign_in(client, "grower")

    def broken(request):
        raise RuntimeError("a secret detail of the failure")

    replace_view(monkeypatch, "home", broken)
    client.raise_request_exception = False
    welsh = client.get("/cy/")
    page = welsh.content.decode()
    assert (welsh.status_code, page_language(page)) == (500, "cy")
    assert "<h1>Aeth rhywbeth o’i le ar ein hochr ni</h1>" in page
    assert '<a class="button" href="/cy/">Ewch i’r hafan</a>' in page
    assert "a secret detail" not in page
    # The next failure at an English address is in English, whatever this thread spoke last.
    with translation.override("cy"):
        english = client.get("/").content.decode()
    assert page_language(english) == "en-GB"
    assert "<h1>Something went wrong on our side</h1>" in english
    assert '<a class="button" href="/">Go to the home page</a>' in english
