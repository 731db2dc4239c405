"""The check, after the last fault and the quiet period: what the load asked for (its
operations, soak/locustfile.py) against what the portal's database, the service's database and
the mail server hold.

- lost: asked for and accepted, never done (a batch short of passports, an export without its
  file, a mail sent that never arrived, a passport the portal said it made and did not keep, a
  load the clerk's form recorded and the portal did not keep, an upload's job done with rows
  neither recorded nor refused, an intake result's mail sent that never arrived);
- doubled: a passport recorded twice, more passports at the service than a batch asked for
  (beyond the one a worker killed mid-call may leave: docs/interface.md), a mail arriving
  twice, an intake result's mail arriving more often than loads were recorded or corrected, an
  audit event written twice;
- stuck: a job neither done nor failed in words;
- unexpected: anything done that nobody asked for;
- webhooks: an event committed for the receiver's endpoint that it never took (lost), one it
  took that is no event of the portal's (unexpected), and one change taken under two
  webhook-ids (doubled; the same id twice is a retry, which a receiver expects).
"""

from __future__ import annotations

import email
import json
import re
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from email import policy
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

OPERATION_ID = re.compile(r"\b(?:single|batch|mail)-[0-9a-f]{12}\b")
MAIL_OPERATION_ID = re.compile(r"\bmail-[0-9a-f]{12}\b")  # in the sender's message
RESULT_MAIL_TICKET = re.compile(r"\(ticket ([^)\s]+)\)")  # templates/intake/mail/result.txt
UPLOADED_TICKET = re.compile(r"^(upload-[0-9a-f]{12})-\d+$")  # soak/locustfile.py, Clerk
TICKET = "HaulierCollectionTicketNo"  # the record's field that carries the operation's id
ENDED = ("done", "failed", "cancelled")
JOB_KINDS = {"batch": "passport-batch", "export": "passport-export", "mail": "passport-mail",
             "upload": "intake-upload"}  # fmt: skip


@dataclass
class Finding:
    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, what: str, n: int = 1) -> None:
        self.count += n
        if len(self.examples) < 20:
            self.examples.append(what)


@dataclass
class Checked:
    lost: Finding = field(default_factory=Finding)
    doubled: Finding = field(default_factory=Finding)
    stuck: Finding = field(default_factory=Finding)
    unexpected: Finding = field(default_factory=Finding)
    # Passports at the service the portal never heard of: a batch's worker killed mid-call
    # may leave one (docs/interface.md); an operation with no answer may have made one.
    service_extra: Finding = field(default_factory=Finding)
    failed_in_words: Counter = field(default_factory=Counter)  # a job's message: how many
    finished: dict[int, float] = field(default_factory=dict)  # job id: when it was done
    # Webhooks to the receiver's endpoint: events committed, and deliveries the receiver took.
    webhooks: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name).count
                for name in ("lost", "doubled", "stuck", "unexpected")}  # fmt: skip


def read_operations(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def portal_rows(database_url: str) -> dict[str, list[dict[str, Any]]]:
    url = database_url.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url, row_factory=dict_row) as db:
        return {
            "passports": db.execute(
                "SELECT id, short_code, batch, batch_position, origin,"
                " record->>'HaulierCollectionTicketNo' AS ticket FROM passports_passport"
            ).fetchall(),
            "jobs": db.execute(
                "SELECT id, kind, state, message, done, total, params, result, owner_id,"
                " extract(epoch FROM created) AS created,"
                " extract(epoch FROM finished) AS finished FROM jobs_job"
            ).fetchall(),
            "mailings": db.execute(
                "SELECT id, note, job_id, sent, message_id FROM passports_mailing"
            ).fetchall(),
            "events": db.execute("SELECT kind, detail FROM audit_event").fetchall(),
            "loads": db.execute("SELECT id, ticket FROM intake_load").fetchall(),
            "webhook_deliveries": db.execute(
                "SELECT e.uid, e.type, d.state, p.url FROM outbox_delivery d"
                " JOIN outbox_event e ON e.id = d.event_id"
                " JOIN outbox_endpoint p ON p.id = d.endpoint_id"
            ).fetchall(),
            "result_mails": db.execute(
                "SELECT m.id, m.job_id, m.sent, l.ticket FROM intake_resultmail m"
                " JOIN intake_loadentry e ON e.id = m.entry_id"
                " JOIN intake_load l ON l.id = e.load_id"
            ).fetchall(),
        }


def service_tickets(sandbox_database: Path) -> Counter:
    """The service's passports by their collection ticket (the soak's operation id)."""
    uri = f"file:{sandbox_database}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        rows = db.execute("SELECT haulier_collection_ticket_no FROM sandbox_passport").fetchall()
    return Counter(ticket for (ticket,) in rows if ticket)


@dataclass
class Mails:
    """The mails the server kept: passports sent, counted by the operation id in their text;
    intake results, counted by the ticket they name; and the Message-IDs of those that name
    neither."""

    by_operation: Counter = field(default_factory=Counter)
    by_ticket: Counter = field(default_factory=Counter)
    strangers: list[str] = field(default_factory=list)


def kept_mails(maildir: Path) -> Mails:
    mails = Mails()
    for path in sorted(maildir.glob("*/*")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        text = " ".join(part.get_content() for part in message.walk()
                        if part.get_content_type() == "text/plain")  # fmt: skip
        ids = set(MAIL_OPERATION_ID.findall(text))
        ticket = RESULT_MAIL_TICKET.search(text)
        if len(ids) == 1:
            mails.by_operation[ids.pop()] += 1
        elif ticket and not ids:
            mails.by_ticket[ticket[1]] += 1
        else:
            mails.strangers.append(str(message["Message-ID"]))
    return mails


def received_webhooks(folder: Path) -> list[dict[str, Any]]:
    """What the soak's receiver took (scripts/webhook_receiver.py): each with its headers (by
    lower-case name) and body."""
    taken = []
    for path in sorted(folder.glob("*.json")):
        kept = json.loads(path.read_text(encoding="utf-8"))
        kept["headers"] = {name.lower(): value for name, value in kept["headers"].items()}
        taken.append(kept)
    return taken


def check(
    operations: list[dict[str, Any]], rows: dict[str, list[dict[str, Any]]],
    at_service: Counter, mails: Mails, jobs_dir: Path,
    webhooks: list[dict[str, Any]] | None = None, receiver_url: str = "",
) -> Checked:  # fmt: skip
    checked = Checked()
    jobs = {job["id"]: job for job in rows["jobs"]}
    checked.finished = {job["id"]: float(job["finished"]) for job in rows["jobs"]
                        if job["state"] == "done" and job["finished"]}  # fmt: skip
    for job in jobs.values():
        if job["state"] not in ENDED or (job["state"] == "failed" and not job["message"]):
            checked.stuck.add(f"job {job['id']} ({job['kind']}) {job['state']}: {job['message']}")
        elif job["state"] == "failed":
            said = re.sub(r"\d+", "N", job["message"])  # "3 of 12 made": one line for all
            checked.failed_in_words[f"{job['kind']}: {said}"] += 1
    in_portal = Counter(p["ticket"] for p in rows["passports"] if p["ticket"])
    by_kind = defaultdict(list)
    for operation in operations:
        by_kind[operation["kind"]].append(operation)
    _check_singles(checked, by_kind["single"], in_portal, at_service)
    _check_batches(checked, by_kind["batch"], jobs, in_portal, at_service)
    _check_exports(checked, by_kind["export"], jobs, jobs_dir)
    _check_mails(checked, by_kind["mail"], jobs, rows["mailings"], mails)
    loads = Counter(load["ticket"] for load in rows["loads"])
    _check_records(checked, by_kind["record"], loads)
    _check_uploads(checked, by_kind["upload"], jobs, loads)
    _check_result_mails(checked, rows["result_mails"], jobs, mails.by_ticket, loads)
    _check_unasked(checked, operations, in_portal, at_service)
    _check_events(checked, rows["events"], by_kind["export"])
    if receiver_url:
        to_receiver = [d for d in rows.get("webhook_deliveries", [])
                       if d["url"].startswith(receiver_url)]  # fmt: skip
        _check_webhooks(checked, to_receiver, webhooks or [])
    return checked


def _check_webhooks(checked: Checked, deliveries: list[dict], taken: list[dict]) -> None:
    checked.webhooks = {"events": len(deliveries), "taken": len(taken)}
    ids = Counter(one["headers"].get("webhook-id", "") for one in taken)
    changes: dict[str, set[str]] = defaultdict(set)  # a change (the body but its time): its ids
    for one in taken:
        try:
            body = json.loads(one["body"])
            change = json.dumps({"type": body["type"], "data": body["data"]}, sort_keys=True)
        except (ValueError, KeyError, TypeError):
            checked.unexpected.add(f"webhook {one['headers'].get('webhook-id')}: not an event")
            continue
        changes[change].add(one["headers"].get("webhook-id", ""))
    for delivery in deliveries:
        if delivery["uid"] not in ids:
            checked.lost.add(f"webhook {delivery['type']} {delivery['uid']} never taken "
                             f"({delivery['state']})")  # fmt: skip
    for stranger in ids.keys() - {d["uid"] for d in deliveries}:
        checked.unexpected.add(f"webhook {stranger}: no event of the portal's", ids[stranger])
    for change, under in changes.items():
        if len(under) > 1:
            checked.doubled.add(f"webhook {change[:120]} under {len(under)} webhook-ids",
                                len(under) - 1)  # fmt: skip


def _check_singles(checked: Checked, singles: list[dict], in_portal: Counter,
                   at_service: Counter) -> None:  # fmt: skip
    for operation in singles:
        ticket = operation["id"]
        kept, made = in_portal[ticket], at_service[ticket]
        if operation["outcome"] == "done" and kept == 0:
            checked.lost.add(f"{ticket}: the portal showed {operation['told'].get('code')}, "
                             "which it did not keep")  # fmt: skip
        if kept > 1:
            checked.doubled.add(f"{ticket}: {kept} passports recorded for one form", kept - 1)
        if made > max(kept, 1):
            checked.doubled.add(f"{ticket}: {made} passports at the service for one form",
                                made - max(kept, 1))  # fmt: skip
        elif made > kept:
            checked.service_extra.add(f"{ticket} ({operation['outcome']}: "
                                      f"{operation['message'][:80]})")  # fmt: skip


def _check_batches(checked: Checked, batches: list[dict], jobs: dict[int, dict],
                   in_portal: Counter, at_service: Counter) -> None:  # fmt: skip
    by_ticket = {job["params"].get("request", {}).get(TICKET): job
                 for job in jobs.values() if job["kind"] == JOB_KINDS["batch"]}  # fmt: skip
    for operation in batches:
        ticket, count = operation["id"], operation["asked"]["count"]
        job = by_ticket.get(ticket)
        kept, made = in_portal[ticket], at_service[ticket]
        if operation["outcome"] == "done" and job is None:
            checked.lost.add(f"{ticket}: its job {operation['told'].get('job')} is not there")
            continue
        if job is not None and job["state"] == "done" and kept < count:
            checked.lost.add(f"{ticket}: job {job['id']} done with {kept} of {count} passports",
                             count - kept)  # fmt: skip
        if kept > count:
            checked.doubled.add(f"{ticket}: {kept} passports recorded for {count}", kept - count)
        extra = made - max(kept, 0)
        if extra > 1:
            checked.doubled.add(f"{ticket}: {extra} passports at the service beyond the "
                                f"{kept} recorded", extra - 1)  # fmt: skip
        if extra >= 1:
            checked.service_extra.add(f"{ticket}: job {job and job['id']}")


def _check_exports(checked: Checked, exports: list[dict], jobs: dict[int, dict],
                   jobs_dir: Path) -> None:  # fmt: skip
    told = {op["told"].get("job"): op for op in exports if op["told"].get("job")}
    unanswered = [op for op in exports if op["outcome"] == "unknown"]
    for job in jobs.values():
        if job["kind"] != JOB_KINDS["export"]:
            continue
        if job["id"] not in told and not _claimed_by(job, unanswered):
            checked.unexpected.add(f"export job {job['id']} that no operation asked for")
        if job["state"] == "done" and not (jobs_dir / job["result"]).is_file():
            checked.lost.add(f"export job {job['id']} done without its file")
    for job_id, operation in told.items():
        if job_id not in jobs:
            checked.lost.add(f"{operation['id']}: its job {job_id} is not there")


def _claimed_by(job: dict, unanswered: list[dict]) -> bool:
    """An export job started by an operation that had no answer (the first unclaimed one
    asked around its time), which it then claims."""
    for operation in unanswered:
        if operation["started"] - 5 <= job["created"] <= operation["ended"] + 5:
            unanswered.remove(operation)
            return True
    return False


def _check_mails(checked: Checked, asked: list[dict], jobs: dict[int, dict],
                 mailings: list[dict], mails: Mails) -> None:  # fmt: skip
    arrived, strangers = mails.by_operation, mails.strangers
    by_note = {m["note"]: m for m in mailings}
    operations = {op["id"]: op for op in asked}
    for operation in asked:
        mailing = by_note.get(operation["id"])
        if operation["outcome"] == "done" and mailing is None:
            checked.lost.add(f"{operation['id']}: its mailing is not there")
            continue
        if mailing is None:
            continue
        job = jobs.get(mailing["job_id"])
        came = arrived[operation["id"]]
        if job is not None and job["state"] == "done" and came == 0:
            checked.lost.add(f"{operation['id']}: job {job['id']} done, no mail arrived")
        if came > 1:
            checked.doubled.add(f"{operation['id']}: the mail arrived {came} times", came - 1)
    for note in by_note.keys() - operations.keys():
        checked.unexpected.add(f"mailing {by_note[note]['id']} that no operation asked for")
    for ticket in arrived.keys() - operations.keys():
        checked.unexpected.add(f"a mail naming {ticket}, which no operation asked for")
    for message_id in strangers:
        checked.unexpected.add(f"mail {message_id} naming no operation")


def _check_records(checked: Checked, records: list[dict], loads: Counter) -> None:
    """Each load the clerk's form said it recorded is kept (its ticket the operation's id)."""
    for operation in records:
        if operation["outcome"] == "done" and loads[operation["id"]] == 0:
            checked.lost.add(f"{operation['id']}: the form said recorded, no load kept")


def _check_uploads(checked: Checked, uploads: list[dict], jobs: dict[int, dict],
                   loads: Counter) -> None:  # fmt: skip
    """Each upload's job done has each row recorded (its ticket the operation's id and the row's
    number) or refused in words in its report; no upload job nobody asked for."""
    told = {op["told"].get("job"): op for op in uploads if op["told"].get("job")}
    unanswered = [op for op in uploads if op["outcome"] == "unknown"]
    recorded = Counter(found[1] for ticket in loads if (found := UPLOADED_TICKET.match(ticket)))
    for job in jobs.values():
        if job["kind"] != JOB_KINDS["upload"]:
            continue
        operation = told.get(job["id"])
        if operation is None and not _claimed_by(job, unanswered):
            checked.unexpected.add(f"upload job {job['id']} that no operation asked for")
            continue
        if job["state"] != "done" or operation is None:
            continue
        refused = (job["params"].get("tally") or {}).get("refused", 0)
        missing = operation["asked"]["rows"] - recorded[operation["id"]] - refused
        if missing > 0:
            checked.lost.add(f"{operation['id']}: job {job['id']} done with {missing} rows "
                             "neither recorded nor refused", missing)  # fmt: skip
    for job_id, operation in told.items():
        if job_id not in jobs:
            checked.lost.add(f"{operation['id']}: its job {job_id} is not there")


def _check_result_mails(checked: Checked, result_mails: list[dict], jobs: dict[int, dict],
                        arrived: Counter, loads: Counter) -> None:  # fmt: skip
    """Each intake result's mail whose job is done arrived, and no more often than the
    ticket's loads were told; none for a ticket of no load."""
    told = Counter(mail["ticket"] for mail in result_mails)
    for mail in result_mails:
        job = jobs.get(mail["job_id"])
        if job is not None and job["state"] == "done" and arrived[mail["ticket"]] == 0:
            checked.lost.add(f"ticket {mail['ticket']}: result mail job {job['id']} done, "
                             "no mail arrived")  # fmt: skip
    for ticket, came in arrived.items():
        if ticket not in loads:
            checked.unexpected.add(f"a result mail of ticket {ticket}, which no load has")
        elif came > told[ticket]:
            checked.doubled.add(f"ticket {ticket}: its result mail arrived {came} times",
                                came - told[ticket])  # fmt: skip


def _check_unasked(checked: Checked, operations: list[dict], in_portal: Counter,
                   at_service: Counter) -> None:  # fmt: skip
    asked = {op["id"] for op in operations}
    for ticket in (in_portal.keys() | at_service.keys()) - asked:
        if OPERATION_ID.fullmatch(ticket or ""):
            checked.unexpected.add(f"passports for {ticket}, which no operation asked for")


def _check_events(checked: Checked, events: list[dict], exports: list[dict]) -> None:
    """The audit trail: one event for each passport made, mail sent, export asked for (the
    same export asked for again is its job again, and asked for once more)."""
    keys = {"passport-created": "code", "mail-sent": "mailing", "export-requested": "job"}
    seen = Counter((e["kind"], json.dumps(e["detail"].get(keys[e["kind"]])))
                   for e in events if e["kind"] in keys)  # fmt: skip
    asked = Counter(json.dumps(op["told"].get("job")) for op in exports if op.get("told"))
    for (kind, what), n in seen.items():
        once = max(1, asked[what]) if kind == "export-requested" else 1
        if n > once:
            checked.doubled.add(f"audit event {kind} for {what} written {n} times", n - once)
