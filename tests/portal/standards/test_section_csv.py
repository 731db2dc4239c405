"""/standards/<guid>/<sector>/<prefix>/export.csv: a section as a spreadsheet."""

from __future__ import annotations

import csv
import io

import pytest

from portal.assurance import records
from portal.standards import exports
from portal.standards.points import arrange
from tests.portal.standards.helpers import (
    CROPS,
    demo_critical_references,
    demo_references,
    demo_section,
)

HEADER = [
    "Reference", "Standard point", "How it is measured", "Record keeping", "Guidance",
    "Score", "Revision", "Aims", "Audit points", "Answers", "Critical",
]  # fmt: skip


def rows(content: bytes) -> list[dict[str, str]]:
    assert content.startswith(b"\xef\xbb\xbf")
    return list(csv.DictReader(io.StringIO(content.decode("utf-8-sig"))))


@pytest.mark.django_db
def test_it_downloads_the_section_as_csv(grower):
    response = grower.get(f"/standards/{CROPS}/CR/ST/export.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="CR.ST-storage.csv"'
    assert response.content.startswith(b"\xef\xbb\xbf")
    assert next(csv.reader(io.StringIO(response.content.decode("utf-8-sig")))) == HEADER


@pytest.mark.django_db
def test_it_has_one_row_per_point_in_order(grower):
    table = rows(grower.get(f"/standards/{CROPS}/CR/ST/export.csv").content)
    assert [row["Reference"] for row in table] == demo_references("crops", "CR.ST")
    points = demo_section("crops", "CR.ST")["points"]
    assert [row["Standard point"] for row in table] == [p["question"] for p in points]
    first = table[0]
    assert first["Score"] == "2"
    assert first["Revision"] == "Unchanged"
    assert first["Aims"] == "Crop quality; Food safety"
    assert first["Audit points"] == (
        "CR.ST.1-A1: Roofs, walls, doors and floors are in good repair and free from leaks."
    )
    assert first["Guidance"].startswith("Check gutters and downpipes before harvest")
    assert "<" not in "".join(first.values())  # HTML becomes words
    critical = {row["Reference"]: row["Critical"] for row in table}
    assert critical["CR.ST.3.2"] == "yes"
    assert critical["CR.ST.1"] == "no"
    assert "[critical]" in next(r for r in table if r["Reference"] == "CR.ST.3.2")["Answers"]


@pytest.mark.django_db
def test_it_keeps_each_list_item_on_a_line_of_its_own(grower):
    table = rows(grower.get(f"/standards/{CROPS}/CR/ST/export.csv").content)
    record_keeping = {row["Reference"]: row["Record keeping"] for row in table}
    assert record_keeping["CR.ST.3.2"] == (
        "Product, rate, date, store and operator\nContractor's treatment report, if used"
    )
    assert record_keeping["CR.ST.2"] == "Pre-harvest cleaning record with date and name"


def test_it_exports_only_the_points_the_filters_keep(grower):
    response = grower.get(f"/standards/{CROPS}/CR/ST/export.csv?critical=1")
    assert response["Content-Disposition"] == 'attachment; filename="CR.ST-storage-filtered.csv"'
    table = rows(response.content)
    assert [row["Reference"] for row in table] == demo_critical_references("crops", "CR.ST")
    assert {row["Critical"] for row in table} == {"yes"}


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["aim=zzz", "revision=<b>", "critical=0"])
def test_a_filter_that_keeps_every_point_exports_the_whole_section(grower, query):
    response = grower.get(f"/standards/{CROPS}/CR/ST/export.csv?{query}")
    assert response["Content-Disposition"] == 'attachment; filename="CR.ST-storage.csv"'
    assert [row["Reference"] for row in rows(response.content)] == demo_references("crops", "CR.ST")


@pytest.mark.django_db
def test_it_exports_the_preview(grower):
    response = grower.get(f"/standards/preview/{CROPS}/CR/ST/export.csv")
    assert response.status_code == 200
    references = [row["Reference"] for row in rows(response.content)]
    assert "CR.ST.15" not in references
    assert references[-2:] == ["CR.ST.19", "CR.ST.20"]


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_section(grower):
    assert grower.get(f"/standards/{CROPS}/CR/ZZ/export.csv").status_code == 404


def crafted_section(**fields: str) -> records.SectionData:
    point = {
        "guid": "P1",
        "reference": "XX.YY.1",
        "assessment_question": "A question.",
        "index": 1,
        **fields,
    }
    return records.SectionData(
        sector_prefix="XX",
        section_prefix="YY",
        section_name="Crafted",
        standard_points=[records.StandardPoint(**point)],
        audit_points=[
            records.AuditPoint(
                question_guid="P1", guid="A1", reference="XX.YY.1-A1", item_text="=1+1", index=1
            )
        ],
        answers=[
            records.Answer(
                question_guid="P1",
                guid="R1",
                reference="XX.YY.1-R1",
                answer_text="Yes",
                critical_point=True,
                index=1,
            )
        ],
        categories=[records.Category(guid="C1", name="=cmd|' /C calc'!A0")],
        links=[records.Link(guid="L1", category_guid="C1", asset_guid="P1")],
    )


@pytest.mark.parametrize("formula", ['=HYPERLINK("http://evil.example","x")', "+1+1", "-1+1",
                                     "@SUM(A1)", "\t=1", "\r=1"])  # fmt: skip
def test_a_cell_that_would_be_a_formula_is_neutralised(formula):
    [row] = rows(exports.section_csv(arrange(crafted_section(assessment_question=formula))))
    assert row["Standard point"] == "'" + formula
    assert row["Aims"] == "'=cmd|' /C calc'!A0"
    assert not any(value[:1] in ("=", "+", "-", "@") for value in row.values())


def test_html_in_a_cell_becomes_words_and_formulas_in_it_are_neutralised():
    section = crafted_section(
        assessment_guidelines="<p>=SUM(A1:A9)</p>", guidance="<script>x()</script><p>Safe</p>"
    )
    [row] = rows(exports.section_csv(arrange(section)))
    assert row["How it is measured"] == "'=SUM(A1:A9)"
    assert row["Guidance"] == "Safe"
    assert row["Critical"] == "yes"
