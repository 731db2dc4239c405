"""The webhooks pages in Welsh under /cy/: their headings, buttons, errors beside fields and
messages; an endpoint's disabling reason in the page's language while it is kept in English; the
mail telling its owners it was disabled in each owner's language; and the events sent the same,
byte for byte, whatever the language of the page that sent them."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone

from portal.jobs.models import Job
from portal.outbox import delivering, mailing
from portal.outbox.models import Endpoint, Event
from tests.demo import HOLLOWFIELD
from tests.jobs import run
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, an_endpoint
from tests.portal.pages import page_language
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db

ADDRESS = "http://127.0.0.1:9/hooks"  # never sent to in these tests


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS


def test_the_webhooks_page_is_in_welsh_under_cy(grower):
    an_endpoint(ADDRESS)
    page = grower.get("/cy/webhooks/")
    words = text(page)
    assert (page.status_code, page_language(page)) == (200, "cy")
    assert "<title>Webhooks" in page.content.decode()
    assert "Ychwanegwch bwynt terfyn i’w derbyn." in words and "Wedi’i alluogi" in words
    assert 'href="/cy/webhooks/new"' in page.content.decode()


def test_adding_an_endpoint_is_in_welsh_and_a_bad_address_says_why_in_welsh(grower):
    page = text(grower.get("/cy/webhooks/new"))
    assert "Ychwanegu pwynt terfyn" in page and "Digwyddiadau pwy" in page
    assert "Ychwanegu’r pwynt terfyn" in page and "Cofnodwyd llwyth wrth dderbyn" in page
    form = {"owner": f"business-{HOLLOWFIELD}", "url": "https://10.0.0.1/hooks",
            "event_types": ["passport.created"]}  # fmt: skip
    refused = grower.post("/cy/webhooks/new", form)
    words = text(refused)
    assert refused.status_code == 400
    assert "Ni ychwanegwyd pwynt terfyn. Gwiriwch yr hyn sydd wedi’i farcio isod." in words
    assert ("Mae 10.0.0.1 yn arwain at 10.0.0.1, cyfeiriad preifat: nid anfonir webhooks "
            "yno.") in words  # fmt: skip
    assert not Endpoint.objects.exists()


def test_an_endpoint_s_page_and_its_messages_are_in_welsh(grower):
    endpoint, _ = an_endpoint(ADDRESS)
    page = text(grower.get(f"/cy/webhooks/{endpoint.pk}/"))
    assert "Pwynt terfyn webhook" in page and "Cofnod danfon" in page
    assert "Anfon digwyddiad prawf" in page and "Newid y gyfrinach" in page
    assert "Nid oes digwyddiad wedi’i anfon yma eto." in page
    sent = grower.post(f"/cy/webhooks/{endpoint.pk}/test", follow=True)
    assert "Mae digwyddiad prawf (ping) ar ei ffordd" in text(sent)
    disabled = grower.post(f"/cy/webhooks/{endpoint.pk}/disable", follow=True)
    words = text(disabled)
    assert "Mae’r pwynt terfyn wedi’i analluogi: nid anfonir dim digwyddiad ato." in words
    assert "Wedi’i analluogi: Analluogwyd gan ei berchennog." in words
    assert Endpoint.objects.get().disabled_reason == "Disabled by its owner."  # kept in English
    assert "Disabled: Disabled by its owner." in text(grower.get(f"/webhooks/{endpoint.pk}/"))


def test_a_day_refused_for_sending_again_says_why_in_welsh(grower):
    endpoint, _ = an_endpoint(ADDRESS)
    tomorrow = timezone.localdate() + timedelta(days=1)
    answered = grower.post(f"/cy/webhooks/{endpoint.pk}/resend-failed",
                           {"since": tomorrow.isoformat()}, follow=True)  # fmt: skip
    assert "Ni anfonwyd dim eto: Dewiswch heddiw neu ddiwrnod cynt." in text(answered)


def test_a_delivery_s_page_is_in_welsh(grower):
    endpoint, _ = an_endpoint(ADDRESS)
    grower.post(f"/webhooks/{endpoint.pk}/test")
    delivery = endpoint.deliveries.get()
    page = text(grower.get(f"/cy/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/"))
    assert "Danfon ping" in page and "Ymgeisiau" in page and "Anfon eto" in page


def test_the_events_are_the_same_whatever_the_language_of_the_page(grower):
    endpoint, _ = an_endpoint(ADDRESS)
    with time_machine.travel(timezone.now(), tick=False):
        grower.post(f"/cy/webhooks/{endpoint.pk}/test")
        grower.post(f"/webhooks/{endpoint.pk}/test")
    welsh, english = Event.objects.order_by("pk")
    assert welsh.body.encode() == english.body.encode()
    assert "A test event from the assurance portal." in welsh.body


def disabled_for_failing(email: str) -> Endpoint:
    """The mail the grower is sent when their endpoint is disabled for failing five days."""
    get_user_model().objects.filter(username="grower").update(email=email)
    endpoint, _ = an_endpoint(ADDRESS)
    assert delivering.disable(endpoint, "Every delivery failed for 5 days.", tell_owners=True)
    assert run(Job.objects.get(kind=mailing.KIND)).state == Job.State.DONE
    return endpoint


def test_the_disabled_mail_is_in_welsh_to_an_owner_who_chose_welsh(grower, mail_server):
    grower.post("/accounts/you/", {"email": "", "intake_mail": "on", "language": "cy"})
    endpoint = disabled_for_failing("grower@example.com")
    (mail,) = mail_server.wait_for(1)
    body = mail.body("plain")
    assert mail.message["Subject"] == "Cafodd webhooks i un o’ch cyfeiriadau eu hatal"
    assert "Methodd pob danfoniad o ddigwyddiadau webhook" in body
    assert "Methodd pob danfoniad am 5 diwrnod." in body
    assert f"/cy/webhooks/{endpoint.pk}/" in body and endpoint.url in body
    assert "Every delivery" not in body
    assert Job.objects.get(kind=mailing.KIND).title == "E-bost: webhooks wedi’u hatal"


def test_the_disabled_mail_is_in_both_asking_to_an_owner_who_has_not_chosen(grower, mail_server):
    disabled_for_failing("grower@example.com")
    (mail,) = mail_server.wait_for(1)
    body = mail.body("plain")
    assert mail.message["Subject"] == ("Cafodd webhooks i un o’ch cyfeiriadau eu hatal / "
                                       "Webhooks to an address of yours were stopped")  # fmt: skip
    assert body.index("Methodd pob danfoniad am 5 diwrnod.") < body.index(
        "Every delivery failed for 5 days."
    )
    assert "Mae’r e-bost hwn yn Gymraeg ac yn Saesneg am nad ydych wedi dewis iaith eto." in body
    assert "because you have not yet chosen a language" in body
