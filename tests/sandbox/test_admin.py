"""An operator uses the sandbox's admin: adds a scheme, suspends a membership."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest
import requests

from sandbox.ids import guid_for
from tests.conftest import ROOT

OPERATOR, OPERATOR_PASSWORD = "operator", "operator-test-pass-9f2"
GROWER = ("grower", "grower-demo-pass")
JSON = {"Accept": "application/json"}


def _csrf_token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


@pytest.fixture(scope="module")
def admin_session(sandbox) -> requests.Session:
    env = {
        **os.environ,
        "SANDBOX_DATABASE_URL": f"sqlite:///{sandbox.database}",
        "DJANGO_SUPERUSER_PASSWORD": OPERATOR_PASSWORD,
    }
    subprocess.run(
        [sys.executable, "manage.py", "createsuperuser", "--noinput", "--settings=sandbox.settings",
         "--username", OPERATOR, "--email", "operator@example.com"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    session = requests.Session()
    login_page = session.get(sandbox.endpoint("/admin/login/"), timeout=10)
    response = session.post(
        sandbox.endpoint("/admin/login/"),
        data={
            "username": OPERATOR,
            "password": OPERATOR_PASSWORD,
            "csrfmiddlewaretoken": _csrf_token(login_page.text),
            "next": "/admin/",
        },
        timeout=10,
    )
    assert "Log out" in response.text or "logout" in response.text
    return session


def _pk_of_membership(sandbox, guid: str) -> int:
    with closing(sqlite3.connect(f"file:{sandbox.database}?mode=ro", uri=True)) as db:
        return db.execute("SELECT id FROM sandbox_membership WHERE guid = ?", (guid,)).fetchone()[0]


def test_an_operator_adds_a_scheme_that_the_service_then_lists(sandbox, admin_session):
    add_page = admin_session.get(sandbox.endpoint("/admin/sandbox/scheme/add/"), timeout=10)
    response = admin_session.post(
        sandbox.endpoint("/admin/sandbox/scheme/add/"),
        data={
            "csrfmiddlewaretoken": _csrf_token(add_page.text),
            "name": "Poultry Standards",
            "guid": "P0ULTRY000.0000000000001",
            "key": "",
            "editions-TOTAL_FORMS": "1",
            "editions-INITIAL_FORMS": "0",
            "editions-MIN_NUM_FORMS": "0",
            "editions-MAX_NUM_FORMS": "1000",
            "editions-0-stage": "live",
        },
        timeout=10,
    )
    assert response.status_code == 200
    schemes = requests.get(
        sandbox.endpoint("/v1/standards.eb"), auth=GROWER, headers=JSON, timeout=10
    ).json()["items"]
    assert "Poultry Standards" in [s["SchemeName"] for s in schemes]


def test_an_operator_suspends_a_membership_and_its_passports_stop_being_valid(
    sandbox, admin_session
):
    guid = guid_for("membership:wenham-grange")
    body = {"MembershipGUID": guid, "SiteGUID": guid_for("site:wenham-grange")}
    created = requests.post(
        sandbox.endpoint("/v1/passports.eb"), auth=GROWER, headers=JSON, json=body, timeout=10
    )
    assert created.status_code == 200
    short_code = created.json()["ShortCode"]

    changelist = admin_session.get(sandbox.endpoint("/admin/sandbox/membership/"), timeout=10)
    pk = _pk_of_membership(sandbox, guid)

    def act(action: str) -> None:
        admin_session.post(
            sandbox.endpoint("/admin/sandbox/membership/"),
            data={
                "csrfmiddlewaretoken": _csrf_token(changelist.text),
                "action": action,
                "_selected_action": str(pk),
            },
            timeout=10,
        ).raise_for_status()

    act("suspend")
    try:
        download = requests.get(
            sandbox.endpoint(f"/v1/passports/{short_code}.eb"), auth=GROWER, headers=JSON,
            timeout=10,
        )  # fmt: skip
        assert download.status_code == 400
        assert download.json()["Errors"][0]["Code"] == "OperationError:StatusNotValid"
        again = requests.post(
            sandbox.endpoint("/v1/passports.eb"), auth=GROWER, headers=JSON, json=body, timeout=10
        )
        assert again.json()["Errors"][0]["Code"] == "OperationError:StatusNotValid"
    finally:
        act("reinstate")
    download = requests.get(
        sandbox.endpoint(f"/v1/passports/{short_code}.eb"), auth=GROWER, headers=JSON, timeout=10
    )
    assert download.status_code == 200
