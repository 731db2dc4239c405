"""The staff dashboard under /cy/staff/: its headings, verdicts, figures, tables, charts' words
and messages in Welsh; its codes (operations, kinds of job) as they are."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.portal.accounts.helpers import signed_in, signed_in_staff
from tests.portal.passports.helpers import text, words

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(upstream_sandbox) -> Client:
    return signed_in_staff("grower", superuser=True)


def test_the_dashboard_is_in_welsh(staff):
    response = staff.get("/cy/staff/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="cy"' in html
    shown = text(response)
    for said in ("Dangosfwrdd y staff", "Nawr", "Y gwasanaeth Sicrwydd", "Gweithwyr",
                 "Yr ysgubiad cyfnodol", "Cloeon mewn grym", "Gwallau’r porth",
                 "Galwadau yn yr awr ddiwethaf", "Gweithrediad", "95ed canradd",
                 "Defnydd yn y diwrnod diwethaf", "Mewngofnodion", "Pasbortau a wnaed mewn sypiau",
                 "Cyfradd trawiadau storfa dros dro’r safonau", "Sesiynau gweithredol",
                 "Pwy fewngofnododd yn y diwrnod diwethaf", "Dod â phob sesiwn i ben",
                 "Tasgau yn y diwrnod diwethaf", "Tueddiadau", "Y rhifau"):  # fmt: skip
        assert said in shown, said
    # The charts' titles, descriptions and words for a screen reader.
    assert '<title id="chart-1-title">Pasbortau a wnaed bob dydd</title>' in html
    assert "Y pasbortau a wnaed bob dydd yn ystod y 30 diwrnod diwethaf." in html
    assert "Mae’r rhifau yn y tabl isod." in html
    assert "Galwadau i’r gwasanaeth fesul awr" in html
    main = words(html.split('<main id="main"', 1)[1].split("</main>", 1)[0])
    for english in ("Staff dashboard", "Use in the last day", "Sign-ins", "The numbers", "Calls"):
        assert english not in main, english


def test_its_figures_refreshed_by_htmx_are_in_welsh(staff):
    fragment = staff.get("/cy/staff/", headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment
    assert "Defnydd yn y diwrnod diwethaf" in fragment


def test_ending_a_user_s_sessions_says_so_in_welsh(staff):
    partner = signed_in("partner")
    user = get_user_model().objects.get(username="partner")
    page = staff.get("/cy/staff/").content.decode()
    assert "Dod â phob sesiwn i ben ar gyfer partner" in page
    answer = staff.post(f"/cy/staff/users/{user.pk}/end-sessions", follow=True)
    assert answer.redirect_chain[-1][0].startswith("/cy/staff/")
    assert "Daeth pob sesiwn partner i ben: rhaid iddynt fewngofnodi eto." in text(answer)
    assert partner.get("/passports/")["Location"].startswith("/accounts/sign-in/")
