"""Emitting an event: the event and one delivery for each endpoint of its owners that wants
it, written in the caller's transaction and sent once it commits, with the other deliveries
that transaction made (a task for each PORTAL_WEBHOOK_DELIVERIES_A_TASK); nothing for a change
rolled back, nor for a savepoint rolled back, and nothing to anyone else's endpoint."""

from __future__ import annotations

import json

import pytest
from django.db import transaction

from portal.outbox import delivering, events, tasks
from portal.outbox.models import Delivery, Event, EventType
from tests.demo import HOLLOWFIELD, WENHAM
from tests.portal.intake.builders import a_site
from tests.portal.outbox.builders import an_endpoint

pytestmark = pytest.mark.django_db

DATA = {"load": {"id": 1}, "status": "accepted", "url": "https://portal.example/api/v1/x"}


def test_it_writes_a_delivery_for_each_endpoint_of_the_business_and_the_site_alone():
    site, other_site = a_site(), a_site(code="elsewhere", name="Elsewhere")
    business, _ = an_endpoint("https://farm.example/in")
    at_site, _ = an_endpoint("https://mill.example/in", site=site)
    an_endpoint("https://other-farm.example/in", membership_guid=WENHAM)
    an_endpoint("https://other-mill.example/in", site=other_site)
    event = events.emit(EventType.LOAD_RECORDED, DATA, membership_guid=HOLLOWFIELD,
                        site_id=site.pk)  # fmt: skip
    assert {d.endpoint for d in event.deliveries.all()} == {business, at_site}
    body = json.loads(event.body)
    assert body["type"] == "intake.load.recorded" and body["data"] == DATA
    assert body["timestamp"].endswith("Z")


def test_an_endpoint_gets_only_the_types_it_chose_and_none_while_disabled():
    an_endpoint("https://farm.example/in", event_types=["passport.created"])
    assert events.emit(EventType.LOAD_RECORDED, DATA, membership_guid=HOLLOWFIELD) is None
    wanted, _ = an_endpoint("https://farm.example/other", event_types=["intake.load.recorded"])
    wanted.enabled = False
    wanted.save()
    assert events.emit(EventType.LOAD_RECORDED, DATA, membership_guid=HOLLOWFIELD) is None
    assert not Event.objects.exists()


def test_it_is_sent_once_the_change_commits(django_capture_on_commit_callbacks):
    an_endpoint("https://farm.example/in")
    with django_capture_on_commit_callbacks() as sent:
        events.emit(EventType.PASSPORT_CREATED, DATA, membership_guid=HOLLOWFIELD)
    assert len(sent) == 1
    assert Delivery.objects.get().state == Delivery.State.PENDING


def test_a_change_rolled_back_leaves_no_event_and_sends_nothing(django_capture_on_commit_callbacks):
    an_endpoint("https://farm.example/in")
    with (
        django_capture_on_commit_callbacks() as sent,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        events.emit(EventType.PASSPORT_CREATED, DATA, membership_guid=HOLLOWFIELD)
        raise RuntimeError("the change failed")
    assert sent == []
    assert not Event.objects.exists() and not Delivery.objects.exists()


def test_a_body_of_20_kb_or_more_is_refused():
    an_endpoint("https://farm.example/in")
    with pytest.raises(ValueError, match="20480"):
        events.emit(EventType.PASSPORT_CREATED, {"x": "a" * 20_480}, membership_guid=HOLLOWFIELD)


@pytest.fixture
def tasks_sent(monkeypatch) -> list[list[int]]:
    """The deliveries of each task sent to the workers, in turn (the broker left out)."""
    sent: list[list[int]] = []
    monkeypatch.setattr(tasks.deliver, "apply_async",
                        lambda args, **options: sent.append(args[0]))  # fmt: skip
    return sent


def test_a_transactions_deliveries_go_together_a_few_dozen_a_task(
    settings, tasks_sent, django_capture_on_commit_callbacks
):
    settings.PORTAL_WEBHOOK_DELIVERIES_A_TASK = 3
    an_endpoint("https://farm.example/in")
    an_endpoint("https://farm.example/other")
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        for n in range(4):
            events.emit(EventType.PASSPORT_CREATED, {"n": n}, membership_guid=HOLLOWFIELD)
        assert tasks_sent == []  # not before it commits
    made = list(Delivery.objects.order_by("pk").values_list("pk", flat=True))
    assert tasks_sent == [made[0:3], made[3:6], made[6:8]]


def test_a_savepoint_rolled_back_sends_nothing_of_its_own_and_takes_nothing_else_with_it(
    receiver, settings, tasks_sent, django_capture_on_commit_callbacks
):
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    receiver.expect_request("/in").respond_with_data("")
    an_endpoint(receiver.url_for("/in"))
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic():  # the first emitted, undone
            events.emit(EventType.PASSPORT_CREATED, {"n": "undone"}, membership_guid=HOLLOWFIELD)
            raise RuntimeError("the change failed")
        kept = events.emit(EventType.PASSPORT_CREATED, {"n": "kept"}, membership_guid=HOLLOWFIELD)
        with pytest.raises(RuntimeError), transaction.atomic():
            events.emit(EventType.PASSPORT_SENT, {"n": "undone"}, membership_guid=HOLLOWFIELD)
            raise RuntimeError("the change failed")
    (sent,) = tasks_sent
    assert kept.deliveries.get().pk in sent
    delivering.attempt(sent)  # as its task does
    assert [json.loads(request.get_data())["data"] for request, _ in receiver.log] == [
        {"n": "kept"}
    ]
    assert Delivery.objects.get().state == Delivery.State.DELIVERED
