"""The documentation: the site (mkdocs.yml over docs/) builds with --strict, so that a broken link,
a missing anchor or a page left out of the navigation fails; no page loads anything from outside
or links outside the repository; README.md stays the front door (at most 10 KB, its links
resolving, the demo accounts `make run` prints); and every setting the portal, the sandbox and
gunicorn read from the environment is in the one table of settings."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from sandbox.demo.accounts import ACCOUNTS
from tests.conftest import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
SETTINGS_TABLE = DOCS / "running" / "configuration.md"
# The modules that read settings from the environment.
SETTINGS_READERS = (
    "portal/settings.py",
    "sandbox/settings.py",
    "deploy/gunicorn.conf.py",
    "scripts/run.py",
    "scripts/sandbox.py",
    "portal/management/commands/assurance.py",
    "soak/__main__.py",
    "soak/stack.py",
    "bench/common.py",
)
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}

# [words](target), ![words](target) and <https://...>; not inside code.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<(https?://[^>\s]+)>")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built as `make docs` serves it, with --strict: every warning fails."""
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's notice of its successor
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    return out


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _links(markdown: Path) -> list[str]:
    text = CODE.sub("", markdown.read_text(encoding="utf-8"))
    return [inline or auto for inline, auto in LINK.findall(text)]


def test_the_site_builds_with_no_warning(site: Path):
    assert (site / "index.html").is_file()
    assert (site / "running" / "configuration" / "index.html").is_file()


def test_every_page_is_in_the_navigation():
    """mkdocs --strict fails on a page left out (validation.omitted_files: warn); this says
    which, and that no page of the navigation is missing."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    named = set(re.findall(r"^\s*- (?:[^:\n]+: )?([\w./-]+\.md)\s*$", config, re.MULTILINE))
    pages = {page.relative_to(DOCS).as_posix() for page in _pages()}
    assert pages == named


def test_no_page_loads_anything_from_outside(site: Path):
    """No font, script, stylesheet or picture from another host: the pages work offline and
    tell no one who reads them."""
    fetched = re.compile(
        r"<(?:script|link|img|iframe|source|video|audio)\b[^>]*?\b(?:src|href)=[\"']?"
        r"((?:https?:)?//[^\"'\s>]+)",
        re.IGNORECASE,
    )
    outside = []
    for html in site.rglob("*.html"):
        page = html.read_text(encoding="utf-8")
        # Material would fetch mermaid from a CDN for a diagram of its fenced blocks.
        assert 'class="mermaid"' not in page, f"{html}: a mermaid diagram"
        for address in fetched.findall(page):
            host = urlsplit(address if ":" in address else "http:" + address).hostname
            if host not in LOOPBACK:
                outside.append(f"{html.relative_to(site)}: {address}")
    for css in site.rglob("*.css"):
        for address in re.findall(r"url\(\s*[\"']?((?:https?:)?//[^)\"']+)", css.read_text()):
            outside.append(f"{css.relative_to(site)}: {address}")
        assert "@import" not in css.read_text(), css
    assert outside == []


@pytest.mark.parametrize("markdown", [README, *_pages()], ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_links_outside_the_repository(markdown: Path):
    """A clone can follow every link: none to another host (addresses of the reader's own
    portal are written as code, never linked), none out of the repository."""
    text = markdown.read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/spec" not in text
    for target in _links(markdown):
        parts = urlsplit(target)
        if parts.scheme in ("http", "https"):
            assert parts.hostname in LOOPBACK, f"{target} leaves the repository"
            continue
        assert not parts.scheme, f"{target}: only links within the repository"
        if parts.path:
            resolved = (markdown.parent / unquote(parts.path)).resolve()
            assert resolved.is_relative_to(ROOT), f"{target} leads out of the repository"


def test_the_readme_is_the_front_door():
    assert README.stat().st_size <= 10 * 1024, f"README.md is {README.stat().st_size} bytes"
    for target in _links(README):
        parts = urlsplit(target)
        if parts.scheme:
            continue
        page = (ROOT / unquote(parts.path)) if parts.path else README
        assert page.exists(), f"README.md links to {target}, which is not there"
        if parts.fragment and page.suffix == ".md":
            assert parts.fragment in _anchors(page), f"README.md: no #{parts.fragment} in {page}"


def test_the_readme_gives_the_demo_accounts_make_run_prints():
    text = README.read_text(encoding="utf-8")
    for account in ACCOUNTS:
        assert f"`{account['username']}`" in text and f"`{account['password']}`" in text


def _anchors(markdown: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub and mkdocs' toc make them."""
    headings = re.findall(r"^#+\s+(.+?)\s*$", CODE.sub("", markdown.read_text()), re.MULTILINE)
    return {re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", h.lower())).strip("-") for h in headings}


def _settings_read() -> set[str]:
    """Every NAME a settings module reads: env_*("NAME", ...), os.environ.get("NAME", ...)."""
    names = set()
    for module in SETTINGS_READERS:
        for node in ast.walk(ast.parse((ROOT / module).read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            first, called = node.args[0], ast.unparse(node.func)
            reads = called.startswith(("env_", "_number")) or "environ" in called
            named = isinstance(first, ast.Constant) and isinstance(first.value, str)
            if reads and named and re.fullmatch(r"[A-Z][A-Z0-9_]+", first.value):
                names.add(first.value)
    return names


def _settings_in_the_table() -> set[str]:
    rows = [line for line in SETTINGS_TABLE.read_text().splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}


def test_every_setting_is_in_the_one_table():
    missing = _settings_read() - _settings_in_the_table()
    assert not missing, f"not in {SETTINGS_TABLE.relative_to(ROOT)}: {sorted(missing)}"
    assert len(_settings_read()) > 100  # the readers were read


def test_the_table_names_no_setting_that_is_not_read():
    """A row left behind by a setting removed misleads as much as one missing."""
    # Read by prometheus_client and by the Makefile, not by a call of ours.
    read = _settings_read() | {"PROMETHEUS_MULTIPROC_DIR", "DOCS_PORT"}
    made_up = {name for name in _settings_in_the_table() - read if not name.endswith("_FILE")}
    assert not made_up, f"in the table but read nowhere: {sorted(made_up)}"
