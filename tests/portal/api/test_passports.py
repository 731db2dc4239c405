"""The passports' routes, with tokens made on the page as growers make them, against the sandbox
over real HTTP: the business's list (its filters, by cursor), one passport with its record and
its loads at intake, one made or a batch (the form's rules and job), its PDF, by e-mail; a
passport of another business is 404; a sign-in that has ended is 401 upstream_sign_in_needed."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from portal.accounts.models import LatestSignIn
from portal.assurance.service import client as service
from portal.jobs.models import Job
from portal.passports.models import Passport
from tests.demo import HOLLOWFIELD, HOLLOWFIELD_FARM, MAIN_STORE, WENHAM
from tests.jobs import run_queued
from tests.portal.api.builders import bearer, made_on_the_page
from tests.portal.intake.builders import a_load, a_site
from tests.portal.passports.made import made_here, wenham_made_here

pytestmark = pytest.mark.django_db
PASSPORTS = "/api/v1/passports"
READ_AND_WRITE = ["passports:read", "passports:write"]


@pytest.fixture
def token(grower) -> str:
    return made_on_the_page(grower, scopes=READ_AND_WRITE)


@pytest.fixture
def partner_token(partner) -> str:
    """A token of the second contact of Hollowfield Farms only (not of Wenham Grange)."""
    return made_on_the_page(partner, scopes=READ_AND_WRITE)


def got(address: str, token: str, **query: object):
    return Client().get(address, query, headers=bearer(token))


def posted(address: str, token: str, body: dict, key: str | None = None):
    headers = bearer(token) | ({"Idempotency-Key": key} if key else {})
    return Client().post(address, body, content_type="application/json", headers=headers)


def codes_of(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["short_code"] for item in response.json()["items"]]


def queries_of(call) -> int:
    """How many queries `call` sends the database."""
    sent = []

    def count(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        assert call().status_code == 200
    return len(sent)


def a_load_of_wheat(**changed: object) -> dict:
    return {"membership": HOLLOWFIELD, "site": HOLLOWFIELD_FARM, "store": MAIN_STORE,
            "crop_type": "Wheat", "variety": "Extase", "harvest_year": "2026",
            "loading_date": timezone.localdate().isoformat()} | changed  # fmt: skip


class TestTheList:
    def test_it_lists_the_business_s_passports_oldest_first(self, token):
        first, second, wenham = made_here(), made_here(), wenham_made_here()
        listed = got(PASSPORTS, token)
        assert codes_of(listed) == [first, second, wenham]
        item = listed.json()["items"][0]
        assert item["membership_guid"] == HOLLOWFIELD and item["crop_type"] == "Wheat"
        assert item["made_by"] == "grower" and item["intake"] is None
        assert item["url"] == f"/api/v1/passports/{first}"

    def test_it_answers_with_no_session_of_its_own(self, token):
        made_here()
        listed = got(PASSPORTS, token)
        assert codes_of(listed) and not listed.cookies

    def test_another_contact_sees_only_their_memberships(self, token, partner_token):
        hollowfield, wenham = made_here(), wenham_made_here()
        assert codes_of(got(PASSPORTS, partner_token)) == [hollowfield]
        assert wenham in codes_of(got(PASSPORTS, token))

    def test_it_takes_the_list_page_s_filters(self, token):
        made_here()
        wenham = wenham_made_here()
        assert codes_of(got(PASSPORTS, token, membership=WENHAM)) == [wenham]
        assert codes_of(got(PASSPORTS, token, code=wenham[-3:])) == [wenham]
        assert codes_of(got(PASSPORTS, token, decision="none")) != []

    def test_a_filter_the_page_would_refuse_is_refused_with_its_field(self, token):
        made_here()
        refused = got(PASSPORTS, token, crop="Bananas", year="1066")
        assert refused.status_code == 422
        assert set(refused.json()["error"]["fields"]) == {"crop", "year"}

    def test_it_pages_by_cursor_and_gives_what_is_new_since(self, token):
        first, second = made_here(), made_here()
        page = got(PASSPORTS, token, limit=1).json()
        assert [i["short_code"] for i in page["items"]] == [first] and page["has_more"]
        rest = got(PASSPORTS, token, limit=1, cursor=page["next_cursor"]).json()
        assert [i["short_code"] for i in rest["items"]] == [second] and not rest["has_more"]
        later = timezone.now() + timedelta(minutes=1)
        assert codes_of(got(PASSPORTS, token, updated_since=later.isoformat())) == []
        third = made_here()
        assert codes_of(got(PASSPORTS, token, cursor=rest["next_cursor"])) == [third]

    def test_a_longer_page_asks_the_database_no_more(self, token):
        made_here()
        got(PASSPORTS, token)  # the token's first use, and the memberships, kept
        one = queries_of(lambda: got(PASSPORTS, token))
        for _ in range(4):
            made_here()
        assert queries_of(lambda: got(PASSPORTS, token)) == one

    def test_a_site_s_latest_load_is_shown(self, token):
        code = made_here()
        a_load(a_site(), passport=Passport.objects.get(short_code=code))
        [item] = got(PASSPORTS, token).json()["items"]
        assert item["intake"] == {"net_kg": 29_100, "decision": "claim"}


class TestOnePassport:
    def test_it_has_its_record_and_its_loads(self, token):
        code = made_here()
        a_load(a_site(), passport=Passport.objects.get(short_code=code))
        shown = got(f"{PASSPORTS}/{code.lower().replace('-', '')}", token)
        assert shown.status_code == 200, shown.content
        body = shown.json()
        assert body["short_code"] == code
        assert body["record"]["crop_type"] == "Wheat"
        assert body["record"]["don_test_result"] == "412 ppb"
        assert body["record"]["business_name"] == body["business_name"] != ""
        [load] = body["loads"]
        assert (load["ticket"], load["decision"], load["net_kg"]) == ("T-1001", "claim", 29_100)
        weight = next(r for r in load["results"] if r["parameter"].startswith("Specific weight"))
        assert weight["within"] is False and "76" in weight["specification"]
        assert load["claimed"] == "72.75"
        assert load["reasons"] == ["Specific weight below specification"]

    def test_its_values_are_the_same_whatever_language_is_asked(self, token):
        code = made_here()
        a_load(a_site(), passport=Passport.objects.get(short_code=code))
        address = f"{PASSPORTS}/{code}"
        welsh = Client().get(address, headers=bearer(token) | {"accept-language": "cy"})
        assert welsh.status_code == 200
        assert welsh.json() == got(address, token).json()

    def test_a_passport_of_another_business_is_not_found(self, token, partner_token):
        wenham = wenham_made_here()
        for address in (f"{PASSPORTS}/{wenham}", f"{PASSPORTS}/{wenham}/pdf"):
            answer = got(address, partner_token)
            assert answer.status_code == 404
            assert answer.json()["error"]["code"] == "not_found"
        mail = posted(f"{PASSPORTS}/{wenham}/mail", partner_token, {"recipient": "a@b.example"})
        assert mail.status_code == 404
        assert got(f"{PASSPORTS}/{wenham}", token).status_code == 200

    def test_a_code_that_is_no_passport_s_is_not_found(self, token):
        assert got(f"{PASSPORTS}/NOT-ACODE", token).status_code == 404
        assert got(f"{PASSPORTS}/ZZZZ-ZZZZ", token).status_code == 404


class TestMaking:
    def test_one_passport_made_once_for_one_key(self, token, sandbox):
        before = sandbox.count("sandbox_passport")
        made = posted(PASSPORTS, token, a_load_of_wheat(), key="farm-records-1")
        assert made.status_code == 201, made.content
        code = made.json()["short_code"]
        assert made.json()["record"]["variety"] == "Extase"
        again = posted(PASSPORTS, token, a_load_of_wheat(), key="farm-records-1")
        assert again.status_code == 201 and again.json()["short_code"] == code
        assert again["Idempotent-Replayed"] == "true"
        assert sandbox.count("sandbox_passport") == before + 1
        assert Passport.objects.get(short_code=code).made_by.username == "grower"
        assert run_queued("passport-pdf").state == "done"  # its PDF's job, as the form starts

    def test_its_201_is_the_passport_as_it_is_shown(self, token):
        with CaptureQueriesContext(connection) as asked:
            made = posted(PASSPORTS, token, a_load_of_wheat(variety="Skyfall"), key="one")
        assert made.status_code == 201, made.content
        read = [q["sql"] for q in asked.captured_queries if q["sql"].startswith("SELECT")]
        assert not [sql for sql in read if 'FROM "passports_passport"' in sql]  # not read again
        shown = got(made.json()["url"], token)
        assert shown.status_code == 200 and made.json() == shown.json()
        assert made.json()["loads"] == [] and made.json()["intake"] is None
        again = posted(PASSPORTS, token, a_load_of_wheat(variety="Skyfall"), key="one")
        assert again.json() == shown.json()

    def test_the_form_s_rules_refuse_with_the_fields(self, token):
        sent = a_load_of_wheat(harvest_year="1999", membership=WENHAM, site=HOLLOWFIELD_FARM,
                               post_harvest_treatment_option="B")  # fmt: skip
        refused = posted(PASSPORTS, token, sent)
        assert refused.status_code == 422
        fields = refused.json()["error"]["fields"]
        assert {"harvest_year", "site", "post_harvest_treatment_date"} <= set(fields)
        assert Passport.objects.count() == 0

    def test_a_membership_not_theirs_is_refused(self, partner_token):
        refused = posted(PASSPORTS, partner_token, a_load_of_wheat(membership=WENHAM))
        assert refused.status_code == 422 and "membership" in refused.json()["error"]["fields"]

    def test_an_unknown_field_is_refused(self, token):
        refused = posted(PASSPORTS, token, a_load_of_wheat(colour="gold"))
        assert refused.status_code == 422 and "colour" in refused.json()["error"]["fields"]
        assert Passport.objects.count() == 0

    def test_a_batch_is_made_by_the_form_s_job(self, token):
        started = posted(PASSPORTS, token, a_load_of_wheat(loads=3), key="batch-1")
        assert started.status_code == 202, started.content
        batch = started.json()
        assert batch["count"] == 3 and batch["job"]["state"] == "queued"
        assert run_queued("passport-batch").state == "done"
        done = got(batch["url"], token).json()
        assert done["job"]["state"] == "done" and len(done["passports"]) == 3
        assert codes_of(got(PASSPORTS, token)) == done["passports"]

    def test_a_batch_is_only_its_maker_s(self, token, partner_token):
        started = posted(PASSPORTS, token, a_load_of_wheat(loads=2)).json()
        assert got(started["url"], partner_token).status_code == 404
        assert got(f"{PASSPORTS}/batches/{uuid.uuid4()}", token).status_code == 404

    def test_more_loads_than_a_batch_may_have_are_refused(self, token, settings):
        refused = posted(PASSPORTS, token, a_load_of_wheat(loads=settings.PORTAL_BATCH_LIMIT + 1))
        assert refused.status_code == 422 and "loads" in refused.json()["error"]["fields"]
        assert Job.objects.count() == 0

    def test_a_read_only_token_makes_nothing(self, grower):
        read_only = made_on_the_page(grower, scopes=["passports:read"])
        refused = posted(PASSPORTS, read_only, a_load_of_wheat())
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "scope_missing"


class TestPdfAndMail:
    def test_its_pdf_once_its_job_has_fetched_it(self, token):
        code = made_here()
        waiting = got(f"{PASSPORTS}/{code}/pdf", token)
        assert waiting.status_code == 202 and waiting["Retry-After"] == "2"
        assert waiting.json()["state"] == "queued"
        run_queued("passport-pdf")
        pdf = got(f"{PASSPORTS}/{code}/pdf", token)
        assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
        assert b"".join(pdf.streaming_content).startswith(b"%PDF")

    def test_a_fetch_that_failed_says_why_until_it_is_asked_again(self, token, settings):
        code = made_here()
        assert got(f"{PASSPORTS}/{code}/pdf", token).status_code == 202
        settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # nothing answers there
        service.cache_clear()
        assert run_queued("passport-pdf").state == "failed"
        failed = got(f"{PASSPORTS}/{code}/pdf", token)
        assert failed.status_code == 422
        assert failed.json()["error"]["code"] == "pdf_not_fetched"
        assert "did not answer" in failed.json()["error"]["message"]
        settings.ASSURANCE_BASE_URL = self.sandbox_url
        service.cache_clear()
        cache.clear()  # the outage the client remembers
        again = posted(f"{PASSPORTS}/{code}/pdf", token, {})
        assert again.status_code == 202 and again.json()["state"] == "queued"
        run_queued("passport-pdf")
        assert got(f"{PASSPORTS}/{code}/pdf", token).status_code == 200

    @pytest.fixture(autouse=True)
    def _sandbox_url(self, upstream_sandbox) -> None:
        self.sandbox_url = upstream_sandbox.url

    def test_it_is_sent_by_e_mail_by_the_form_s_job(self, token, mail_server):
        code = made_here()
        sent = posted(f"{PASSPORTS}/{code}/mail", token,
                      {"recipient": "intake@buyer.example", "reply_to": "office@farm.example",
                       "note": "For Tuesday's load."}, key="mail-1")  # fmt: skip
        assert sent.status_code == 202, sent.content
        assert sent.json()["passports"] == [code]
        run_queued("passport-mail")
        [mail] = mail_server.received
        assert mail.recipients == ["intake@buyer.example"]
        assert mail.message["Reply-To"] == "office@farm.example"
        again = posted(f"{PASSPORTS}/{code}/mail", token,
                       {"recipient": "intake@buyer.example", "reply_to": "office@farm.example",
                        "note": "For Tuesday's load."}, key="mail-1")  # fmt: skip
        assert again.status_code == 202 and again["Idempotent-Replayed"] == "true"

    def test_a_bad_address_is_refused_with_its_field(self, token):
        code = made_here()
        refused = posted(f"{PASSPORTS}/{code}/mail", token, {"recipient": "not an address"})
        assert refused.status_code == 422
        assert "recipient" in refused.json()["error"]["fields"]


class TestUpstreamSignIn:
    def test_once_it_has_ended_the_answer_says_to_sign_in_again(self, token):
        made_here()
        ended = LatestSignIn.objects.get(user__username="grower").expires
        with time_machine.travel(ended + timedelta(minutes=1)):
            answer = got(PASSPORTS, token)
        assert answer.status_code == 401
        error = answer.json()["error"]
        assert error["code"] == "upstream_sign_in_needed"
        assert "Sign in to the portal again" in error["message"]

    def test_when_the_service_refuses_the_kept_token_the_answer_says_so(self, token, clock):
        clock.advance_clock(31 * 24 * 60 * 60)  # the service's clock: its token has expired
        cache.clear()  # no memberships kept from before
        answer = got(PASSPORTS, token)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "upstream_sign_in_needed"
        assert "sign in to the portal again" in answer.json()["error"]["message"]

    def test_once_its_key_is_dropped_the_kept_token_needs_a_sign_in(self, token, settings):
        settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = "another-key-" * 6, []
        cache.clear()  # no memberships kept from before
        answer = got(PASSPORTS, token)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "upstream_sign_in_needed"

    def test_when_staff_end_every_session_the_token_needs_a_sign_in(self, token, upstream_sandbox):
        from tests.portal.accounts.helpers import signed_in_staff

        grower = get_user_model().objects.get(username="grower")
        staff = signed_in_staff("partner")
        staff.post(f"/staff/users/{grower.pk}/end-sessions")
        answer = posted(PASSPORTS, token, a_load_of_wheat())
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "upstream_sign_in_needed"
