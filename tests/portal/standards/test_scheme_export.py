"""A whole scheme as a PDF checklist and as CSV (portal/standards/exports.py), made from the
live sandbox through the standards cache."""

from __future__ import annotations

import csv
import io
import re

import pypdf
import pytest

from portal.assurance.client import BasicAuth
from portal.standards import exports
from portal.standards.addresses import LIVE, PREVIEW
from tests.portal.standards.helpers import CROPS, demo

pytestmark = pytest.mark.usefixtures("upstream_sandbox")

GROWER = BasicAuth("grower", "grower-demo-pass")


def demo_sections(name: str) -> list[tuple[str, str, list[str]]]:
    """A demo scheme's sections in order: code, name and the references of their points."""
    sections = sorted(demo(name)["sections"], key=lambda s: s.get("index", 0))
    return [
        (code := f"{s['sector']}.{s['prefix']}", s["name"],
         [f"{code}.{p['number']}" for p in s["points"]])
        for s in sections
    ]  # fmt: skip


@pytest.fixture
def crops():
    steps: list[tuple[int, int]] = []
    scheme = exports.whole_scheme(GROWER, LIVE, CROPS, lambda *step: steps.append(step),
                                  steps_after=1)  # fmt: skip
    return scheme, steps


def test_it_holds_every_section_and_point_in_order(crops):
    scheme, _ = crops
    expected = demo_sections("crops")
    assert [(s.code, s.name) for s in scheme.sections] == [(c, n) for c, n, _ in expected]
    assert [[p.reference for p in s.points] for s in scheme.sections] == [r for *_, r in expected]
    assert scheme.name == demo("crops")["name"]
    assert scheme.point_count == sum(len(r) for *_, r in expected)


def test_its_progress_only_rises_and_leaves_the_steps_after(crops):
    scheme, steps = crops
    total = len(scheme.sections) + 1
    assert steps == [(n, total) for n in range(1, total)]


def test_the_pdf_has_a_cover_contents_with_page_numbers_and_each_section_from_a_page(crops):
    scheme, _ = crops
    reader = pypdf.PdfReader(io.BytesIO(exports.scheme_pdf(scheme)))
    pages = [" ".join(page.extract_text().split()) for page in reader.pages]
    assert scheme.name in pages[0] and "The standards in force" in pages[0]
    assert f"Checklist of {scheme.point_count} standard points" in pages[0]
    contents = pages[1]
    assert contents.startswith("Contents")
    for section in scheme.sections:
        listed = re.search(
            rf"{re.escape(section.code)} {re.escape(section.name)}[ .]*(\d+)", contents
        )
        assert listed, section.code
        first_page = pages[int(listed[1]) - 1]
        assert first_page.startswith(f"{section.code} {section.name}"), section.code
    text = " ".join(pages)
    for section in scheme.sections:
        for p in section.points:
            assert f"{p.reference} " in text, p.reference
    assert "Critical: " in text  # critical answers are marked


def test_the_csv_has_a_row_for_every_point_naming_its_section(crops):
    scheme, _ = crops
    content = exports.scheme_csv(scheme.sections)
    assert content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(content.decode("utf-8-sig"))))
    expected = [(code, name, ref) for code, name, refs in demo_sections("crops") for ref in refs]
    assert [(r["Section"], r["Section name"], r["Reference"]) for r in rows] == expected
    assert {r["Critical"] for r in rows} == {"yes", "no"}


def test_the_files_are_named_for_the_scheme_and_stage(crops):
    scheme, _ = crops
    assert scheme.file_name("pdf") == "combinable-crops-and-sugar-beet.pdf"
    preview = exports.whole_scheme(GROWER, PREVIEW, CROPS)
    assert preview.file_name("csv") == "combinable-crops-and-sugar-beet-preview.csv"
    assert (
        "Preview of the next version"
        in pypdf.PdfReader(io.BytesIO(exports.scheme_pdf(preview))).pages[0].extract_text()
    )
