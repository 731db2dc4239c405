"""The catalogues of translations (locale/, docs/welsh.md) kept complete: `makemessages` finds
nothing new nor gone (a string added in English without running it fails here), msgfmt's checks
pass, no Welsh entry is untranslated or fuzzy, and each Welsh string keeps its English string's
placeholders, so that no value is lost or asked for that is not given."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from tests.conftest import ROOT

LOCALE = ROOT / "locale"
CATALOGUES = sorted(LOCALE.glob("**/LC_MESSAGES/*.po"))
OURS = sorted(LOCALE.glob("cy/LC_MESSAGES/*.po"))
# What makemessages reads: the portal's code, its pages and its scripts.
SOURCES = ["portal", "templates", "static", "locale", "manage.py"]
# %(name)s, %s and %d (Python, and JavaScript's interpolate); {name} (str.format).
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdfr]|%[sdfr]|\{(\w*)\}")


def entries(catalogue: polib.POFile) -> set[tuple]:
    return {(e.msgctxt, e.msgid, e.msgid_plural, tuple(sorted({f for f, _ in e.occurrences})))
            for e in catalogue if not e.obsolete}  # fmt: skip


def placeholders(text: str) -> list[str]:
    return sorted(match[0] for match in PLACEHOLDER.finditer(text))


def test_there_are_welsh_catalogues_of_ours_and_of_corrections_to_djangos():
    assert LOCALE / "cy/LC_MESSAGES/django.po" in OURS
    assert LOCALE / "corrections/cy/LC_MESSAGES/django.po" in CATALOGUES


def test_makemessages_leaves_the_catalogue_as_it_is(tmp_path: Path):
    for source in SOURCES:
        copy = shutil.copytree if (ROOT / source).is_dir() else shutil.copy
        copy(ROOT / source, tmp_path / source)
    environment = {**os.environ, "PORTAL_DEVELOPMENT": "true", "PYTHONPATH": str(tmp_path)}
    subprocess.run([sys.executable, "manage.py", "makemessages"], cwd=tmp_path, check=True,
                   env=environment, capture_output=True)  # fmt: skip
    for committed in OURS:
        made = polib.pofile(str(tmp_path / committed.relative_to(ROOT)))
        kept = polib.pofile(str(committed))
        added = entries(made) - entries(kept)
        gone = entries(kept) - entries(made)
        assert not added and not gone, (
            f"{committed.relative_to(ROOT)} is not up to date with the code: run `make messages` "
            f"and translate what it adds (docs/welsh.md). New: {sorted(added)[:5]}; gone: "
            f"{sorted(gone)[:5]}"
        )
    new_catalogues = {p.relative_to(tmp_path) for p in (tmp_path / "locale").glob("cy/**/*.po")}
    assert new_catalogues == {p.relative_to(ROOT) for p in OURS}


@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda p: str(p.relative_to(LOCALE)))
def test_msgfmt_checks_it_and_warns_of_nothing(catalogue: Path, tmp_path: Path):
    checked = subprocess.run(["msgfmt", "--check", "--output-file", str(tmp_path / "out.mo"),
                              str(catalogue)], capture_output=True, text=True)  # fmt: skip
    assert (checked.returncode, checked.stderr) == (0, "")


@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda p: str(p.relative_to(LOCALE)))
def test_every_entry_is_in_welsh(catalogue: Path):
    read = polib.pofile(str(catalogue))
    assert not read.metadata_is_fuzzy
    assert read.metadata["Language"] == "cy"
    assert [e.msgid for e in read.untranslated_entries()] == []
    assert [e.msgid for e in read.fuzzy_entries()] == []


@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda p: str(p.relative_to(LOCALE)))
def test_each_welsh_string_keeps_its_placeholders(catalogue: Path):
    wrong = []
    for entry in polib.pofile(str(catalogue)):
        if entry.msgid_plural:
            english = set(placeholders(entry.msgid) + placeholders(entry.msgid_plural))
            # A form may leave out the count (Welsh "un" for 1), but asks for nothing else.
            wrong += [(entry.msgid, form) for form in entry.msgstr_plural.values()
                      if not set(placeholders(form)) <= english]  # fmt: skip
        elif placeholders(entry.msgstr) != placeholders(entry.msgid):
            wrong.append((entry.msgid, entry.msgstr))
    assert wrong == []
