"""The soak's check of webhooks (soak/check.py): an event committed for the receiver's endpoint
and never taken is lost, one taken that is no event of the portal's is unexpected, one change
taken under two webhook-ids is doubled; the same id taken twice (a retry) counts nothing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from soak import check

RECEIVER = "http://127.0.0.1:9999/"


def delivery(uid: str, state: str = "delivered", url: str = RECEIVER) -> dict:
    return {"uid": uid, "type": "intake.load.recorded", "state": state, "url": url}


def taken(uid: str, entry: int, timestamp: str = "2026-11-29T01:00:00Z") -> dict:
    body = {"type": "intake.load.recorded", "timestamp": timestamp,
            "data": {"load": {"id": 1}, "entry": {"id": entry, "kind": "recorded"}}}  # fmt: skip
    return {"headers": {"webhook-id": uid}, "body": json.dumps(body)}


def checked(deliveries: list[dict], received: list[dict], tmp_path: Path) -> check.Checked:
    rows = {"passports": [], "mailings": [], "events": [], "jobs": [], "loads": [],
            "result_mails": [], "webhook_deliveries": deliveries}  # fmt: skip
    return check.check([], rows, Counter(), check.Mails(), tmp_path, received, RECEIVER)


def test_each_event_taken_once_or_retried_under_its_id_counts_nothing(tmp_path: Path):
    deliveries = [delivery("msg_a"), delivery("msg_b"), delivery("msg_c", url="https://x/")]
    found = checked(deliveries, [taken("msg_a", 1), taken("msg_a", 1), taken("msg_b", 2)], tmp_path)
    assert found.counts() == {"lost": 0, "doubled": 0, "stuck": 0, "unexpected": 0}
    assert found.webhooks == {"events": 2, "taken": 3}


def test_lost_unexpected_and_doubled_are_each_counted(tmp_path: Path):
    found = checked(
        [delivery("msg_a"), delivery("msg_b", state="failed"), delivery("msg_c")],
        [taken("msg_a", 1), taken("msg_c", 1, "2026-11-29T01:00:05Z"), taken("msg_x", 3)],
        tmp_path,
    )
    assert found.lost.count == 1 and "msg_b" in found.lost.examples[0]
    assert found.unexpected.count == 1 and "msg_x" in found.unexpected.examples[0]
    assert found.doubled.count == 1


def test_what_the_receiver_kept_is_read_back(tmp_path: Path):
    (tmp_path / "1.json").write_text(json.dumps(
        {"received": "2026-11-29T01:00:00+00:00", "path": "/", "body": "{}",
         "headers": {"Webhook-Id": "msg_a"}}))  # fmt: skip
    assert check.received_webhooks(tmp_path)[0]["headers"] == {"webhook-id": "msg_a"}
