"""deploy/smoke's reading of pages and of its command line, without a portal (the deployment
test runs it against one, test_deployment.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import requests

from scripts.servers import free_port
from tests.deploy.deployment import SMOKE, smoke_module

smoke = smoke_module()

SCHEME_PAGE = """<!doctype html><html><head><title>Crops · Assurance portal</title></head><body>
<header><div class="who"><form method="post" action="/accounts/sign-out/">
  <input type="hidden" name="csrfmiddlewaretoken" value="t0ken">
  <button>Sign out</button></form></div>
  <nav><a href="/standards/">Standards</a></nav></header>
<main id="main"><p class="message message-error">Some <b>words</b> here.</p>
<div id="scheme-export">
<form method="post" action="/standards/G1/export/" hx-post="/standards/G1/export/">
  <input type="hidden" name="csrfmiddlewaretoken" value="t0ken">
  <button type="submit" name="format" value="pdf">PDF</button>
  <button type="submit" name="format" value="csv">CSV</button>
</form></div>
<label for="q">Search</label><input type="search" id="q" name="q">
<ol id="sections"><li><a href="/standards/G1/CR/ST/"><span class="code">CR.ST</span> Storage</a>
  <p class="muted">A section</p></li>
  <li><a href="/standards/G1/-/GN/">GN General</a></li></ol>
<p><a href="/standards/G1/points/CR.ST.1/">A point outside the sections</a></p>
</main></body></html>"""


def test_it_reads_a_pages_forms_with_their_fields_and_buttons():
    page = smoke.Page(SCHEME_PAGE)
    assert page.title == "Crops · Assurance portal"
    export = page.form_to("/export/")
    assert export.method == "post"
    assert export.fields == {"csrfmiddlewaretoken": "t0ken"}
    assert export.buttons == [("format", "pdf"), ("format", "csv")]
    assert page.form_to("/accounts/sign-out/") is not None
    assert page.form_to("/nowhere/") is None


def test_it_finds_the_links_within_an_element_by_its_id_alone():
    page = smoke.Page(SCHEME_PAGE)
    sections = page.links_within("sections")
    assert [link.href for link in sections] == ["/standards/G1/CR/ST/", "/standards/G1/-/GN/"]
    assert " ".join(sections[0].text.split()) == "CR.ST Storage"


def test_it_takes_the_schemes_in_force_from_the_standards_page():
    page = smoke.Page(
        '<a href="/standards/G1/">Crops</a><a href="/standards/preview/G1/">Crops (preview)</a>'
        '<a href="/standards/G1/changes/">what has changed</a><a href="/standards/">All</a>'
    )
    assert [link.text for link in smoke.scheme_links(page)] == ["Crops"]


def test_it_says_what_a_pages_messages_say():
    assert smoke.said_on(SCHEME_PAGE) == "Some words here."
    assert smoke.said_on("<p>nothing</p>") == ""


def csv_answer(body: bytes, kind: str = "text/csv; charset=utf-8") -> requests.Response:
    response = requests.Response()
    response._content, response.headers["Content-Type"] = body, kind
    return response


def test_it_counts_the_rows_of_a_csv_file_and_refuses_anything_else():
    assert smoke.csv_rows(csv_answer(b"\xef\xbb\xbfreference,text\r\nCR.1,Keep it dry\r\n")) == 2
    with pytest.raises(smoke.Failed, match="not CSV"):
        smoke.csv_rows(csv_answer(b"<html>", "text/html"))
    with pytest.raises(smoke.Failed, match="1 row"):
        smoke.csv_rows(csv_answer(b"reference,text\r\n"))


def test_it_reads_the_settings_the_checker_s_worker_begins_with():
    script = 'self.CHECKER = {\n "scope": "/V/",\n "kept": []\n};\n\nimportScripts("x");'
    assert smoke.worker_config(script) == {"scope": "/V/", "kept": []}
    with pytest.raises(smoke.Failed, match="does not begin with its settings"):
        smoke.worker_config('importScripts("x");')


def run(*args: str, password: str | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", **({"SMOKE_PASSWORD": password} if password else {})}
    return subprocess.run([sys.executable, str(SMOKE), *args], env=env, capture_output=True,
                          text=True, timeout=30, check=False)  # fmt: skip


def test_its_help_says_what_it_checks():
    result = run("--help")
    assert result.returncode == 0
    assert "--password-file" in result.stdout and "--insecure" in result.stdout


def test_without_a_password_it_says_how_to_give_one():
    result = run("http://127.0.0.1:9/", "--username", "grower")
    assert result.returncode == 1
    assert "--password-file or SMOKE_PASSWORD" in result.stderr


def test_an_address_that_is_not_http_is_refused():
    result = run("portal.example.org", "--username", "grower", password="x")
    assert result.returncode == 2
    assert "must start with http:// or https://" in result.stderr


def test_a_portal_that_does_not_answer_fails_the_first_check_with_why():
    result = run(f"http://127.0.0.1:{free_port()}", "--username", "grower", "--timeout", "2",
                 password="x")  # fmt: skip
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1].startswith("✗ /healthz answers: ConnectionError")
