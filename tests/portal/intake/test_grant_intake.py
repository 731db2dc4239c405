"""`manage.py grant_intake USERNAME SITE`: an account made a clerk of a site, by its code or
name, and no longer one with --revoke; a site that is not there is said, with those that are."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from portal.audit.models import Event
from tests.portal.intake.builders import a_site

pytestmark = pytest.mark.django_db


def granted(*args: str) -> str:
    out = StringIO()
    call_command("grant_intake", *args, stdout=out)
    return out.getvalue().strip()


def test_an_account_is_made_a_clerk_of_a_site_by_its_code_or_name_and_no_longer():
    site = a_site()
    assert granted("intake", "stour-valley-sudbury") == (
        "intake is now a clerk of Stour Valley Grain, Sudbury."
    )
    clerk = get_user_model().objects.get(username="intake")
    assert list(clerk.intake_sites.all()) == [site]
    assert granted("intake", "Stour Valley Grain, Sudbury", "--revoke").endswith(
        "no longer a clerk of Stour Valley Grain, Sudbury."
    )
    assert not clerk.intake_sites.exists()
    recorded = Event.objects.filter(kind=Event.Kind.INTAKE_CLERKS).order_by("at", "pk")
    assert [(e.username, e.detail["of"], e.detail["change"]) for e in recorded] == [
        ("command line", "intake", "added"), ("command line", "intake", "removed"),
    ]  # fmt: skip


def test_a_site_that_is_not_there_is_said_with_those_that_are():
    a_site()
    with pytest.raises(
        CommandError,
        match=r"No intake site is called 'nowhere' \(sites by code: stour-valley-sudbury\)",
    ):
        granted("intake", "nowhere")
    assert not get_user_model().objects.filter(username="intake").exists()
