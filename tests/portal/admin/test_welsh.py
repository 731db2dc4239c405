"""Django's admin under /cy/admin/ in Welsh: Django's own words (with the corrections of
locale/corrections: "Gorffennaf" for July, Welsh where Django has none), the portal's own
(titles, actions, their messages, filters; the names of its apps, records and their fields),
and the admin's scripts' calendar; and Django's forms' and password rules' errors corrected
wherever the portal shows them."""

from __future__ import annotations

import re
from datetime import date, datetime

import pytest
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone, translation
from django.utils.text import capfirst

from portal.jobs.models import Job
from tests.portal.accounts.helpers import sign_in, signed_in, signed_in_staff
from tests.portal.jobs.conftest import new_job
from tests.portal.passports.helpers import HEADER_CELL, text, words

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


def test_the_admin_s_index_names_our_apps_and_records_in_welsh(upstream_sandbox):
    superuser = signed_in_staff("grower", superuser=True)  # to see every record the admin has
    index = text(superuser.get("/cy/admin/"))
    for welsh in ("Tasgau", "Pasbortau", "Anfoniadau e-bost", "Trywydd archwilio", "Digwyddiadau",
                  "Canlyniadau derbyn", "Safleoedd derbyn", "Llwythi", "Tocynnau",
                  "Blwch allan y webhooks", "Danfoniadau", "Pwyntiau terfyn",
                  "Cynigion i fewngofnodi"):  # fmt: skip
        assert welsh in index
    english = names_in_english()
    assert {"Jobs", "Passports", "Audit trail", "Intake sites", "Access attempts"} <= english
    assert [name for name in english if name in index] == []


def names_in_english() -> set[str]:
    """The names the admin's index gives in English to the apps and records it lists, but
    Django's own (which Django's catalogue says in Welsh) and "API" (the same in both)."""
    with translation.override("en-gb"):
        registered = [m._meta for m in admin.site._registry if m._meta.app_label != "auth"]
        names = {str(capfirst(name)) for opts in registered
                 for name in (opts.app_config.verbose_name, opts.verbose_name_plural)}  # fmt: skip
    return names - {"API"}


@pytest.mark.parametrize(
    ("language", "columns"),
    [("/cy", ["ID", "Math", "Teitl", "Perchennog", "Cyflwr", "Wedi’u gwneud", "Cyfanswm",
              "Crëwyd", "Gorffennwyd"]),
     ("", ["ID", "Kind", "Title", "Owner", "State", "Done", "Total", "Created", "Finished"])],
)  # fmt: skip
def test_a_list_names_its_columns_in_the_page_s_language(staff, language, columns):
    new_job(staff)
    assert column_headers(staff.get(f"{language}/admin/jobs/job/")) == columns


def column_headers(response) -> list[str]:
    table = re.search(r'<table id="result_list">.*?</thead>', response.content.decode(), re.S)
    return [header for header in map(words, HEADER_CELL.findall(table[0])) if header]


def test_a_form_names_its_fields_and_explains_them_in_welsh(staff):
    adding = staff.get("/cy/admin/intake/intakesite/add/")
    form = adding.content.decode()
    labels = [
        words(label) for _, label in re.findall(r"<(label|legend)[^>]*>(.*?)</\1>", form, re.S)
    ]
    assert labels[:4] == ["Enw:", "Busnes y prynwr:", "Cod:", "Clercod:"]
    page = text(adding)
    assert "Enw byr, fel y mae `grant_intake` yn ei gymryd." in page
    assert "Cnwd Paramedr Isaf Uchaf" in page  # its specifications' columns
    assert "Gwenith Haidd Had rêp Ffa Pys" in page
    for english in ("Buyer business", "Clerks", "A short name", "Lowest", "Wheat", "Barley"):
        assert english not in page
    job = new_job(staff)
    viewed = text(staff.get(f"/cy/admin/jobs/job/{job.pk}/change/"))
    assert f"{job.kind} #{job.pk} (Yn aros i ddechrau)" in viewed  # its title
    assert "Perchennog: grower" in viewed and "Paramedrau:" in viewed
    assert "Beth mae’r dasg yn ei wneud, i bobl." in viewed


def test_the_failed_sign_ins_say_in_welsh_how_many_tries_are_left(staff, settings):
    settings.AXES_FAILURE_LIMIT = 3
    assert sign_in(Client(), "lapsed", "not-the-password").status_code == 400
    listed = staff.get("/cy/admin/axes/accessattempt/")
    assert column_headers(listed)[:7] == ["Amser y cynnig", "Cyfeiriad IP", "Asiant defnyddiwr",
                                          "Enw defnyddiwr", "Llwybr", "Mewngofnodion a fethodd",
                                          "Statws"]  # fmt: skip
    assert "lapsed" in text(listed) and "2 gynnig ar ôl" in text(listed)
    assert "2 attempts left" in text(staff.get("/admin/axes/accessattempt/"))


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
