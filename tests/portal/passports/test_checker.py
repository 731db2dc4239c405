"""The offline checker as the portal serves it: its page at /V/ (the shell its worker answers
/V/<code> with offline), its manifest and its service worker, whose scope covers /V/; and the
page of a code checked, which installs the checker too (the browser's part:
tests/e2e/test_signed_offline.py)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from portal.passports import signing
from tests.portal.passports.helpers import words

pytestmark = pytest.mark.django_db


# The manifest asked with the person's cookie: in the language they chose.
MANIFEST_LINK = '<link rel="manifest" href="/V/manifest.webmanifest" crossorigin="use-credentials">'


def config_of(html: str) -> dict:
    found = re.search(r'<script id="checker-config" type="application/json">(.*?)</script>', html)
    assert found, html
    return json.loads(found[1])


def test_the_checkers_page_says_what_it_does_and_installs_it(client: Client):
    response = client.get("/V/")
    assert response.status_code == 200
    html = response.content.decode()
    main = words(re.search(r"<main[^>]*>(.*)</main>", html, re.S)[1])
    assert main.startswith("Check a passport's signed code A passport's QR code carries")
    assert "it then checks codes without signal too" in main
    assert MANIFEST_LINK in html
    assert re.search(r'<script type="module" src="/static/js/checker\.js"></script>', html)
    assert "data-scan-start hidden>Scan a passport's QR code</button>" in html
    assert "style=" not in html  # the policy allows no inline style


def test_the_checker_labels_the_essentials_as_the_portal_does(client: Client):
    config = config_of(client.get("/V/").content.decode())
    assert config["worker"] == "/V/worker.js" and config["scope"] == "/V/"
    assert config["keys"] == "/.well-known/passport-keys.json"
    assert [(e["claim"], e["label"]) for e in config["essentials"]] == [
        (essential.claim, essential.label) for essential in signing.ESSENTIALS
    ]
    assert {"claim": -9, "name": "status", "label": "Status", "kind": "text"} in config[
        "essentials"
    ]
    assert config["shortened"] == signing.SHORTENED
    assert config["validStatuses"] == ["Valid", "Grace"]


def test_the_page_of_a_code_checked_installs_the_checker_too(client: Client):
    response = client.get("/V/NOTACODE")
    html = response.content.decode()
    assert response.status_code == 400
    assert MANIFEST_LINK in html
    assert config_of(html)["worker"] == "/V/worker.js"
    assert '<a href="/V/">The passport checker</a>' in html


def test_the_manifest_installs_the_checker_on_v(client: Client):
    response = client.get("/V/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["start_url"] == "/V/" and manifest["scope"] == "/V/"
    assert manifest["display"] == "standalone"
    sizes = {icon["sizes"]: icon for icon in manifest["icons"]}
    assert {"any", "192x192", "512x512"} <= set(sizes)
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200, icon


def test_the_worker_is_served_with_its_scope_over_v_and_fetched_anew_each_time(client: Client):
    response = client.get("/V/worker.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Service-Worker-Allowed"] == "/V/"
    assert "no-cache" in response["Cache-Control"]
    script = response.content.decode()
    config = json.loads(re.match(r"self\.CHECKER = (\{.*?\});\n", script, re.S)[1])
    assert config["scope"] == "/V/" and config["shell"] == "/V/"
    assert config["workbox"] == "/static/vendor/workbox/workbox-sw.js"
    assert "workbox.setConfig({ modulePathPrefix: self.CHECKER.workboxModules" in script
    kept = {entry["url"]: entry["revision"] for entry in config["kept"]}
    for url in ("/static/js/checker.js", "/static/js/scanner.js", "/static/css/lookup.css",
                "/static/vendor/cborg/cborg.js", "/static/vendor/cborg/lib/decode.js"):  # fmt: skip
        assert re.fullmatch(r"[0-9a-f]{16}", kept[url]), url
    for url in [config["workbox"], *kept]:
        assert client.get(url).status_code == 200, url
    for name in ("core", "routing", "strategies", "precaching"):
        module = f"{config['workboxModules']}workbox-{name}.prod.js"
        assert client.get(module).status_code == 200, module


def test_a_changed_file_changes_the_worker(client: Client, settings, tmp_path):
    before = client.get("/V/worker.js").content
    changed = tmp_path / "js"
    changed.mkdir()
    (changed / "checker.js").write_text("// another version\n")
    settings.STATICFILES_DIRS = [tmp_path, *settings.STATICFILES_DIRS]
    settings.DEBUG = True  # worked out anew, as in development
    assert client.get("/V/worker.js").content != before


def test_the_checkers_addresses_are_only_read(client: Client):
    for path in ("/V/", "/V/worker.js", "/V/manifest.webmanifest"):
        assert client.post(path).status_code == 405
