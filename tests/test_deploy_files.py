"""The files of deploy/, the Dockerfile and compose.yaml, each checked on its own and quickly:
the nginx site renders and nginx takes it, the systemd units are hardened (and systemd takes
them), gunicorn reads its production settings, the compose file holds together, every
production setting of the example environment is one the portal reads. The whole deployment
running is tests/deploy/ (pytest -m deploy)."""

from __future__ import annotations

import configparser
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests
import yaml

from scripts import servers
from tests.conftest import ROOT
from tests.services import wait_for

DEPLOY = ROOT / "deploy"
TEMPLATE = DEPLOY / "nginx" / "portal.conf.template"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")


def placeholders() -> set[str]:
    return set(PLACEHOLDER.findall(TEMPLATE.read_text()))


def listed_placeholders() -> set[str]:
    """The placeholders the template's header lists, one a line with what it means."""
    header = TEMPLATE.read_text().split("\n\n# ---")[0]
    return set(re.findall(r"^# (PORTAL_[A-Z_]+) ", header, re.MULTILINE))


def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


# --- nginx -------------------------------------------------------------------------------------


def test_every_placeholder_of_the_site_is_listed_with_its_meaning():
    assert placeholders() == listed_placeholders()
    assert len(placeholders()) == 9


def nginx_or_skip() -> str:
    nginx = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if nginx is None:
        pytest.skip("nginx is not installed")
    return nginx


def rendered_site(tmp_path: Path, http: str = "127.0.0.1:18080", https: str = "127.0.0.1:18443"):
    """The site rendered as envsubst renders it, in an nginx.conf of its own in `tmp_path`."""
    certificate = tmp_path / "tls"
    subprocess.run(
        [sys.executable, str(DEPLOY / "self_signed_certificate.py"), str(certificate)],
        check=True,
        capture_output=True,
    )
    values = {
        "PORTAL_SERVER_NAME": "portal.example.org",
        "PORTAL_HTTP_LISTEN": http,
        "PORTAL_HTTPS_LISTEN": https,
        "PORTAL_TLS_CERTIFICATE": str(certificate / "fullchain.pem"),
        "PORTAL_TLS_CERTIFICATE_KEY": str(certificate / "privkey.pem"),
        "PORTAL_UPSTREAM_SERVERS": "server 127.0.0.1:18000; server 127.0.0.1:18001;",
        "PORTAL_STATIC_ROOT": str(tmp_path / "static"),
        "PORTAL_JOB_FILES_DIR": str(tmp_path / "job-files"),
        "PORTAL_ACCESS_LOG": str(tmp_path / "access.log"),
    }
    listed = " ".join(f"${{{name}}}" for name in sorted(values))
    site = subprocess.run(
        ["envsubst", listed],
        input=TEMPLATE.read_text(),
        env={**os.environ, **values},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "${" not in site and "$host" in site and "$request_uri" in site
    (tmp_path / "portal.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\n  include /etc/nginx/mime.types;\n  include {tmp_path}/portal.conf;\n}}\n"
    )
    return tmp_path / "nginx.conf"


def test_the_site_renders_and_nginx_takes_it(tmp_path):
    nginx = nginx_or_skip()
    configuration = rendered_site(tmp_path)
    checked = subprocess.run(
        [nginx, "-t", "-q", "-c", str(configuration), "-p", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def test_the_access_log_masks_a_short_code_and_nothing_else(tmp_path):
    nginx, port = nginx_or_skip(), servers.free_port()
    configuration = rendered_site(
        tmp_path, http=f"127.0.0.1:{port}", https=f"127.0.0.1:{servers.free_port()}"
    )
    process = subprocess.Popen(
        [nginx, "-c", str(configuration), "-p", str(tmp_path), "-g", "daemon off;"],
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: _answers(port), "nginx")
        written = {
            "/passports/7KXM4-QHT2W/pdf": "/passports/7KX.../pdf",
            "/passports/7kxm4qht2w/": "/passports/7kx.../",
            "/passports/7KXM4-QHT2W?page=2": "/passports/7KX...?page=2",
            "/passports/export": "/passports/export",
            "/passports/send?code=x": "/passports/send?code=x",
            "/passports/new/0b0e5a4e-5b9a-4f7e-9a7e-2f8f3c1d6a90/": (
                "/passports/new/0b0e5a4e-5b9a-4f7e-9a7e-2f8f3c1d6a90/"
            ),
            "/passports/add": "/passports/add",
            "/passports/not-a-code/": "/passports/not-a-code/",
            "/passports/7KXM4QHT2WABC/": "/passports/7KXM4QHT2WABC/",  # 13: no short code
            "/passports/": "/passports/",
            "/p/7KXM4-QHT2W": "/p/...",
            "/V/2KCETIQBEYCEIVCXIZA2AWDVVYAW6MJSG4XDALRQ": "/V/...",
        }
        for path in written:
            assert requests.get(f"http://127.0.0.1:{port}{path}", allow_redirects=False,
                                timeout=5).status_code == 301  # fmt: skip
    finally:
        servers.stop(process)
    logged = [json.loads(line)["path"] for line in (tmp_path / "access.log").read_text().split("\n")
              if line.startswith("{") and '"/healthz"' not in line]  # fmt: skip
    assert logged == list(written.values())


def _answers(port: int) -> bool:
    try:
        answer = requests.get(f"http://127.0.0.1:{port}/healthz", allow_redirects=False, timeout=1)
        return answer.status_code == 301
    except requests.ConnectionError:
        return False


def test_the_site_sets_the_client_address_rather_than_appending_to_it():
    site = TEMPLATE.read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in site
    assert "$proxy_add_x_forwarded_for" not in site


def test_the_site_sends_job_files_only_from_an_internal_location_the_portal_names():
    site = TEMPLATE.read_text()
    block = site[site.index("location /_protected/job-files/") :]
    assert "internal;" in block.split("}")[0]
    example = (DEPLOY / "portal.env.example").read_text()
    assert "PORTAL_PROTECTED_FILES_PREFIX=/_protected/job-files/\n" in example


# --- systemd -----------------------------------------------------------------------------------

HARDENING = {
    "User": "portal",
    "EnvironmentFile": "/etc/portal/portal.env",
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
    "CapabilityBoundingSet": "",
    "Restart": "on-failure",
}


def unit(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # keys keep their case
    parser.read_string(path.read_text())
    return parser["Service"]


@pytest.mark.parametrize("path", UNITS, ids=[p.name for p in UNITS])
def test_each_unit_runs_hardened_as_the_portals_user(path):
    service = unit(path)
    for key, value in HARDENING.items():
        assert service.get(key) == value, key
    assert service.get("KillSignal") == "SIGTERM" and int(service["TimeoutStopSec"]) > 0


def test_only_job_files_and_the_portals_files_are_writable_and_the_scheduler_writes_nothing():
    names = [p.name for p in UNITS]
    assert names == ["portal-scheduler.service", "portal-worker@.service", "portal@.service"]
    for path in UNITS:
        service = unit(path)
        if path.name == "portal-scheduler.service":
            assert "ReadWritePaths" not in service and "StateDirectory" not in service
            assert service["ExecStart"].endswith(" beat --loglevel INFO")  # no schedule file
        elif path.name == "portal-worker@.service":
            assert service["ReadWritePaths"] == "/var/lib/portal/job-files"
        else:  # the portal keeps queries' certificates, which no worker reads
            assert service["ReadWritePaths"] == "/var/lib/portal/job-files /var/lib/portal/files"
    assert unit(DEPLOY / "systemd" / "portal@.service")["Environment"] == "PORTAL_BIND=127.0.0.1:%i"


def test_systemd_takes_the_units(tmp_path):
    if shutil.which("systemd-analyze") is None or not Path("/usr/lib/systemd/system").is_dir():
        pytest.skip("systemd is not installed")
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    units = root / "etc/systemd/system"
    units.mkdir(parents=True)
    for path in UNITS:
        shutil.copy(path, units)
    for program in ("gunicorn", "celery"):  # what the units start, as installed
        executable = root / "srv/portal/venv/bin" / program
        executable.parent.mkdir(parents=True, exist_ok=True)
        executable.write_text("#!/bin/sh\n")
        executable.chmod(0o755)
    for program in ("sh", "kill"):
        (root / "bin").mkdir(exist_ok=True)
        shutil.copy(shutil.which(program) or f"/bin/{program}", root / "bin" / program)
    (root / "srv/portal/app").mkdir(parents=True)
    verified = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", "portal@8000.service",
         "portal-worker@1.service", "portal-scheduler.service"],
        cwd=units, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr


# --- gunicorn ----------------------------------------------------------------------------------


def test_gunicorn_reads_its_production_settings_and_the_portals_worker():
    env = {
        **os.environ,
        "PORTAL_DEVELOPMENT": "true",
        "PORTAL_BIND": "127.0.0.1:8123",
        "PORTAL_WORKERS": "3",
        "PORTAL_THREADS": "6",
        "PORTAL_TRUSTED_PROXIES": "10.0.0.2",
    }
    printed = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--config", str(DEPLOY / "gunicorn.conf.py"),
         "--print-config", "portal.wsgi:application"],
        cwd="/", env=env, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    config = dict(
        (name.strip(), value.strip())
        for name, _, value in (line.partition("=") for line in printed.splitlines())
    )
    assert config["bind"] == "['127.0.0.1:8123']"
    assert config["workers"] == "3" and config["threads"] == "6"
    assert config["worker_class"] == "portal.operations.web_worker.PortalWorker"
    assert config["limit_request_line"] == "4094" and config["limit_request_fields"] == "100"
    assert config["forwarded_allow_ips"] == "['10.0.0.2']"
    assert config["accesslog"] == "None"
    assert int(config["graceful_timeout"]) > 30 and int(config["timeout"]) > 45


# --- the production environment ----------------------------------------------------------------


def test_every_setting_of_the_example_environment_is_read_by_the_portal():
    read = "\n".join(
        path.read_text()
        for path in [ROOT / "portal/settings.py", DEPLOY / "gunicorn.conf.py", *UNITS]
    )
    example = (DEPLOY / "portal.env.example").read_text()
    names = re.findall(r"^#?([A-Z][A-Z0-9_]+)=", example, re.MULTILINE)
    assert len(names) > 30
    for name in names:
        base = name.removesuffix("_FILE")
        assert f'"{base}"' in read or f"{base}" in read.replace("$$", "$"), name


# --- compose and the image ---------------------------------------------------------------------


def test_the_compose_file_scales_the_portal_and_workers_and_starts_one_scheduler():
    services = compose()["services"]
    assert set(services) >= {
        "postgres", "redis", "migrate", "portal", "worker", "scheduler", "nginx", "sandbox",
    }  # fmt: skip
    for name in ("portal", "worker", "scheduler"):
        assert "container_name" not in services[name] and "ports" not in services[name]
    assert services["scheduler"]["deploy"]["replicas"] == 1
    assert "--schedule" not in services["scheduler"]["command"]  # its schedule is in Redis
    assert services["sandbox"]["profiles"] == ["demo"]
    assert all("profiles" not in s for n, s in services.items() if n != "sandbox")
    assert services["portal"]["depends_on"]["migrate"]["condition"] == (
        "service_completed_successfully"
    )


def test_compose_gives_secrets_as_files_only():
    document = compose()
    defined = set(document["secrets"])
    for name, service in document["services"].items():
        environment = service.get("environment", {})
        for variable, value in environment.items():
            if re.search(r"(KEY|PASSWORD|SECRET)$", variable):  # a path, never the secret
                assert str(value).startswith("/"), (name, variable)
            if variable.endswith("_FILE"):
                secret = value.removeprefix("/run/secrets/")
                assert secret in defined and secret in service["secrets"], (name, variable)


def test_compose_fills_every_placeholder_of_the_nginx_site():
    environment = compose()["services"]["nginx"]["environment"]
    assert placeholders() <= set(environment)
    assert "resolve" in environment["PORTAL_UPSTREAM_SERVERS"]  # every portal replica


def test_the_image_leaves_secrets_and_development_state_out():
    ignored = (ROOT / ".dockerignore").read_text().split()
    for name in ("deploy/secrets", ".venv", "var", ".git", "node_modules", "tests"):
        assert name in ignored
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.count("FROM ") == 2 and "USER portal" in dockerfile
    assert "deploy/gunicorn.conf.py" in dockerfile and "HEALTHCHECK" in dockerfile


# --- the helpers -------------------------------------------------------------------------------


def test_the_self_signed_certificate_is_made_once(tmp_path):
    script = [sys.executable, str(DEPLOY / "self_signed_certificate.py"), str(tmp_path)]
    first = subprocess.run([*script, "portal.example.org"], capture_output=True, text=True)
    assert first.returncode == 0 and "portal.example.org" in first.stdout
    made = (tmp_path / "fullchain.pem").read_bytes()
    again = subprocess.run(script, capture_output=True, text=True)
    assert again.returncode == 0 and (tmp_path / "fullchain.pem").read_bytes() == made
    assert (tmp_path / "privkey.pem").stat().st_mode & 0o077 == 0


class _Health(http.server.BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def do_GET(self) -> None:
        self.seen.append({"path": self.path, **self.headers})
        self.send_response(200 if self.path == "/healthz" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_the_health_check_asks_as_nginx_would():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        env = {
            **os.environ,
            "PORTAL_BIND": f"0.0.0.0:{port}",
            "ALLOWED_HOSTS": ".example.org,portal.example.org",
        }
        checked = subprocess.run(
            [sys.executable, str(DEPLOY / "healthcheck.py")], env=env, capture_output=True
        )
    finally:
        server.shutdown()
    assert checked.returncode == 0
    assert _Health.seen[-1]["Host"] == "example.org"
    assert _Health.seen[-1]["X-Forwarded-Proto"] == "https"


def test_the_example_environment_passes_djangos_deployment_checks(tmp_path):
    """portal.env.example as it is, its secrets' files made here: `check --deploy` is clean."""
    for name in ("secret_key", "token_key", "lookup_password"):
        (tmp_path / name).write_text(f"{name}-" + "x" * 60 + "\n")
    (tmp_path / "database_url").write_text("postgres://portal:pw@127.0.0.1:5432/portal\n")
    example = (DEPLOY / "portal.env.example").read_text()
    settings = dict(line.split("=", 1) for line in example.splitlines() if re.match(r"[A-Z]", line))
    settings = {
        name: value.replace("/etc/portal/secrets", str(tmp_path))
        for name, value in settings.items()
    }
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **settings}
    checked = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert "no issues" in checked.stdout


def test_the_example_environment_names_every_setting_the_portal_reads():
    read = re.findall(
        r'env_(?:str|int|float|bool|list|database)\(\s*"([A-Z][A-Z0-9_]+)"',
        (ROOT / "portal/settings.py").read_text(),
    )
    example = (DEPLOY / "portal.env.example").read_text()
    never_to_set = {"DEBUG", "PORTAL_DEVELOPMENT", "PORTAL_DEVELOPMENT_MAILBOX",
                    "PORTAL_DEVELOPMENT_WEBHOOKS", "PORTAL_DEVELOPMENT_WEBHOOK_URL",
                    "PORTAL_WEBHOOK_ALLOWED_NETWORKS"}  # fmt: skip
    for name in set(read) - never_to_set:
        assert re.search(rf"^#?{name}(_FILE)?=", example, re.MULTILINE), name


def test_the_compose_file_follows_the_compose_specification(tmp_path):
    """As `docker compose config` would check it (this machine has docker's client but not its
    compose plugin): the Compose specification's own schema, vendored in check-jsonschema,
    with each `${NAME:-default}` given its default, as compose does without the variable."""
    filled = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", (ROOT / "compose.yaml").read_text())
    assert "${" not in filled, "a variable without a default: compose would need it set"
    document = tmp_path / "compose.yaml"
    document.write_text(filled)
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(document)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
