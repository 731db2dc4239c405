"""Django's admin under /cy/admin/ in Welsh: Django's own words (with the corrections of
locale/corrections: "Gorffennaf" for July, Welsh where Django has none), the portal's own
(titles, actions, their messages, filters), and the admin's scripts' calendar; and Django's
forms' and password rules' errors corrected wherever the portal shows them."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone, translation

from portal.jobs.models import Job
from tests.portal.accounts.helpers import signed_in, signed_in_staff
from tests.portal.jobs.conftest import new_job
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(upstream_sandbox) -> Client:
    return signed_in_staff("grower")


def test_the_admin_s_index_is_in_welsh(staff):
    response = staff.get("/cy/admin/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="cy"' in html
    words = text(response)
    assert "Gweinyddu’r porth sicrwydd" in words  # ours
    assert "Cofnodion y porth ei hun" in words
    assert "Gweithredoedd diweddar" in words and "Fy ngweithredoedd" in words  # Django's, filled in
    assert "Neidio i’r prif gynnwys" in words
    assert "Recent actions" not in words and "Skip to main content" not in words


def test_a_list_writes_july_as_gorffennaf_and_names_our_filters_in_welsh(staff):
    job = new_job(staff)
    july = timezone.make_aware(datetime(2026, 7, 9, 14, 30))
    Job.objects.filter(pk=job.pk).update(created=july)
    jobs = text(staff.get("/cy/admin/jobs/job/"))
    assert "9 Gorffennaf 2026, 14:30" in jobs
    assert "Gorffenaf" not in jobs.replace("Gorffennaf", "")
    assert "Rhoi cynnig arall ar y tasgau a fethodd a ddewiswyd, fel eu perchnogion" in jobs
    events = text(staff.get("/cy/admin/audit/event/"))
    assert "Wrth math" in events  # our filter's title, in Django's words
    assert "Unrhyw ddyddiad" in events and "Dangos y niferoedd" in events


def test_our_actions_say_what_they_did_in_welsh(staff):
    signed_in("partner")
    partner = get_user_model().objects.get(username="partner")
    said = text(staff.post("/cy/admin/auth/user/", {
        "action": "end_all_sessions", "_selected_action": [partner.pk],
    }, follow=True))  # fmt: skip
    assert "Daeth pob sesiwn 1 defnyddiwr i ben." in said
    job = new_job(staff)
    said = text(staff.post("/cy/admin/jobs/job/", {
        "action": "cancel_jobs", "_selected_action": [job.pk],
    }, follow=True))  # fmt: skip
    assert "Canslwyd 1 dasg." in said


def test_the_admin_s_scripts_speak_welsh(staff):
    script = staff.get("/cy/admin/jsi18n/").content.decode()
    assert "Gorffennaf" in script and "Dewiswch ddyddiad" in script and "Dydd Llun" in script
    assert "Gorffenaf" not in script.replace("Gorffennaf", "")


def test_django_s_form_errors_are_corrected():
    with translation.override("cy"):
        with pytest.raises(ValidationError) as bad_date:
            forms.DateField().clean("31/02/2026")
        assert bad_date.value.messages == ["Rhowch ddyddiad dilys."]
        with pytest.raises(ValidationError) as bad_number:
            forms.IntegerField().clean("dau")
        assert bad_number.value.messages == ["Rhowch rif cyfan."]
        with pytest.raises(ValidationError) as too_big:
            forms.IntegerField(max_value=5).clean("6")
        assert too_big.value.messages == ["Sicrhewch fod y gwerth hwn yn llai na neu’n hafal i 5."]
        assert translation.gettext("July") == "Gorffennaf"
        assert date(2026, 7, 9).strftime("%m") == "07"


def test_the_password_rules_are_in_welsh():
    with translation.override("cy"):
        with pytest.raises(ValidationError) as short:
            password_validation.MinimumLengthValidator(8).validate("1234")
        assert short.value.messages == ["Mae’r cyfrinair hwn yn rhy fyr. Rhaid iddo gynnwys o "
                                        "leiaf 8 nod."]  # fmt: skip
        with pytest.raises(ValidationError) as numeric:
            password_validation.NumericPasswordValidator().validate("12345678")
        assert numeric.value.messages == ["Rhifau yn unig yw’r cyfrinair hwn."]
        assert "rhy debyg" in password_validation.UserAttributeSimilarityValidator().get_help_text()
