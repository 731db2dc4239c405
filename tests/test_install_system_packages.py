"""scripts/install-system-packages, which `make test` and .ci/run call: it installs Debian's
Chromium, HarfBuzz subsetter, nginx and GNU gettext when missing and it may, and otherwise says
what to install.

The machine's own dpkg-query, id, sudo and apt-get are stood in for by small scripts ahead of
them on PATH, so that every case runs on any machine and nothing is installed."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "install-system-packages"
PACKAGES = "chromium libharfbuzz-subset0 nginx gettext"
NEEDED_FROM_THE_SYSTEM = ("bash", "env", "grep", "true")


@dataclass
class Machine:
    """A machine as the script sees it: which packages are installed, who runs it, whether
    sudo asks a password (or is there at all); what apt-get was asked is recorded."""

    folder: Path

    def run(
        self, *named: str, installed: set[str], uid: int, sudo: str | None
    ) -> subprocess.CompletedProcess:
        commands = self.folder / "commands"
        commands.mkdir(exist_ok=True)
        listed = " ".join(sorted(installed)) or "-"
        self._command(
            "dpkg-query",  # dpkg-query --show --showformat='${Status}' PACKAGE
            f'for p in {listed}; do [ "$p" = "$3" ] && printf "install ok installed" && exit 0;'
            " done; exit 1",
        )
        self._command("id", f"echo {uid}")
        self._command("apt-get", f'echo "$@" >> {self.calls}')
        if sudo == "no password":
            self._command("sudo", '[ "$1" = -n ] && shift; exec "$@"')
        elif sudo == "password":
            self._command("sudo", "exit 1")
        path = f"{commands}:{self._system()}"
        return subprocess.run(
            [str(SCRIPT), *named], env={**os.environ, "PATH": path},
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip

    @property
    def calls(self) -> Path:
        return self.folder / "apt-get.calls"

    def apt_calls(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def _command(self, name: str, body: str) -> None:
        path = self.folder / "commands" / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)

    def _system(self) -> Path:
        """Links to what the script needs of the real system, and nothing else (no sudo)."""
        system = self.folder / "system"
        system.mkdir(exist_ok=True)
        for name in (*NEEDED_FROM_THE_SYSTEM, "sh"):
            link = system / name
            if not link.exists():
                link.symlink_to(
                    next(p for d in ("/usr/bin", "/bin") if (p := Path(d, name)).exists())
                )
        return system


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


def test_with_everything_installed_it_does_nothing(machine: Machine):
    result = machine.run(installed=set(PACKAGES.split()), uid=1000, sudo=None)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert machine.apt_calls() == []


def test_as_root_it_installs_what_is_missing(machine: Machine):
    result = machine.run(installed={"libharfbuzz-subset0", "nginx", "gettext"}, uid=0, sudo=None)
    assert result.returncode == 0, result.stderr
    assert "Installing chromium from Debian's packages" in result.stdout
    update, install = machine.apt_calls()
    assert update.endswith("update -qq")
    assert install.endswith("install -y -qq chromium")


def test_with_sudo_without_a_password_it_installs_through_sudo(machine: Machine):
    result = machine.run(installed=set(), uid=1000, sudo="no password")
    assert result.returncode == 0, result.stderr
    assert machine.apt_calls()[-1].endswith(f"install -y -qq {PACKAGES}")


@pytest.mark.parametrize("sudo", ["password", None], ids=["sudo asks a password", "no sudo"])
def test_when_it_may_not_install_it_says_what_to_run_and_fails(machine: Machine, sudo):
    result = machine.run(installed=set(), uid=1000, sudo=sudo)
    assert result.returncode == 1
    assert f"sudo apt-get update && sudo apt-get install -y {PACKAGES}" in result.stderr
    assert machine.apt_calls() == []


def test_make_bench_adds_its_load_tool(machine: Machine):
    result = machine.run("wrk", installed=set(PACKAGES.split()), uid=0, sudo=None)
    assert result.returncode == 0, result.stderr
    assert machine.apt_calls()[-1].endswith("install -y -qq wrk")


def test_make_run_asks_for_gettext_alone(machine: Machine):
    result = machine.run("--only", "gettext", installed={"nginx"}, uid=0, sudo=None)
    assert result.returncode == 0, result.stderr
    assert machine.apt_calls()[-1].endswith("install -y -qq gettext")
