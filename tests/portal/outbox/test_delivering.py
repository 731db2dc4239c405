"""A delivery's attempts, against a receiver on 127.0.0.1: signed as Standard Webhooks say (the
`standardwebhooks` package verifies each as a receiver would), the same webhook-id at every
try, retried on the schedule, redirects not followed, a late answer a failure, 410 and five
days of failures disabling the endpoint, Retry-After honoured, and the sweep's share."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone
from werkzeug import Response

from portal.jobs.models import Job
from portal.outbox import delivering, endpoints, events, mailing, sending, tasks
from portal.outbox.models import Attempt, Delivery, Endpoint, EventType
from tests.demo import HOLLOWFIELD
from tests.jobs import run
from tests.portal.outbox.builders import an_endpoint, verified

pytestmark = pytest.mark.django_db

DATA = {"passport": {"short_code": "ABCD1234", "status": "created"}}


def a_delivery(url: str, **endpoint: object) -> tuple[Delivery, str]:
    """A passport.created for the grower's business, to a new endpoint at `url`."""
    _, secret = an_endpoint(url, **endpoint)
    event = events.emit(EventType.PASSPORT_CREATED, DATA, membership_guid=HOLLOWFIELD)
    return event.deliveries.get(), secret


def attempt_one(delivery: Delivery) -> float | None:
    """An attempt at the one delivery, as a task of it alone makes it: the seconds until its
    next, if any."""
    return delivering.attempt([delivery.pk]).waits.get(delivery.pk)


def state_of(delivery: Delivery) -> Delivery:
    return Delivery.objects.get(pk=delivery.pk)


def test_a_delivery_is_signed_and_delivered(receiver):
    receiver.expect_request("/in", method="POST").respond_with_data("x" * 5000)
    delivery, secret = a_delivery(receiver.url_for("/in"))
    assert attempt_one(delivery) is None
    ((request, _),) = receiver.log
    payload = verified(secret, request)
    assert payload["type"] == "passport.created" and payload["data"] == DATA
    assert request.headers["webhook-id"] == delivery.event.uid
    delivered = state_of(delivery)
    assert (delivered.state, delivered.tries, delivered.last_status) == ("delivered", 1, 200)
    attempt = Attempt.objects.get(delivery=delivery)
    assert attempt.status == 200 and attempt.trouble == "" and len(attempt.answer) == 4096


def test_a_failure_is_tried_again_after_about_5_s_with_the_same_webhook_id(receiver):
    receiver.expect_oneshot_request("/in").respond_with_data("busy", status=500)
    receiver.expect_request("/in").respond_with_data("", status=204)
    delivery, secret = a_delivery(receiver.url_for("/in"))
    wait = attempt_one(delivery)
    assert 4.5 <= wait <= 5.5
    assert state_of(delivery).state == "pending"
    assert attempt_one(delivery) is None and len(receiver.log) == 1  # not yet due
    with time_machine.travel(timezone.now() + timedelta(seconds=6)):
        attempt_one(delivery)
        ids = {request.headers["webhook-id"] for request, _ in receiver.log}
        assert ids == {delivery.event.uid}
        verified(secret, receiver.log[1][0])
    assert state_of(delivery).state == "delivered"
    assert [a.status for a in Attempt.objects.filter(delivery=delivery)] == [500, 204]


def test_it_gives_up_after_eight_attempts_on_the_schedule(receiver, settings):
    receiver.expect_request("/in").respond_with_data("down", status=503)
    delivery, _ = a_delivery(receiver.url_for("/in"))
    waits = []
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        for _ in range(8):
            waits.append(attempt_one(delivery))
            if waits[-1] is not None:
                traveller.shift(timedelta(seconds=waits[-1] + 1))
    assert waits[-1] is None and state_of(delivery).state == "failed"
    assert settings.PORTAL_WEBHOOK_RETRY_SECONDS == [0, 5, 300, 1800, 7200, 18000, 36000, 36000]
    for wait, planned in zip(waits[:-1], settings.PORTAL_WEBHOOK_RETRY_SECONDS[1:], strict=True):
        assert planned * 0.9 <= wait <= planned * 1.1
    assert len(receiver.log) == 8


def test_an_answer_of_410_disables_the_endpoint_and_fails_what_waits(receiver):
    receiver.expect_request("/in").respond_with_data("gone", status=410)
    delivery, _ = a_delivery(receiver.url_for("/in"))
    waiting = events.emit(EventType.PASSPORT_SENT, DATA, membership_guid=HOLLOWFIELD)
    attempt_one(delivery)
    endpoint = Endpoint.objects.get()
    assert not endpoint.enabled and "410" in endpoint.disabled_reason
    assert state_of(delivery).state == "failed"
    assert waiting.deliveries.get().state == "failed"
    assert not Job.objects.filter(kind=mailing.KIND).exists()  # they asked for it


def test_a_retry_after_longer_than_the_schedule_is_honoured(receiver):
    receiver.expect_request("/in").respond_with_data("", status=429, headers={"Retry-After": "120"})
    delivery, _ = a_delivery(receiver.url_for("/in"))
    assert attempt_one(delivery) == 120
    assert state_of(delivery).next_attempt >= timezone.now() + timedelta(seconds=115)


def test_a_redirect_is_not_followed(receiver):
    receiver.expect_request("/in").respond_with_data(
        "", status=302, headers={"Location": receiver.url_for("/elsewhere")})  # fmt: skip
    delivery, _ = a_delivery(receiver.url_for("/in"))
    attempt_one(delivery)
    assert [request.path for request, _ in receiver.log] == ["/in"]
    attempt = Attempt.objects.get()
    assert attempt.status == 302 and "redirect" in attempt.trouble
    assert state_of(delivery).state == "pending"


def test_an_answer_later_than_the_time_out_is_a_failure(receiver, settings):
    settings.PORTAL_WEBHOOK_TIMEOUT_SECONDS = 1

    def slow(request):
        time.sleep(1.5)
        return Response("late", status=200)

    receiver.expect_request("/in").respond_with_handler(slow)
    delivery, _ = a_delivery(receiver.url_for("/in"))
    attempt_one(delivery)
    attempt = Attempt.objects.get()
    assert "within 1 seconds" in attempt.trouble
    assert state_of(delivery).state == "pending"


def test_an_address_refused_when_it_is_sent_is_a_failure_without_a_request(receiver, settings):
    receiver.expect_request("/in").respond_with_data("")
    delivery, _ = a_delivery(receiver.url_for("/in"))
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = []  # as in production
    attempt_one(delivery)
    assert receiver.log == []
    attempt = Attempt.objects.get()
    assert attempt.status is None and "loopback" in attempt.trouble


def test_failing_for_five_days_disables_the_endpoint_and_mails_its_owners(receiver, mail_server):
    receiver.expect_request("/in").respond_with_data("", status=500)
    delivery, _ = a_delivery(receiver.url_for("/in"))
    Endpoint.objects.update(failing_since=timezone.now() - timedelta(days=4, hours=23))
    attempt_one(delivery)
    assert Endpoint.objects.get().enabled
    Endpoint.objects.update(failing_since=timezone.now() - timedelta(days=5, seconds=1))
    Delivery.objects.update(next_attempt=timezone.now())
    get_user_model().objects.filter(username="grower").update(email="grower@example.com")
    attempt_one(delivery)
    endpoint = Endpoint.objects.get()
    assert not endpoint.enabled and "5 days" in endpoint.disabled_reason
    assert run(Job.objects.get(kind=mailing.KIND)).state == Job.State.DONE
    (mail,) = mail_server.wait_for(1)
    assert mail.recipients == ["grower@example.com"]
    assert endpoint.url in mail.body("plain")


def test_a_delivery_that_worked_ends_the_failing_spell(receiver):
    receiver.expect_request("/in").respond_with_data("")
    delivery, _ = a_delivery(receiver.url_for("/in"))
    Endpoint.objects.update(failing_since=timezone.now() - timedelta(days=2))
    attempt_one(delivery)
    assert Endpoint.objects.get().failing_since is None


def test_a_delivery_held_by_one_worker_is_not_sent_by_another(receiver):
    delivery, _ = a_delivery(receiver.url_for("/in"))
    assert delivering.claim([delivery.pk]) == [delivery]
    assert delivering.claim([delivery.pk]) == []
    with time_machine.travel(timezone.now() + delivering.hold() + timedelta(seconds=1)):
        assert delivering.claim([delivery.pk]) == [delivery]  # its worker died holding it


def test_the_sweep_takes_what_is_overdue_once_in_a_while(receiver, settings):
    delivery, _ = a_delivery(receiver.url_for("/in"))
    assert delivering.overdue() == []  # its own task has it
    later = timezone.now() + timedelta(seconds=settings.PORTAL_WEBHOOK_OVERDUE_SECONDS + 1)
    with time_machine.travel(later):
        assert delivering.overdue() == [delivery.pk]
        assert delivering.overdue() == []  # sent by the last sweep: its task has it now


def test_resend_sends_the_same_event_again(receiver):
    receiver.expect_request("/in").respond_with_data("")
    delivery, secret = a_delivery(receiver.url_for("/in"))
    attempt_one(delivery)
    assert events.resend(delivery)
    attempt_one(delivery)
    first, second = (request for request, _ in receiver.log)
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery.event.uid
    verified(secret, second)
    assert state_of(delivery).state == "delivered"


def test_send_again_all_that_failed_since(receiver):
    receiver.expect_request("/in").respond_with_data("")
    delivery, _ = a_delivery(receiver.url_for("/in"))
    Delivery.objects.update(state=Delivery.State.FAILED)
    endpoint = Endpoint.objects.get()
    assert events.resend_failed_since(endpoint, timezone.now() + timedelta(minutes=1)) == 0
    assert events.resend_failed_since(endpoint, timezone.now() - timedelta(days=1)) == 1
    attempt_one(delivery)
    assert state_of(delivery).state == "delivered"


def test_a_rolled_secret_and_the_one_it_replaced_both_sign_for_a_day(receiver):
    receiver.expect_request("/in").respond_with_data("")
    delivery, old = a_delivery(receiver.url_for("/in"))
    new = endpoints.roll_secret(Endpoint.objects.get())
    attempt_one(delivery)
    request = receiver.log[0][0]
    verified(old, request)
    verified(new, request)
    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1)):
        assert Endpoint.objects.get().signing_secrets() == [new]


def test_a_test_event_goes_to_that_endpoint_alone(receiver):
    receiver.expect_request("/in").respond_with_data("")
    endpoint, secret = an_endpoint(receiver.url_for("/in"), event_types=["passport.created"])
    an_endpoint(receiver.url_for("/other"))
    delivery = events.send_test(endpoint).deliveries.get()
    attempt_one(delivery)
    assert verified(secret, receiver.log[0][0])["type"] == "ping"


def test_deliveries_sent_together_each_come_to_their_own_end(receiver):
    receiver.expect_request("/ok").respond_with_data("")
    receiver.expect_request("/busy").respond_with_data("busy", status=500)
    receiver.expect_request("/gone").respond_with_data("gone", status=410)
    secrets = {path: an_endpoint(receiver.url_for(path))[1] for path in ("/ok", "/busy", "/gone")}
    first = events.emit(EventType.PASSPORT_CREATED, DATA, membership_guid=HOLLOWFIELD)
    second = events.emit(EventType.PASSPORT_SENT, DATA, membership_guid=HOLLOWFIELD)
    by_path = {(d.event_id, d.endpoint.url.rsplit("/", 1)[1]): d
               for d in Delivery.objects.select_related("endpoint")}  # fmt: skip
    waits = delivering.attempt(list(Delivery.objects.values_list("pk", flat=True))).waits
    assert len(receiver.log) == 6
    for request, _ in receiver.log:
        payload = verified(secrets[request.path], request)
        assert request.headers["webhook-id"] in (first.uid, second.uid)
        assert payload["type"] in ("passport.created", "passport.sent")
    states = {key: state_of(delivery).state for key, delivery in by_path.items()}
    assert states == {(event.pk, path): state for event in (first, second)
                      for path, state in (("ok", "delivered"), ("busy", "pending"),
                                          ("gone", "failed"))}  # fmt: skip
    busy = {by_path[(event.pk, "busy")].pk for event in (first, second)}
    assert waits.keys() == busy and all(4.5 <= wait <= 5.5 for wait in waits.values())
    assert Attempt.objects.count() == 6
    assert {e.url.rsplit("/", 1)[1]: e.enabled for e in Endpoint.objects.all()} == {
        "ok": True, "busy": True, "gone": False}  # fmt: skip
    assert Endpoint.objects.get(url=receiver.url_for("/busy")).failing_since is not None


def test_deliveries_held_by_one_worker_are_left_out_of_anothers_claim(receiver):
    an_endpoint(receiver.url_for("/in"))
    an_endpoint(receiver.url_for("/other"))
    one, other = events.emit(EventType.PASSPORT_CREATED, DATA,
                             membership_guid=HOLLOWFIELD).deliveries.order_by("pk")  # fmt: skip
    assert delivering.claim([one.pk]) == [one]
    assert delivering.claim([one.pk, other.pk]) == [other]
    assert delivering.claim([one.pk, other.pk]) == []


def test_a_delivery_whose_sending_breaks_fails_that_attempt_alone(receiver, monkeypatch):
    receiver.expect_request("/in").respond_with_data("")
    an_endpoint(receiver.url_for("/in"))
    broken, _ = an_endpoint(receiver.url_for("/broken"))
    posting = sending.post

    def post(url: str, body: bytes, headers: dict[str, str]) -> sending.Outcome:
        if url == broken.url:
            raise KeyError("a fault of the portal's own")
        return posting(url, body, headers)

    monkeypatch.setattr(sending, "post", post)
    event = events.emit(EventType.PASSPORT_CREATED, DATA, membership_guid=HOLLOWFIELD)
    waits = delivering.attempt(list(event.deliveries.values_list("pk", flat=True))).waits
    assert [request.path for request, _ in receiver.log] == ["/in"]
    states = {d.endpoint.url: (d.state, d.tries) for d in event.deliveries.all()}
    assert states == {receiver.url_for("/in"): ("delivered", 1),
                      broken.url: ("pending", 1)}  # fmt: skip
    broke = Attempt.objects.get(delivery__endpoint=broken)
    assert broke.status is None and "KeyError" in broke.trouble
    assert list(waits) == [event.deliveries.get(endpoint=broken).pk]


def test_a_tasks_deliveries_are_claimed_a_few_dozen_at_a_time(receiver, settings, monkeypatch):
    settings.PORTAL_WEBHOOK_SENDS_AT_ONCE = 2  # claims of 16
    receiver.expect_request("/in").respond_with_data("")
    an_endpoint(receiver.url_for("/in"))
    made = [events.emit(EventType.PASSPORT_CREATED, {"n": n}, membership_guid=HOLLOWFIELD)
            for n in range(40)]  # fmt: skip
    ids = [event.deliveries.get().pk for event in made]
    claimed = []
    claim = delivering.claim

    def counted(delivery_ids):
        claimed.append(len(list(delivery_ids)))
        return claim(delivery_ids)

    monkeypatch.setattr(delivering, "claim", counted)
    attempted = delivering.attempt(ids)
    assert claimed == [16, 16, 8] and attempted == delivering.Attempted({}, [])
    assert len(receiver.log) == 40
    assert set(Delivery.objects.values_list("state", flat=True)) == {"delivered"}
    assert Delivery.objects.filter(held_until__isnull=False).count() == 0


def test_a_task_whose_time_is_up_claims_no_more_and_hands_the_rest_on(
    receiver, settings, monkeypatch
):
    settings.PORTAL_WEBHOOK_SENDS_AT_ONCE = 1  # claims of 8
    monkeypatch.setattr(tasks, "HAND_ON_SECONDS", 0)  # up after the first claim
    handed_on = []
    monkeypatch.setattr(tasks.deliver, "apply_async",
                        lambda args, **options: handed_on.append(args[0]))  # fmt: skip
    receiver.expect_request("/in").respond_with_data("")
    an_endpoint(receiver.url_for("/in"))
    made = [events.emit(EventType.PASSPORT_CREATED, {"n": n}, membership_guid=HOLLOWFIELD)
            for n in range(20)]  # fmt: skip
    ids = [event.deliveries.get().pk for event in made]
    tasks.deliver(ids)  # as a worker runs it
    assert handed_on == [ids[8:]] and len(receiver.log) == 8
    states = dict(Delivery.objects.values_list("pk", "state"))
    assert [states[pk] for pk in ids] == ["delivered"] * 8 + ["pending"] * 12
    assert Delivery.objects.filter(held_until__isnull=False).count() == 0  # for the next task
