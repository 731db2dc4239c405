"""`python manage.py assurance ...`, the operators' command, against the shared sandbox.

Run through `call_command` with the portal's settings, and as an operator runs it (in a process
of its own, from a checkout whose database was never made); no database is needed.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pypdf
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from portal.assurance.client import AssuranceClient, CallReport
from portal.assurance.service import call_reported
from tests.conftest import ROOT
from tests.demo import HOLLOWFIELD, HOLLOWFIELD_FARM, MAIN_STORE

CROPS = "Combinable Crops and Sugar Beet"
DEMO_SHORT_CODE = "7KXM4QHT2W"
GROWER, GROWER_PASSWORD = "grower", "grower-demo-pass"


class Run:
    """What one run of the command wrote."""

    def __init__(self, stdout: str, stderr: str) -> None:
        self.stdout, self.stderr = stdout, stderr

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def run(sandbox, monkeypatch) -> Iterator:
    """Runs `assurance` against the shared sandbox as the grower, unless told otherwise."""
    monkeypatch.delenv("ASSURANCE_USERNAME", raising=False)
    monkeypatch.delenv("ASSURANCE_PASSWORD", raising=False)

    def run_command(
        *arguments: str,
        username: str | None = GROWER,
        password: str | None = GROWER_PASSWORD,
        base_url: str | None = None,
    ) -> Run:
        options = ["--base-url", base_url or sandbox.url]
        if username is not None:
            options += ["--username", username]
        if password is not None:
            options += ["--password", password]
        out, err = io.StringIO(), io.StringIO()
        call_command("assurance", *options, *arguments, stdout=out, stderr=err)
        return Run(out.getvalue(), err.getvalue())

    yield run_command


@pytest.fixture
def calls() -> Iterator[list[CallReport]]:
    """The call reports the command's client sends (through
    `portal.assurance.service.call_reported`)."""
    seen: list[CallReport] = []

    def receive(sender, report: CallReport, **kwargs) -> None:
        seen.append(report)

    call_reported.connect(receive, weak=False)
    yield seen
    call_reported.disconnect(receive)


@pytest.fixture(scope="module")
def crops_guid(sandbox) -> str:
    """The crops scheme's GUID, read from the schemes the command lists."""
    out = io.StringIO()
    call_command(
        "assurance", "--base-url", sandbox.url, "--username", GROWER,
        "--password", GROWER_PASSWORD, "schemes", stdout=out,
    )  # fmt: skip
    schemes = json.loads(out.getvalue())["items"]
    return next(s["SchemeGUID"] for s in schemes if s["SchemeName"] == CROPS)


def pdf_text(content: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text().split()) for page in reader.pages)


def sign_in_well(sandbox) -> None:
    """A successful sign-in from 127.0.0.1, which resets that address's count of failures."""
    with closing(AssuranceClient(sandbox.url)) as client:
        client.login(GROWER, GROWER_PASSWORD)


# --- operations -----------------------------------------------------------------------------------


def test_schemes_lists_the_sandboxs_schemes_as_json(run):
    schemes = run("schemes").json()
    names = [s["SchemeName"] for s in schemes["items"]]
    assert CROPS in names and len(names) >= 3
    assert all(s["SchemeGUID"] and s["CacheDate"].endswith("Z") for s in schemes["items"])


def test_schemes_in_xml_prints_the_same_as_in_json(run):
    assert run("--format", "xml", "schemes").json() == run("--format", "json", "schemes").json()


def test_section_with_preview_prints_the_sections_standard_points(run, crops_guid):
    data = run("section", crops_guid, "ST", "--preview").json()
    assert data["SchemeGUID"] == crops_guid
    assert data["SectionPrefix"] == "ST"
    assert data["WhatHasChanged"]
    points = data["StandardPoints"]
    assert points and all(p["reference"].startswith("CR.ST.") for p in points)
    assert data["AuditPoints"] and data["Answers"]


def test_section_in_xml_prints_the_same_as_in_json(run, crops_guid):
    arguments = ("section", crops_guid, "ST", "--preview")
    assert run("--format", "xml", *arguments).json() == run(*arguments).json()


def test_sections_with_a_sector_lists_that_sectors_sections(run, crops_guid):
    listing = run("sections", crops_guid, "--sector", "SB").json()
    assert listing["Sections"]
    assert {s["sectorprefix"] for s in listing["Sections"]} == {"SB"}


def test_authorisation_prints_the_growers_memberships(run):
    authorisation = run("--format", "xml", "authorisation").json()
    assert authorisation["Username"] == GROWER
    assert HOLLOWFIELD in [m["MembershipGUID"] for m in authorisation["Memberships"]]


def test_passport_prints_the_demo_passport(run):
    passport = run("passport", "7kxm4-qht2w").json()
    assert passport["ShortCode"] == DEMO_SHORT_CODE
    assert passport["BusinessName"] == "Hollowfield Farms Ltd"


def test_passport_with_pdf_writes_a_pdf_that_holds_the_printed_short_code(run, tmp_path: Path):
    target = tmp_path / "passport.pdf"
    result = run("passport", DEMO_SHORT_CODE, "--pdf", str(target))
    content = target.read_bytes()
    assert content.startswith(b"%PDF-")
    assert "7KXM4-QHT2W" in pdf_text(content)
    assert str(target) in result.stdout


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_create_passport_prints_a_passport_with_the_values_set(run, fmt):
    passport = run(
        "--format", fmt, "create-passport", "--membership", HOLLOWFIELD,
        "--site", HOLLOWFIELD_FARM, "--store", MAIN_STORE,
        "--set", "CropType=Wheat", "--set", "LoadingDate=2026-08-21T07:30:00Z",
        "--set", "DONRiskAssessmentResult=12.5",
    ).json()  # fmt: skip
    assert passport["CropType"] == "Wheat"
    assert passport["LoadingDate"] == "2026-08-21T07:30:00Z"
    assert passport["DONRiskAssessmentResult"] == 12.5
    assert passport["ShortCode"]
    assert passport["MembershipGUID"] == HOLLOWFIELD
    assert passport["GrainStoreName"] == "Main grain store"
    assert passport["CollectionAddress"].endswith("IP7 6QW")


def test_create_passport_with_pdf_writes_the_new_passport(run, tmp_path: Path):
    target = tmp_path / "new.pdf"
    run(
        "create-passport", "--membership", HOLLOWFIELD, "--site", HOLLOWFIELD_FARM,
        "--set", "CropType=Wheat", "--pdf", str(target),
    )  # fmt: skip
    assert target.read_bytes().startswith(b"%PDF-")
    assert "Hollowfield Farms Ltd" in pdf_text(target.read_bytes())


def test_login_reports_the_realm_without_the_token(run):
    result = run("login")
    assert "Assurance" in result.stdout
    result = run("login", "--session")
    assert "session cookie" in result.stdout


# --- refusals -------------------------------------------------------------------------------------


def test_a_wrong_password_ends_in_a_command_error_naming_authentication_failed(run, sandbox):
    sign_in_well(sandbox)  # no failures counted before this one, so it is not yet a warning
    try:
        with pytest.raises(CommandError, match="AuthenticationFailed") as caught:
            run("schemes", password="not-the-grower-password")
    finally:
        sign_in_well(sandbox)
    assert "not-the-grower-password" not in str(caught.value)


def test_an_error_of_the_service_ends_in_a_command_error_naming_it(run):
    with pytest.raises(CommandError, match="NotFound"):
        run("passport", "2345678923")


def test_a_value_of_the_wrong_type_ends_in_a_command_error_naming_the_field(run, sandbox):
    before = sandbox.count("sandbox_passport")
    with pytest.raises(CommandError, match="LoadingDate"):
        run(
            "create-passport", "--membership", HOLLOWFIELD, "--site", HOLLOWFIELD_FARM,
            "--set", "LoadingDate=notadate",
        )  # fmt: skip
    assert sandbox.count("sandbox_passport") == before


def test_a_value_of_the_wrong_type_is_refused_before_any_call(run, calls):
    with pytest.raises(CommandError, match="LoadingDate"):
        run(
            "create-passport", "--membership", HOLLOWFIELD, "--site", HOLLOWFIELD_FARM,
            "--set", "LoadingDate=notadate",
        )  # fmt: skip
    assert [r.operation for r in calls] == []


def test_a_malformed_set_ends_in_a_command_error(run):
    with pytest.raises(CommandError, match="Field=value"):
        run("create-passport", "--membership", HOLLOWFIELD, "--site", HOLLOWFIELD_FARM,
            "--set", "CropType")  # fmt: skip


def test_no_username_ends_in_a_command_error_before_any_call(run, calls):
    with pytest.raises(CommandError, match="--username"):
        run("schemes", username=None)
    assert calls == []


def test_no_password_and_no_terminal_ends_in_a_command_error(run, calls):
    with pytest.raises(CommandError, match="--password"):
        run("schemes", password=None)
    assert calls == []


def test_the_command_reports_each_call_through_the_portals_signal(run, calls):
    run("passport", DEMO_SHORT_CODE)
    assert [(r.operation, r.status, r.outcome) for r in calls] == [
        ("login", 200, "ok"),
        ("passport", 200, "ok"),
    ]


# --- as an operator runs it ---------------------------------------------------------------------


@pytest.fixture
def run_in_a_process(sandbox, tmp_path: Path) -> Iterator:
    """Runs `manage.py assurance` as the grower in a process of its own, with a database that was
    never migrated (a fresh checkout's)."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'never-migrated.sqlite3'}"}
    env.pop("ASSURANCE_USERNAME", None)
    env.pop("ASSURANCE_PASSWORD", None)

    def run_command(
        *arguments: str, password: str = GROWER_PASSWORD
    ) -> subprocess.CompletedProcess:
        command = [sys.executable, "manage.py", "assurance", "--base-url", sandbox.url,
                   "--username", GROWER, "--password", password, *arguments]  # fmt: skip
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip

    yield run_command


def test_without_the_portals_database_the_command_prints_only_its_answer(run_in_a_process):
    result = run_in_a_process("schemes")
    assert (result.returncode, result.stderr) == (0, "")
    assert CROPS in [s["SchemeName"] for s in json.loads(result.stdout)["items"]]


def test_without_the_portals_database_a_wrong_password_prints_only_the_error(
    run_in_a_process, sandbox
):
    sign_in_well(sandbox)
    try:
        result = run_in_a_process("schemes", password="not-the-grower-password")
    finally:
        sign_in_well(sandbox)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("CommandError: AuthenticationFailed: ")
    assert result.stderr.count("\n") == 1


def test_with_verbosity_2_the_calls_are_logged_and_a_call_not_recorded_in_one_line(
    run_in_a_process,
):
    result = run_in_a_process("-v", "2", "passport", DEMO_SHORT_CODE)
    assert result.returncode == 0
    log, answer = result.stdout.split("\n{", 1)
    messages = [line.split("] ", 1)[1] for line in log.splitlines()]
    assert [message.split(" in ")[0] for message in messages] == [
        "login 200 ok",
        "Calls to the service are not being recorded: "
        "OperationalError: no such table: operations_servicecalls",
        "passport 200 ok",
    ]
    assert json.loads("{" + answer)["ShortCode"] == DEMO_SHORT_CODE
    assert "Traceback" not in result.stdout + result.stderr


# --- secrets --------------------------------------------------------------------------------------


def test_the_token_and_password_never_appear_in_the_output(run, crops_guid, monkeypatch, capsys):
    tokens: list[str] = []
    login = AssuranceClient.login

    def spy(self, username, password):
        authorization = login(self, username, password)
        tokens.append(authorization.token)
        return authorization

    monkeypatch.setattr(AssuranceClient, "login", spy)
    results = [
        run("login"),
        run("login", "--session"),
        run("schemes"),
        run("--format", "xml", "sections", crops_guid),
        run("authorisation"),
        run("passport", DEMO_SHORT_CODE),
        run("create-passport", "--membership", HOLLOWFIELD, "--site", HOLLOWFIELD_FARM),
    ]
    errors = []
    for arguments in (("passport", "2345678923"), ("sections", "ZZZZZZZZZZ.ZZZZZZZZZZZZZ")):
        with pytest.raises(CommandError) as caught:
            run(*arguments)
        errors.append(str(caught.value))
    captured = capsys.readouterr()

    assert len(tokens) == 8 and all(tokens)
    shown = [r.stdout for r in results] + [r.stderr for r in results] + errors
    shown += [captured.out, captured.err]
    for secret in [*tokens, GROWER_PASSWORD]:
        for text in shown:
            assert secret not in text
