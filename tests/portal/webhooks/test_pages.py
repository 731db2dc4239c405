"""The webhooks pages: the grower registers an endpoint of their business (its secret shown
once), sends a test event, rolls the secret, disables it; a bad address changes nothing; an
endpoint of a business they are no contact of, or of a site they are no clerk of, is not
found; a site's clerk manages the site's."""

from __future__ import annotations

import re

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.test import Client

from portal.outbox.models import Delivery, Endpoint
from tests.demo import COLDHARBOUR, HOLLOWFIELD, WENHAM
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import a_signed_in_clerk, a_site
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, an_endpoint

pytestmark = pytest.mark.django_db

ADDRESS = "http://127.0.0.1:9/hooks"  # never sent to in these tests


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS


def registered(client: Client, **fields: object):
    form = {"owner": f"business-{HOLLOWFIELD}", "url": ADDRESS,
            "event_types": ["intake.load.recorded", "passport.created"]} | fields  # fmt: skip
    return client.post("/webhooks/new", form)


def test_the_grower_registers_an_endpoint_and_sees_its_secret_once(grower):
    page = grower.get("/webhooks/new")
    assert page.status_code == 200 and "Hollowfield" in page.content.decode()
    response = registered(grower)
    endpoint = Endpoint.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/webhooks/{endpoint.pk}/"
    assert (endpoint.membership_guid, endpoint.url) == (HOLLOWFIELD, ADDRESS)
    assert endpoint.event_types == ["intake.load.recorded", "passport.created"]
    waiting = Session.objects.get(pk=grower.session.session_key).session_data
    shown = grower.get(f"/webhooks/{endpoint.pk}/").content.decode()
    secret = re.search(r"whsec_[A-Za-z0-9+/=]+", shown)[0]
    assert secret not in SessionStore().decode(waiting).values()  # sealed while it waited
    assert endpoint.signing_secrets() == [secret]
    assert secret not in endpoint.secret  # kept encrypted
    assert "whsec_" not in grower.get(f"/webhooks/{endpoint.pk}/").content.decode()
    assert ADDRESS in grower.get("/webhooks/").content.decode()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://10.0.0.1/hooks", "a private address"),
        ("https://169.254.169.254/latest", "a link-local address"),
        ("ftp://127.0.0.1/hooks", "Give an https:// address"),
        ("https://127.0.0.1/" + "a" * 2000, "at most 2,000 characters"),
        ("", "This field is required"),
    ],
)
def test_an_address_refused_says_why_and_changes_nothing(grower, url, said):
    response = registered(grower, url=url)
    assert response.status_code == 400
    assert said in response.content.decode()
    assert not Endpoint.objects.exists()


def test_no_event_chosen_or_another_business_is_refused(grower):
    assert registered(grower, event_types=[]).status_code == 400
    assert registered(grower, owner=f"business-{COLDHARBOUR}").status_code == 400
    assert not Endpoint.objects.exists()


def test_a_test_event_roll_and_disable(grower):
    registered(grower)
    endpoint = Endpoint.objects.get()
    assert grower.post(f"/webhooks/{endpoint.pk}/test").status_code == 302
    assert Delivery.objects.get().event.type == "ping"
    grower.post(f"/webhooks/{endpoint.pk}/roll")
    shown = grower.get(f"/webhooks/{endpoint.pk}/").content.decode()
    assert "The secret it replaces signs each event too" in shown
    assert len(Endpoint.objects.get().signing_secrets()) == 2
    grower.post(f"/webhooks/{endpoint.pk}/disable")
    assert not Endpoint.objects.get().enabled
    grower.post(f"/webhooks/{endpoint.pk}/enable")
    assert Endpoint.objects.get().enabled


def test_the_log_shows_each_delivery_and_refreshes_as_a_fragment(grower):
    registered(grower)
    endpoint = Endpoint.objects.get()
    grower.post(f"/webhooks/{endpoint.pk}/test")
    page = grower.get(f"/webhooks/{endpoint.pk}/").content.decode()
    assert "Waiting to be sent" in page and 'hx-trigger="every 3s"' in page
    fragment = grower.get(f"/webhooks/{endpoint.pk}/", headers={"HX-Request": "true"})
    assert "<html" not in fragment.content.decode() and "ping" in fragment.content.decode()
    delivery = Delivery.objects.get()
    one = grower.get(f"/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/").content.decode()
    assert delivery.event.uid in one and "No attempt yet" in one


def test_an_endpoint_of_anyone_else_is_not_found(grower, partner):
    theirs, _ = an_endpoint(ADDRESS, membership_guid=WENHAM)  # the grower's, not the partner's
    mill, _ = an_endpoint(ADDRESS, site=a_site())
    for path in ("/", "/deliveries/1/"):
        assert partner.get(f"/webhooks/{theirs.pk}{path}").status_code == 404
        assert grower.get(f"/webhooks/{mill.pk}{path}").status_code == 404
    for action in ("test", "roll", "disable", "resend-failed"):
        assert partner.post(f"/webhooks/{theirs.pk}/{action}").status_code == 404
    assert Endpoint.objects.filter(enabled=True).count() == 2
    assert not Delivery.objects.exists()
    assert grower.get(f"/webhooks/{theirs.pk}/").status_code == 200


def test_a_clerk_manages_the_sites_endpoints(upstream_sandbox):
    site = a_site()
    clerk = a_signed_in_clerk(site)
    assert f"site-{site.code}" in clerk.get("/webhooks/new").content.decode()
    response = clerk.post("/webhooks/new", {"owner": f"site-{site.code}", "url": ADDRESS,
                                            "event_types": ["intake.query.opened"]})  # fmt: skip
    assert response.status_code == 302
    endpoint = Endpoint.objects.get()
    assert endpoint.site == site and endpoint.membership_guid == ""
    assert clerk.get(f"/webhooks/{endpoint.pk}/").status_code == 200


def test_signed_out_is_sent_to_sign_in(client):
    assert client.get("/webhooks/").status_code == 302


def test_resend_failed_since_refuses_a_day_to_come(grower):
    registered(grower)
    endpoint = Endpoint.objects.get()
    response = grower.post(f"/webhooks/{endpoint.pk}/resend-failed", {"since": "2999-01-01"},
                           follow=True)  # fmt: skip
    assert "Choose today or a day before" in response.content.decode()


def test_someone_of_no_business_finds_nothing(upstream_sandbox):
    client = signed_in("lapsed")
    theirs, _ = an_endpoint(ADDRESS)
    assert client.get(f"/webhooks/{theirs.pk}/").status_code == 404


def test_an_owner_has_at_most_so_many_endpoints_enabled(grower, settings):
    settings.PORTAL_WEBHOOK_ENDPOINTS_PER_OWNER = 2
    assert registered(grower).status_code == 302
    assert registered(grower).status_code == 302
    refused = registered(grower)
    assert refused.status_code == 400 and "the most it may" in refused.content.decode()
    first = Endpoint.objects.earliest("created")
    grower.post(f"/webhooks/{first.pk}/disable")
    assert registered(grower).status_code == 302
    grower.post(f"/webhooks/{first.pk}/enable")
    assert not Endpoint.objects.get(pk=first.pk).enabled


def test_test_events_are_limited_a_minute(grower):
    registered(grower)
    endpoint = Endpoint.objects.get()
    for _ in range(6):
        response = grower.post(f"/webhooks/{endpoint.pk}/test", follow=True)
    assert "at most 5 test events a minute" in response.content.decode()
    assert Delivery.objects.count() == 5
