"""/standards/<guid>/<sector>/<prefix>/checklist.pdf: a section as a printable checklist."""

from __future__ import annotations

import pytest

from tests.portal.standards.helpers import CROPS, STORAGE, aim_guid, demo_section, pdf_words

pytestmark = pytest.mark.django_db
CHECKLIST = f"{STORAGE}checklist.pdf"


def words(text: str) -> str:
    return " ".join(text.split())


def test_it_downloads_a_checklist_of_every_point(grower):
    response = grower.get(CHECKLIST)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="CR.ST-storage.pdf"'
    assert response.content.startswith(b"%PDF")
    text = pdf_words(response.content)
    assert "CR.ST Storage" in text
    assert "Combinable Crops and Sugar Beet" in text
    assert "checklist of 21 standard points" in text
    points = demo_section("crops", "CR.ST")["points"]
    position = 0
    for point in points:
        reference = f"CR.ST.{point['number']}"
        found = text.find(f"{reference} {words(point['question'])}", position)
        assert found >= 0, reference
        position = found  # in order
    assert "The assessor checks:" in text


def test_it_makes_a_checklist_of_only_the_points_the_filters_keep(grower):
    response = grower.get(f"{CHECKLIST}?critical=1")
    assert response["Content-Disposition"] == 'attachment; filename="CR.ST-storage-filtered.pdf"'
    text = pdf_words(response.content)
    points = demo_section("crops", "CR.ST")["points"]
    critical = [p for p in points if any(a["critical"] for a in p["answers"])]
    assert 0 < len(critical) < len(points)
    assert (
        f"checklist of {len(critical)} standard points (only those with critical answers)" in text
    )
    for point in points:
        line = f"CR.ST.{point['number']} {words(point['question'])}"
        assert (line in text) == (point in critical), line


def test_a_checklist_of_no_point_still_names_what_it_was_narrowed_to(grower):
    traceability = aim_guid(grower.get(STORAGE).content.decode(), "Traceability")
    response = grower.get(f"{CHECKLIST}?aim={traceability}&critical=1")
    text = pdf_words(response.content)
    assert (
        "checklist of 0 standard points (only those with critical answers, serving the aim "
        "Traceability)" in text
    )


def test_it_answers_404_for_an_unknown_section(grower):
    assert grower.get(f"/standards/{CROPS}/CR/ZZ/checklist.pdf").status_code == 404
