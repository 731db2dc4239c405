"""The soak's load, as people make it, for Locust (run headless by `python -m soak`):

- growers (grower and partner, contacts of one business) make single passports and batches of
  2-20, export ZIPs and PDFs and download them, send passports by mail, read their list;
- an intake office checks lists of codes (/p/check), without an account;
- an intake clerk (the demo's `intake`, clerk of its site) records loads of the passports made,
  one by the form, and a day's tickets at once by an uploaded CSV (a job);
- a haulier looks passports up by short code (/p/<code>), without an account;
- staff refresh the dashboard.

Each operation has an id of the soak's own and is written, once it ends, to the JSON-lines file
SOAK_OPERATIONS as done, refused (with the message the page gave) or unknown (no answer, or a
5xx), with what it asked and what it was told, for the check (soak/check.py) to compare with
the databases. The id travels in a field the user writes anyway: a passport's collection
ticket, a mail's message. Every answer of 5xx (or none) is written to SOAK_REQUESTS with when
it was asked and answered, to be placed inside or outside the faults' windows.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import time
import uuid
from datetime import date, datetime, timedelta
from html import unescape
from typing import Any
from zoneinfo import ZoneInfo

from locust import HttpUser, between, events, task

CHOICE = json.loads(os.environ.get("SOAK_CHOICE", "{}"))
OPERATIONS = os.environ.get("SOAK_OPERATIONS", "operations.jsonl")
REQUESTS = os.environ.get("SOAK_REQUESTS", "requests.jsonl")
TIMEOUT = 40  # seconds: longer than the portal's longest wait on the service (30 s)
JOB_PAGE = re.compile(r"^/jobs/(\d+)/$")
PASSPORT_PAGE = re.compile(r"^/passports/([^/]+)/$")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
HIDDEN = r'<input\b[^>]*name="{}"[^>]*value="([^"]*)"'
ALERT = re.compile(
    r'<(?:div|p|ul|li)\b[^>]*(?:role="alert"|class="[^"]*error[^"]*")[^>]*>(.*?)</(?:div|p|ul)>',
    re.S,
)
LOAD = {
    "crop_type": "Wheat", "variety": "Extase", "store_or_bin_name": "Bay 3",
    "haulier_company_name": "Stour Valley Haulage", "vehicle_registration": "AE24 KTV",
    "trailer_number": "T12", "post_harvest_treatment_option": "A",
    "don_risk_assessment_result": "12",
}  # fmt: skip
MADE: list[str] = []  # short codes made so far, by every user: what the others look up
SITE = "stour-valley-sudbury"  # the intake demo's site (portal/intake/demo.py)
# An accepted load of wheat, as the clerk's form and an upload's row take it.
INTAKE_LOAD = {"vehicle": "AE24 KTV", "gross_kg": "44120", "tare_kg": "15020",
               "decision": "accepted", "moisture": "14.2", "specific_weight": "77.5"}  # fmt: skip


def message_of(html: str) -> str:
    """The words a page gives in its alerts and errors, in one line."""
    words = " ".join(re.sub(r"<[^>]+>", " ", found) for found in ALERT.findall(html))
    return " ".join(unescape(words).split())[:300]


def write(path: str, entry: dict[str, Any]) -> None:
    with open(path, "a") as log:
        log.write(json.dumps(entry) + "\n")


@events.request.add_listener
def _note_5xx(request_type: str, name: str, response: Any, start_time: float,
              response_time: float, exception: Any, **_: Any) -> None:  # fmt: skip
    status = getattr(response, "status_code", 0) or 0
    if status >= 500 or status == 0:
        write(REQUESTS, {"asked": start_time, "answered": start_time + response_time / 1000,
                         "name": f"{request_type} {name}", "status": status,
                         "error": str(exception or "")[:200]})  # fmt: skip


class Operation:
    """One thing a user asks for, logged once it ends."""

    def __init__(self, user: str, kind: str, **asked: Any) -> None:
        self.entry = {"id": f"{kind}-{uuid.uuid4().hex[:12]}", "kind": kind, "user": user,
                      "asked": asked, "started": time.time()}  # fmt: skip

    @property
    def id(self) -> str:
        return self.entry["id"]

    def end(self, outcome: str, status: int = 0, message: str = "", **told: Any) -> None:
        self.entry.update(outcome=outcome, status=status, message=message, told=told,
                          ended=time.time())  # fmt: skip
        write(OPERATIONS, self.entry)

    def answered(self, response: Any, expected: int, **told: Any) -> None:
        """Done when the answer is `expected`; refused when the page says why (a 4xx, the
        portal's 503 page, or a page with an error); unknown otherwise (no answer, a 5xx
        without words)."""
        status = response.status_code or 0
        said = message_of(response.text or "") if status else ""
        if status == expected:
            self.end("done", status, **told)
        elif said and (status < 500 or status == 503):
            self.end("refused", status, said, **told)
        else:
            self.end("unknown", status, f"{status} {str(getattr(response, 'error', ''))[:200]}")


class Signed(HttpUser):
    abstract = True
    username = ""
    password = ""

    def on_start(self) -> None:
        self.client.trust_env = False
        self.signed_in = False

    def sign_in(self) -> bool:
        if self.signed_in:
            return True
        url = "/accounts/sign-in/"
        form = self.client.get(url, timeout=TIMEOUT)
        token = CSRF.search(form.text or "")
        if not token:
            return False
        answer = self.client.post(url, data={"csrfmiddlewaretoken": token[1],
                                             "username": self.username,
                                             "password": self.password},
                                  headers={"Referer": self.host + url}, allow_redirects=False,
                                  timeout=TIMEOUT)  # fmt: skip
        self.signed_in = answer.status_code == 302 and "sessionid" in self.client.cookies
        return self.signed_in

    def get(self, path: str, name: str | None = None, **headers: str) -> Any:
        answer = self.client.get(path, name=name, headers=headers, allow_redirects=False,
                                 timeout=TIMEOUT)  # fmt: skip
        if answer.status_code == 302 and "/accounts/sign-in/" in answer.headers.get("Location", ""):
            self.signed_in = False
        return answer

    def post(self, path: str, data: dict[str, Any], name: str | None = None) -> Any:
        return self.client.post(path, data=data, name=name, allow_redirects=False,
                                headers={"Referer": self.host + path}, timeout=TIMEOUT)  # fmt: skip


class Grower(Signed):
    weight = 2
    wait_time = between(1, 3)
    accounts = [("grower", "grower-demo-pass"), ("partner", "partner-demo-pass")]
    taken = 0

    def on_start(self) -> None:
        super().on_start()
        self.username, self.password = Grower.accounts[Grower.taken % len(Grower.accounts)]
        Grower.taken += 1
        self.pending: list[tuple[Operation, int]] = []  # exports not yet downloaded
        self.address_kept = False

    def form(self, path: str) -> dict[str, str] | None:
        page = self.get(path, name=path.split("?")[0])
        token = CSRF.search(page.text or "")
        return {"csrfmiddlewaretoken": token[1], "page": page.text} if token else None

    def keep_address(self) -> None:
        """Once: the address the grower keeps on their account's page, where the portal mails
        the intake results of the passports they made."""
        if self.address_kept:
            return
        page = self.form("/accounts/you/")
        if page is None:
            return
        data = {"csrfmiddlewaretoken": page["csrfmiddlewaretoken"],
                "email": f"{self.username}@grower.example", "intake_mail": "on"}  # fmt: skip
        self.address_kept = self.post("/accounts/you/", data).status_code == 302

    def passport_form(self, operation: Operation, loads: int) -> dict[str, str] | None:
        blank = self.form("/passports/new")
        if blank is None:
            return None
        submission = re.search(HIDDEN.format("submission"), blank["page"])
        today = date.today()
        return {
            "csrfmiddlewaretoken": blank["csrfmiddlewaretoken"],
            "submission": submission[1] if submission else "",
            "membership": CHOICE["membership"], "site": CHOICE["site"], "store": CHOICE["store"],
            "loading_date": today.isoformat(), "harvest_year": str(today.year), **LOAD,
            "haulier_collection_ticket_no": operation.id, "loads": str(loads), "step": "create",
        }  # fmt: skip

    def _unsigned(self, operation: Operation) -> bool:
        if self.sign_in():
            self.keep_address()
            return False
        operation.end("unknown", 0, "could not sign in")
        return True

    @task(5)
    def single_passport(self) -> None:
        operation = Operation(self.username, "single", count=1)
        if self._unsigned(operation):
            return
        data = self.passport_form(operation, 1)
        if data is None:
            operation.end("unknown", 0, "no form")
            return
        answer = self.post("/passports/new", data, name="/passports/new [1]")
        made = PASSPORT_PAGE.match(answer.headers.get("Location", ""))
        operation.answered(answer, 303 if made else -1, code=made and made[1])
        if made:
            MADE.append(made[1])

    @task(2)
    def batch(self) -> None:
        count = random.randint(2, 20)
        operation = Operation(self.username, "batch", count=count)
        if self._unsigned(operation):
            return
        data = self.passport_form(operation, count)
        if data is None:
            operation.end("unknown", 0, "no form")
            return
        answer = self.post("/passports/new", data, name="/passports/new [batch]")
        self._job_started(operation, answer)

    def _job_started(self, operation: Operation, answer: Any) -> int | None:
        job = JOB_PAGE.match(answer.headers.get("Location", ""))
        operation.answered(answer, 303 if job else -1, job=job and int(job[1]))
        return int(job[1]) if job else None

    @task(1)
    def export(self) -> None:
        kind = random.choice(["zip", "pdf"])
        codes = random.sample(MADE, min(len(MADE), random.randint(1, 5)))
        if not codes:  # nothing made yet
            return
        operation = Operation(self.username, "export", format=kind, codes=codes)
        if self._unsigned(operation):
            return
        listed = self.form("/passports/")
        if listed is None:
            operation.end("unknown", 0, "no list")
            return
        data = {"csrfmiddlewaretoken": listed["csrfmiddlewaretoken"], "format": kind,
                "scope": "ticked", "code": codes}  # fmt: skip
        answer = self.post("/passports/export", data)
        job = self._job_started(operation, answer)
        if job is not None:
            self.pending.append((operation, job))

    @task(1)
    def mail(self) -> None:
        codes = random.sample(MADE, min(len(MADE), random.randint(1, 3)))
        if not codes:  # nothing made yet
            return
        operation = Operation(self.username, "mail", codes=codes)
        operation.entry["asked"]["recipient"] = f"{operation.id}@intake.example"
        if self._unsigned(operation):
            return
        query = "&".join(f"code={code}" for code in codes)
        blank = self.form(f"/passports/send?{query}")
        key = re.search(HIDDEN.format("key"), blank["page"]) if blank else None
        if blank is None or key is None:
            operation.end("unknown", 0, "no form")
            return
        data = {"csrfmiddlewaretoken": blank["csrfmiddlewaretoken"], "code": codes,
                "key": key[1], "recipient": operation.entry["asked"]["recipient"],
                "reply_to": f"{self.username}@example.com", "note": operation.id}  # fmt: skip
        self._job_started(operation, self.post("/passports/send", data))

    @task(2)
    def follow_up(self) -> None:
        """The exports asked for earlier: downloaded once done, as a person comes back to."""
        if not self.pending or not self.sign_in():
            self.get("/passports/")
            return
        operation, job = self.pending.pop(0)
        page = self.get(f"/jobs/{job}/", name="/jobs/[id]/")
        if page.status_code == 200 and "/download/" in page.text:
            got = self.get(f"/jobs/{job}/download/", name="/jobs/[id]/download/")
            magic = b"%PDF" if operation.entry["asked"]["format"] == "pdf" else b"PK"
            ok = got.status_code == 200 and got.content.startswith(magic)
            write(OPERATIONS, {"id": f"download-{uuid.uuid4().hex[:12]}", "kind": "download",
                               "user": self.username, "asked": {"job": job},
                               "outcome": "done" if ok else "unknown", "status": got.status_code,
                               "message": "" if ok else "not the file", "told": {},
                               "started": time.time(), "ended": time.time()})  # fmt: skip
        elif _not_yet(page.status_code) and time.time() - operation.entry["ended"] < 120:
            self.pending.append((operation, job))


def _not_yet(status: int) -> bool:
    """A job page that may show the file later: running still, or no answer for now."""
    return status in (200, 0) or status >= 500


class Intake(HttpUser):
    """An intake office checking the day's loads, without an account."""

    weight = 1
    wait_time = between(2, 5)

    def on_start(self) -> None:
        self.client.trust_env = False

    @task
    def check(self) -> None:
        codes = [*random.sample(MADE, min(len(MADE), random.randint(1, 8))), "ZZZZ-ZZZZ"]
        operation = Operation("intake", "intake", codes=codes)
        page = self.client.get("/p/check", timeout=TIMEOUT)
        token = CSRF.search(page.text or "")
        if not token:
            operation.end("unknown", page.status_code or 0, "no form")
            return
        answer = self.client.post("/p/check", data={"csrfmiddlewaretoken": token[1],
                                                    "codes": "\n".join(codes)},
                                  headers={"Referer": self.host + "/p/check"},
                                  allow_redirects=False, timeout=TIMEOUT)  # fmt: skip
        operation.answered(answer, 303)


class Clerk(Signed):
    """The intake demo's clerk, recording the loads of the passports made: one by the form, and
    a day's tickets by an upload. The operation's id is the load's ticket (an upload's rows:
    the id, a hyphen and the row's number)."""

    weight = 1
    wait_time = between(2, 5)
    username, password = "intake", "intake-demo-pass"

    @task(3)
    def record(self) -> None:
        if not MADE:
            return
        code = random.choice(MADE)
        operation = Operation(self.username, "record", code=code)
        if not self.sign_in():
            operation.end("unknown", 0, "could not sign in")
            return
        page = self.get(f"/intake/sites/{SITE}/record?code={code}",
                        name="/intake/sites/[site]/record?code")  # fmt: skip
        token, passport = CSRF.search(page.text or ""), re.search(HIDDEN.format("passport"),
                                                                  page.text or "")  # fmt: skip
        if not (token and passport):
            operation.answered(page, -1)
            return
        data = {"csrfmiddlewaretoken": token[1], "passport": unescape(passport[1]),
                "ticket": operation.id, "arrival": _arrived(), **INTAKE_LOAD}  # fmt: skip
        answer = self.post(f"/intake/sites/{SITE}/record", data, name="/intake/sites/[site]/record")
        operation.answered(answer, 303)

    @task(1)
    def upload(self) -> None:
        codes = [random.choice(MADE) for _ in range(random.randint(1, 12))] if MADE else []
        if not codes:
            return
        operation = Operation(self.username, "upload", rows=len(codes))
        if not self.sign_in():
            operation.end("unknown", 0, "could not sign in")
            return
        path = f"/intake/sites/{SITE}/upload"
        page = self.get(path, name="/intake/sites/[site]/upload")
        token, key = CSRF.search(page.text or ""), re.search(HIDDEN.format("key"), page.text or "")
        if not (token and key):
            operation.answered(page, -1)
            return
        columns = self.template_columns()
        if not columns:
            operation.end("unknown", 0, "no template")
            return
        tickets = [f"{operation.id}-{number}" for number in range(1, len(codes) + 1)]
        answer = self.client.post(
            path, data={"csrfmiddlewaretoken": token[1], "key": key[1]},
            files={"file": ("tickets.csv", _tickets_csv(columns, codes, tickets), "text/csv")},
            name=path.replace(SITE, "[site]"), allow_redirects=False,
            headers={"Referer": self.host + path}, timeout=TIMEOUT,
        )  # fmt: skip
        job = JOB_PAGE.match(answer.headers.get("Location", ""))
        operation.answered(answer, 303 if job else -1, job=job and int(job[1]))

    def template_columns(self) -> list[str]:
        """The columns of the upload's template, as the page offers it."""
        template = self.get(f"/intake/sites/{SITE}/upload/template.csv",
                            name="/intake/sites/[site]/upload/template.csv")  # fmt: skip
        if template.status_code != 200:
            return []
        return next(csv.reader(io.StringIO(template.content.decode("utf-8-sig"))), [])


def _arrived() -> str:
    """A minute ago, on the portal's clock (its time zone's), as the form writes it."""
    return (datetime.now(ZoneInfo("Europe/London")) - timedelta(minutes=1)).strftime(
        "%Y-%m-%d %H:%M"
    )


def _tickets_csv(columns: list[str], codes: list[str], tickets: list[str]) -> bytes:
    """The template filled in: a row of INTAKE_LOAD for each code, with its ticket."""
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="", extrasaction="ignore")
    writer.writeheader()
    for code, ticket in zip(codes, tickets, strict=True):
        writer.writerow(
            {"short_code": code, "ticket": ticket, "arrival": _arrived(), **INTAKE_LOAD}
        )
    return out.getvalue().encode()


class Lookup(HttpUser):
    """A haulier on a phone, looking a passport up by its short code."""

    weight = 1
    wait_time = between(1, 3)

    def on_start(self) -> None:
        self.client.trust_env = False

    @task
    def look_up(self) -> None:
        code = random.choice(MADE) if MADE else "ZZZZ-ZZZZ"
        operation = Operation("visitor", "lookup", code=code)
        answer = self.client.get(f"/p/{code}", name="/p/[code]", allow_redirects=False,
                                 timeout=TIMEOUT)  # fmt: skip
        operation.answered(answer, 200 if MADE else 404)


class Staff(Signed):
    """Staff keeping the dashboard open (it refreshes itself every 30 s)."""

    weight = 1
    wait_time = between(5, 10)
    username, password = "haulier", "haulier-demo-pass"

    @task
    def dashboard(self) -> None:
        operation = Operation(self.username, "dashboard")
        if not self.sign_in():
            operation.end("unknown", 0, "could not sign in")
            return
        operation.answered(self.get("/staff/"), 200)
