"""What the tests of a site's loads many at once share (its uploads, its software's door): the
site, a clerk of it (the demo `haulier`, signed in through the portal), and a passport the grower
made."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from portal.intake.models import IntakeSite
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import a_site
from tests.portal.passports.made import made_here


@pytest.fixture
def site(db) -> IntakeSite:
    return a_site()


@pytest.fixture
def clerk(upstream_sandbox, site) -> Client:
    """The demo haulier signed in, made a clerk of the site."""
    client = signed_in("haulier")
    site.clerks.add(get_user_model().objects.get(username="haulier"))
    return client


@pytest.fixture
def code(grower) -> str:
    """The short code of a wheat passport the grower made here."""
    return made_here()
