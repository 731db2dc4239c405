"""The upstream token of a user's latest sign-in, kept for the requests their API tokens make
(portal.accounts.latest_sign_in): stored and renewed by each real sign-in through the sandbox,
given to the portal's own request-based code for a request made with an API token, and refused
(sign-in needed) once expired, forgotten by staff, or unreadable after a change of key."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.utils import timezone

from portal.accounts import credentials, latest_sign_in
from portal.accounts.latest_sign_in import UpstreamSignInNeeded
from portal.accounts.models import LatestSignIn
from portal.accounts.session import user_credentials
from portal.assurance.errors import AuthenticationRequired
from portal.assurance.service import client as service
from portal.jobs.actions import start_job
from portal.passports import contacts, making
from portal.passports.tasks import passport_pdf
from tests.demo import HOLLOWFIELD
from tests.portal.accounts.helpers import sign_in, signed_in, signed_in_staff
from tests.portal.passports.made import SOME_OF_THE_LOAD

pytestmark = pytest.mark.django_db

DAY = 24 * 60 * 60


def user(username: str = "grower"):
    return get_user_model().objects.get(username=username)


def kept_token(username: str = "grower") -> str:
    return credentials.decrypt(LatestSignIn.objects.get(user=user(username)).token)


def with_api_token(username: str = "grower"):
    """A request as the API's authentication hands it on: no session, the token's user, and
    `token_auth` set."""
    request = RequestFactory().post("/api/v1/passports")
    request.user = user(username)
    request.token_auth = True
    return request


def the_session_s(client: Client) -> tuple[str, object]:
    session = client.session
    return credentials.decrypt(session[credentials.TOKEN_KEY]), credentials.expires(session)


class TestKeeping:
    def test_a_sign_in_keeps_its_token_and_expiry_encrypted(self, client, upstream_sandbox):
        sign_in(client, "grower")
        token, expires = the_session_s(client)
        kept = LatestSignIn.objects.get(user=user())
        assert token not in kept.token
        assert credentials.decrypt(kept.token) == token
        assert kept.expires == expires
        assert timedelta(days=29) < kept.expires - timezone.now() <= timedelta(days=30)

    def test_every_sign_in_renews_it(self, client, clock, upstream_sandbox):
        sign_in(client, "grower")
        first = LatestSignIn.objects.get(user=user())
        clock.advance_clock(10 * DAY)
        with time_machine.travel(timezone.now() + timedelta(days=10)):
            sign_in(Client(), "grower@example.com")
        renewed = LatestSignIn.objects.get(user=user())
        assert LatestSignIn.objects.count() == 1
        assert credentials.decrypt(renewed.token) != credentials.decrypt(first.token)
        assert renewed.expires - first.expires >= timedelta(days=10)

    def test_each_user_keeps_their_own(self, upstream_sandbox):
        signed_in("grower")
        signed_in("partner")
        assert kept_token("grower") != kept_token("partner")
        answer = service().authorisation(latest_sign_in.credentials(user("partner")))
        assert answer.username == "partner"

    def test_signing_out_of_the_browser_keeps_it(self, upstream_sandbox):
        browser = signed_in("grower")
        browser.post("/accounts/sign-out/")
        assert latest_sign_in.credentials(user()).token == kept_token()


class TestARequestMadeWithAnApiToken:
    def test_it_acts_with_the_latest_sign_in_s_token(self, upstream_sandbox):
        signed_in("grower")
        latest = signed_in("grower")
        assert user_credentials(with_api_token()).token == the_session_s(latest)[0]

    def test_the_portal_s_own_code_asks_the_service_with_it(self, upstream_sandbox):
        signed_in("grower")
        request = with_api_token()
        assert HOLLOWFIELD in [m.membership_guid for m in contacts.memberships(request)]
        made = making.make_once(request, uuid.uuid4(), SOME_OF_THE_LOAD).passport
        assert made.short_code and made.made_by == user()
        assert service().passport(user_credentials(request), made.short_code)

    def test_a_job_it_starts_keeps_that_token(self, upstream_sandbox):
        signed_in("grower")
        job = start_job(with_api_token(), passport_pdf, "A PDF", {"short_code": "ABC"})
        assert credentials.decrypt(job.credential) == kept_token()

    def test_read_with_the_token_s_user_it_is_not_asked_for_again(
        self, upstream_sandbox, django_assert_num_queries
    ):
        signed_in("grower")
        get_user_model().objects.create(username="nobody")
        users = get_user_model().objects.select_related("latest_sign_in")
        found, never = users.get(username="grower"), users.get(username="nobody")
        kept = kept_token()
        with django_assert_num_queries(0):  # as portal.api.tokens.find reads a token's user
            assert latest_sign_in.credentials(found).token == kept
            with pytest.raises(UpstreamSignInNeeded):
                latest_sign_in.credentials(never)

    def test_asked_once_for_a_request_however_often_it_is_used(
        self, upstream_sandbox, django_assert_num_queries
    ):
        signed_in("grower")
        request = with_api_token()
        with django_assert_num_queries(1):  # the service is called, and a job started, with it
            assert user_credentials(request).token == user_credentials(request).token

    def test_a_session_s_request_still_acts_with_its_own_token(self, upstream_sandbox):
        first = signed_in("grower")
        token, _ = the_session_s(first)
        signed_in("grower")  # a later sign-in elsewhere
        request = RequestFactory().get("/")
        request.user, request.session = user(), first.session
        assert user_credentials(request).token == token != kept_token()


class TestSignInNeeded:
    def test_it_is_needed_by_a_user_who_never_signed_in(self, db):
        nobody = get_user_model().objects.create(username="nobody")
        with pytest.raises(UpstreamSignInNeeded):
            latest_sign_in.credentials(nobody)

    def test_it_is_needed_once_the_token_has_expired(self, upstream_sandbox):
        signed_in("grower")
        expires = LatestSignIn.objects.get(user=user()).expires
        with time_machine.travel(expires - timedelta(minutes=1)):
            assert latest_sign_in.credentials(user()).token == kept_token()
        with time_machine.travel(expires), pytest.raises(UpstreamSignInNeeded) as needed:
            user_credentials(with_api_token())
        assert isinstance(needed.value, AuthenticationRequired)  # as the client's own refusal
        assert "Sign in to the portal again" in needed.value.message

    def test_signing_in_again_ends_the_need(self, client, clock, upstream_sandbox):
        signed_in("grower")
        later = timezone.now() + timedelta(days=31)
        clock.advance_clock(31 * DAY)
        with time_machine.travel(later):
            with pytest.raises(UpstreamSignInNeeded):
                latest_sign_in.credentials(user())
            sign_in(client, "grower")
            token = latest_sign_in.credentials(user())
            assert service().authorisation(token).username == "grower"

    def test_it_is_needed_once_its_key_is_dropped(self, upstream_sandbox, settings):
        settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = "", []
        signed_in("grower")
        settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = "new-key-" * 8, []
        with pytest.raises(UpstreamSignInNeeded):
            user_credentials(with_api_token())

    def test_it_reads_while_the_old_key_is_a_fallback(self, upstream_sandbox, settings):
        settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = "old-key-" * 8, []
        signed_in("grower")
        settings.PORTAL_TOKEN_KEY, settings.PORTAL_TOKEN_KEY_FALLBACKS = (
            "new-key-" * 8,
            ["old-key-" * 8],
        )
        assert service().authorisation(user_credentials(with_api_token())).username == "grower"

    def test_staff_ending_every_session_forget_it(self, upstream_sandbox):
        signed_in("grower")
        staff = signed_in_staff("partner")
        answer = staff.post(f"/staff/users/{user().pk}/end-sessions", follow=True)
        assert answer.status_code == 200
        with pytest.raises(UpstreamSignInNeeded):
            latest_sign_in.credentials(user())
        assert latest_sign_in.credentials(user("partner"))  # nobody else's forgotten
