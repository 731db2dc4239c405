"""The soak's check of intake's work (soak/check.py): a load the form said it recorded and did
not keep, an upload's rows neither recorded nor refused, a result mail lost, doubled or of no
load are each counted, and work done as asked counts nothing; an export's asking is in the
audit trail once each time it was asked for (asked again, it is the same job), and no more."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from soak import check

RECORD, UPLOAD = "record-0123456789ab", "upload-0123456789ab"


def operation(kind: str, id_: str, outcome: str = "done", **told: object) -> dict:
    asked = {"rows": 3} if kind == "upload" else {"code": "7KXM4-QHT2W"}
    return {"id": id_, "kind": kind, "user": "intake", "asked": asked, "outcome": outcome,
            "status": 303, "message": "", "told": told, "started": 0.0, "ended": 1.0}  # fmt: skip


def upload_job(refused: int = 0) -> dict:
    return {"id": 7, "kind": "intake-upload", "state": "done", "message": "3 rows read",
            "done": 3, "total": 3, "params": {"rows": 3, "tally": {"refused": refused}},
            "result": "", "owner_id": 1, "created": 0.5, "finished": 2.0}  # fmt: skip


def mail_job(job_id: int) -> dict:
    return {"id": job_id, "kind": "intake-result-mail", "state": "done", "message": "sent",
            "done": 1, "total": 1, "params": {}, "result": "", "owner_id": 2, "created": 0.5,
            "finished": 2.0}  # fmt: skip


def checked(tickets: list[str], jobs: list[dict], result_mails: list[dict],
            arrived: dict[str, int], tmp_path: Path) -> check.Checked:  # fmt: skip
    rows = {"passports": [], "mailings": [], "events": [], "jobs": jobs,
            "loads": [{"id": n, "ticket": t} for n, t in enumerate(tickets)],
            "result_mails": result_mails}  # fmt: skip
    operations = [operation("record", RECORD), operation("upload", UPLOAD, job=7)]
    mails = check.Mails(by_ticket=Counter(arrived))
    return check.check(operations, rows, Counter(), mails, tmp_path)


def told(ticket: str, job_id: int) -> dict:
    return {"id": job_id, "job_id": job_id, "sent": None, "ticket": ticket}


def test_intake_s_work_done_as_asked_counts_nothing(tmp_path: Path):
    uploaded = [f"{UPLOAD}-{n}" for n in (1, 2)]
    found = checked([RECORD, *uploaded], [upload_job(refused=1), mail_job(20)],
                    [told(RECORD, 20)], {RECORD: 1}, tmp_path)  # fmt: skip
    assert found.counts() == {"lost": 0, "doubled": 0, "stuck": 0, "unexpected": 0}


def test_a_load_not_kept_and_rows_neither_recorded_nor_refused_are_lost(tmp_path: Path):
    found = checked([f"{UPLOAD}-1"], [upload_job()], [], {}, tmp_path)
    assert found.lost.count == 1 + 2
    assert any(RECORD in example for example in found.lost.examples)
    assert any("2 rows neither recorded nor refused" in e for e in found.lost.examples)


def test_a_result_mail_lost_doubled_or_of_no_load_is_counted(tmp_path: Path):
    uploaded = [f"{UPLOAD}-{n}" for n in (1, 2, 3)]
    mails = [told(RECORD, 20), told(uploaded[0], 21)]
    found = checked([RECORD, *uploaded], [upload_job(), mail_job(20), mail_job(21)], mails,
                    {RECORD: 2, "nobody-s-ticket": 1}, tmp_path)  # fmt: skip
    assert found.lost.count == 1  # the upload's first row's mail never came
    assert found.doubled.count == 1  # the record's came twice
    assert found.unexpected.count == 1


def export_job(job_id: int, jobs_dir: Path) -> dict:
    (jobs_dir / "export.pdf").write_bytes(b"%PDF-1.7")
    return {"id": job_id, "kind": check.JOB_KINDS["export"], "state": "done", "message": "",
            "done": 1, "total": 1, "params": {}, "result": "export.pdf", "owner_id": 1,
            "created": 0.5, "finished": 2.0}  # fmt: skip


def exports_checked(asked: int, written: int, tmp_path: Path) -> check.Checked:
    """An export job that `asked` operations were told of (the same export asked for again is
    its job again), with `written` events of its asking in the audit trail."""
    operations = [operation("export", f"export-{n:012x}", job=6) for n in range(asked)]
    rows = {"passports": [], "mailings": [], "jobs": [export_job(6, tmp_path)], "loads": [],
            "result_mails": [],
            "events": [{"kind": "export-requested", "detail": {"job": 6}}] * written}  # fmt: skip
    return check.check(operations, rows, Counter(), check.Mails(), tmp_path)


def test_an_export_asked_for_twice_is_its_job_with_an_event_each_time(tmp_path: Path):
    found = exports_checked(asked=2, written=2, tmp_path=tmp_path)
    assert found.counts() == {"lost": 0, "doubled": 0, "stuck": 0, "unexpected": 0}


def test_an_export_asked_for_once_with_two_events_is_doubled(tmp_path: Path):
    found = exports_checked(asked=1, written=2, tmp_path=tmp_path)
    assert found.doubled.count == 1
    assert found.doubled.examples == ["audit event export-requested for 6 written 2 times"]
