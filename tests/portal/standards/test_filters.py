"""portal.standards.filters: Filters and Choices: what a section's filters keep and offer, as an
address and in words."""

from __future__ import annotations

from portal.assurance import records
from portal.standards.filters import Choices, Filters
from portal.standards.points import Point

SOIL = records.Category(guid="aim-1", name="Soil & water")


def point(reference: str, *, aims=(), critical=False, revision="Unchanged") -> Point:
    return Point(
        point=records.StandardPoint(reference=reference, revision_status=revision),
        guidelines="", record_keeping="", guidance="",
        answers=[records.Answer(answer_text="No", critical_point=critical)],
        aims=list(aims),
    )  # fmt: skip


def section_of(points: list[Point]) -> records.SectionData:
    """A section as the service would send it, holding `points` with their aims."""
    aims = {aim.guid: aim for p in points for aim in p.aims}
    return records.SectionData(
        standard_points=[
            records.StandardPoint(guid=p.reference, reference=p.reference,
                                  revision_status=p.point.revision_status)
            for p in points
        ],
        categories=list(aims.values()),
        links=[
            records.Link(category_guid=aim.guid, asset_guid=p.reference)
            for p in points for aim in p.aims
        ],
    )  # fmt: skip


POINTS = [point("A.1", aims=[SOIL]), point("A.2", critical=True, revision="New"), point("A.3")]
CHOICES = Choices.of(section_of(POINTS))


def test_none_set_keeps_every_point_and_adds_nothing_to_an_address():
    assert Filters().apply(POINTS) == POINTS
    assert Filters().query == ""
    assert Filters().described(CHOICES) == []


def test_each_filter_keeps_its_points_and_says_so():
    assert Filters(aim="aim-1").apply(POINTS) == POINTS[:1]
    assert Filters(critical=True).apply(POINTS) == POINTS[1:2]
    assert Filters(revision="New").apply(POINTS) == POINTS[1:2]
    every = Filters(aim="aim-1", critical=True, revision="New")
    assert every.apply(POINTS) == []
    assert every.described(CHOICES) == [
        "with critical answers", "serving the aim Soil & water", "of revision New",
    ]  # fmt: skip


def test_the_query_is_escaped_for_an_address():
    filters = Filters(aim="a&b=c", critical=True, revision="Not yet/changed")
    assert filters.query == "?aim=a%26b%3Dc&critical=1&revision=Not+yet%2Fchanged"


def test_the_choices_are_the_aims_by_name_and_the_revisions_the_points_have():
    water = records.Category(guid="aim-2", name="Animal welfare")
    points = [*POINTS, point("A.4", aims=[water, SOIL], revision=None)]
    choices = Choices.of(section_of(points))
    assert choices == Choices(
        aims={"aim-2": "Animal welfare", "aim-1": "Soil & water"}, revisions=["New", "Unchanged"]
    )
    assert list(choices.aims) == ["aim-2", "aim-1"]  # as the list offers them


def test_an_aim_no_point_serves_is_not_offered():
    section = section_of(POINTS)
    section.categories.append(records.Category(guid="aim-9", name="Unused"))
    assert list(Choices.of(section).aims) == ["aim-1"]


def test_within_drops_what_none_of_the_points_has():
    assert Filters(aim="zzz", critical=True, revision="Gone").within(CHOICES) == Filters(
        critical=True
    )
    kept = Filters(aim="aim-1", revision="New")
    assert kept.within(CHOICES) == kept
