"""The standards endpoints of the sandbox (docs/developing/assurance-interface.md,
docs/interface.md), over real HTTP."""

from __future__ import annotations

import re

import pytest
import requests

from portal.assurance import records
from portal.assurance.codec import Format, decode

CROPS = "Combinable Crops and Sugar Beet"
TIMEOUT = 10
# An address of this module's own (X-Forwarded-For), so no other module's lockout reaches it.
ADDRESS = "192.0.2.11"
FORMATS = [pytest.param(Format.JSON, id="json"), pytest.param(Format.XML, id="xml")]
HTML_TAG = re.compile(r"<(p|ul|ol|li|strong|em|a|br)\b[^>]*>")


@pytest.fixture(scope="module")
def grower(sandbox) -> requests.Session:
    session = requests.Session()
    session.auth = ("grower", "grower-demo-pass")
    session.headers["X-Forwarded-For"] = ADDRESS
    yield session
    session.close()


def get(sandbox, session, path, fmt=Format.JSON, **params) -> requests.Response:
    return session.get(
        sandbox.endpoint(path),
        params=params or None,
        headers={"Accept": fmt.media_type},
        timeout=TIMEOUT,
    )


def fetch(sandbox, session, path, record_type, fmt=Format.JSON, **params):
    response = get(sandbox, session, path, fmt, **params)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return decode(response.content, record_type, fmt)


@pytest.fixture(scope="module")
def crops_guid(sandbox, grower) -> str:
    schemes = fetch(sandbox, grower, "/v1/standards.eb", records.SchemeList)
    return next(s.scheme_guid for s in schemes.items if s.scheme_name == CROPS)


@pytest.fixture(scope="module")
def live_sections(sandbox, grower, crops_guid) -> records.SectionList:
    return fetch(sandbox, grower, f"/v1/standards/{crops_guid}.eb", records.SectionList)


def section(sandbox, session, scheme_guid, key, fmt=Format.JSON, stage="", **params):
    path = f"/v1/standards/{stage}{scheme_guid}/{key}.eb"
    return fetch(sandbox, session, path, records.SectionData, fmt, **params)


def references(data: records.SectionData) -> list[str]:
    return [p.reference for p in data.standard_points]


# --- scheme lists ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_live_scheme_list_has_at_least_three_schemes_including_crops(sandbox, grower, fmt):
    schemes = fetch(sandbox, grower, "/v1/standards.eb", records.SchemeList, fmt)
    assert len(schemes.items) >= 3
    assert CROPS in [s.scheme_name for s in schemes.items]
    for scheme in schemes.items:
        assert scheme.scheme_name
        assert scheme.scheme_guid
        assert scheme.cache_date is not None
    assert len({s.scheme_guid for s in schemes.items}) == len(schemes.items)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_preview_scheme_list_has_the_crops_scheme(sandbox, grower, crops_guid, fmt):
    schemes = fetch(sandbox, grower, "/v1/standards/preview/.eb", records.SchemeList, fmt)
    crops = [s for s in schemes.items if s.scheme_name == CROPS]
    assert len(crops) == 1
    assert crops[0].scheme_guid == crops_guid
    assert crops[0].cache_date is not None


# --- section lists --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_crops_section_list_has_eight_or_more_sections_in_index_order(
    sandbox, grower, crops_guid, fmt
):
    listing = fetch(sandbox, grower, f"/v1/standards/{crops_guid}.eb", records.SectionList, fmt)
    assert listing.scheme_name == CROPS
    assert listing.scheme_guid == crops_guid
    assert listing.cache_date is not None
    assert len(listing.sections) >= 8
    indexes = [s.index for s in listing.sections]
    assert None not in indexes
    assert indexes == sorted(indexes)
    assert len(set(indexes)) == len(indexes)
    for entry in listing.sections:
        assert entry.guid and entry.name
        assert re.fullmatch(r"[A-Z]{2}", entry.prefix)
    assert len({s.guid for s in listing.sections}) == len(listing.sections)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_crops_section_list_has_scopes_with_dates_that_its_sections_refer_to(
    sandbox, grower, crops_guid, fmt
):
    listing = fetch(sandbox, grower, f"/v1/standards/{crops_guid}.eb", records.SectionList, fmt)
    assert listing.scopes
    for scope in listing.scopes:
        assert scope.guid and scope.name
        assert scope.start_date is not None and scope.end_date is not None
        assert scope.start_date < scope.end_date
    scope_guids = {s.guid for s in listing.scopes}
    assert {s.scope_guid for s in listing.sections} <= scope_guids


def test_the_crops_section_list_has_the_sector_prefixes_cr_and_sb(live_sections):
    assert {s.sector_prefix for s in live_sections.sections} == {"CR", "SB"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_sector_prefix_filter_of_sb_lists_only_the_sb_sections(
    sandbox, grower, crops_guid, live_sections, fmt
):
    listing = fetch(
        sandbox, grower, f"/v1/standards/{crops_guid}.eb", records.SectionList, fmt,
        SectorPrefixFilter="SB",
    )  # fmt: skip
    assert listing.sections
    assert {s.sector_prefix for s in listing.sections} == {"SB"}
    expected = [s.guid for s in live_sections.sections if s.sector_prefix == "SB"]
    assert [s.guid for s in listing.sections] == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_preview_section_list_of_crops_lists_the_next_versions_sections(
    sandbox, grower, crops_guid, live_sections, fmt
):
    listing = fetch(
        sandbox, grower, f"/v1/standards/preview/{crops_guid}.eb", records.SectionList, fmt
    )
    assert listing.scheme_guid == crops_guid
    assert len(listing.sections) >= 8
    indexes = [s.index for s in listing.sections]
    assert indexes == sorted(indexes)
    assert listing.scopes
    for scope in listing.scopes:
        assert scope.start_date is not None and scope.end_date is not None
    # The preview is a different edition: its scopes and sections are its own.
    assert {s.guid for s in listing.scopes}.isdisjoint({s.guid for s in live_sections.scopes})
    assert {s.guid for s in listing.sections}.isdisjoint({s.guid for s in live_sections.sections})
    codes = {(s.sector_prefix, s.prefix) for s in listing.sections}
    assert codes == {(s.sector_prefix, s.prefix) for s in live_sections.sections}


# --- section data ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_storage_section_by_prefix_has_its_standard_points_in_index_order(
    sandbox, grower, crops_guid, fmt
):
    data = section(sandbox, grower, crops_guid, "ST", fmt)
    assert data.scheme_guid == crops_guid
    assert data.sector_prefix == "CR"
    assert data.section_prefix == "ST"
    assert data.section_guid and data.section_name
    assert data.cache_date is not None
    indexes = [p.index for p in data.standard_points]
    assert None not in indexes
    assert indexes == sorted(indexes)
    refs = references(data)
    assert "CR.ST.3" in refs
    assert "CR.ST.3.1" in refs
    assert refs.index("CR.ST.3") < refs.index("CR.ST.3.1")
    assert all(re.fullmatch(r"CR\.ST\.\d+(\.\d+)?", r) for r in refs)
    assert len(set(refs)) == len(refs)
    for point in data.standard_points:
        assert point.guid and point.assessment_question


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_audit_points_and_answers_of_a_section_belong_to_its_standard_points(
    sandbox, grower, crops_guid, fmt
):
    data = section(sandbox, grower, crops_guid, "ST", fmt)
    point_guids = {p.guid for p in data.standard_points}
    assert data.audit_points and data.answers
    assert {a.question_guid for a in data.audit_points} <= point_guids
    assert {a.question_guid for a in data.answers} <= point_guids
    # docs/interface.md: each standard point has audit points and answers.
    assert {a.question_guid for a in data.audit_points} == point_guids
    assert {a.question_guid for a in data.answers} == point_guids
    for answer in data.answers:
        assert answer.guid and answer.answer_text
        assert isinstance(answer.critical_point, bool)
    for audit_point in data.audit_points:
        assert audit_point.guid and audit_point.item_text
    guids = [x.guid for x in (*data.standard_points, *data.audit_points, *data.answers)]
    assert len(set(guids)) == len(guids)


def test_audit_points_answers_and_links_follow_the_order_of_their_standard_points(
    sandbox, grower, crops_guid
):
    data = section(sandbox, grower, crops_guid, "ST")
    position = {p.guid: n for n, p in enumerate(data.standard_points)}
    for items in (data.audit_points, data.answers):
        keys = [(position[x.question_guid], x.index) for x in items]
        assert keys == sorted(keys)
        assert len(set(keys)) == len(keys)
    link_positions = [position[link.asset_guid] for link in data.links]
    assert link_positions == sorted(link_positions)


def test_audit_point_and_answer_references_extend_their_standard_points_reference(
    sandbox, grower, crops_guid
):
    data = section(sandbox, grower, crops_guid, "ST")
    reference = {p.guid: p.reference for p in data.standard_points}
    for audit_point in data.audit_points:
        assert audit_point.reference.startswith(f"{reference[audit_point.question_guid]}-A")
    for answer in data.answers:
        assert answer.reference.startswith(f"{reference[answer.question_guid]}-R")


def test_a_section_prefix_matches_without_regard_to_case(sandbox, grower, crops_guid):
    assert section(sandbox, grower, crops_guid, "st") == section(sandbox, grower, crops_guid, "ST")


def test_application_xml_is_answered_as_application_xml(sandbox, grower, crops_guid):
    response = grower.get(
        sandbox.endpoint(f"/v1/standards/{crops_guid}/ST.eb"),
        headers={"Accept": "application/xml"},
        timeout=TIMEOUT,
    )
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/xml")
    as_xml = decode(response.content, records.SectionData, Format.XML)
    assert as_xml == section(sandbox, grower, crops_guid, "ST")


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_categories_and_links_of_a_section_are_consistent(sandbox, grower, crops_guid, fmt):
    data = section(sandbox, grower, crops_guid, "ST", fmt)
    assert data.categories and data.links
    point_guids = {p.guid for p in data.standard_points}
    category_guids = {c.guid for c in data.categories}
    for link in data.links:
        assert link.guid
        assert link.asset_guid in point_guids
        assert link.category_guid in category_guids
    # Every category listed is one that a link of this section uses.
    assert category_guids == {link.category_guid for link in data.links}
    for category in data.categories:
        assert category.name


def test_the_crops_scheme_has_at_least_one_critical_answer(
    sandbox, grower, crops_guid, live_sections
):
    critical = [
        answer
        for entry in live_sections.sections
        for answer in section(
            sandbox, grower, crops_guid, entry.prefix, SectorPrefixFilter=entry.sector_prefix
        ).answers
        if answer.critical_point
    ]
    assert critical


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_section_by_guid_gives_the_same_data_as_by_prefix(
    sandbox, grower, crops_guid, live_sections, fmt
):
    storage = next(s for s in live_sections.sections if s.prefix == "ST")
    by_prefix = section(sandbox, grower, crops_guid, "ST", fmt)
    by_guid = section(sandbox, grower, crops_guid, storage.guid, fmt)
    assert by_prefix.section_guid == storage.guid
    assert by_guid == by_prefix


def test_the_same_section_reads_the_same_in_json_and_xml(sandbox, grower, crops_guid):
    assert section(sandbox, grower, crops_guid, "ST", Format.JSON) == section(
        sandbox, grower, crops_guid, "ST", Format.XML
    )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("sector", ["SB", "CR", "sb"])
def test_a_sector_prefix_filter_picks_the_section_of_that_sector_for_a_shared_prefix(
    sandbox, grower, crops_guid, live_sections, sector, fmt
):
    data = section(sandbox, grower, crops_guid, "CP", fmt, SectorPrefixFilter=sector)
    wanted = sector.upper()
    assert data.sector_prefix == wanted
    assert data.section_prefix == "CP"
    expected = next(
        s for s in live_sections.sections if s.sector_prefix == wanted and s.prefix == "CP"
    )
    assert data.section_guid == expected.guid
    assert data.standard_points
    assert all(r.startswith(f"{wanted}.CP.") for r in references(data))


def test_a_shared_prefix_without_a_filter_gives_a_section_of_one_sector_only(
    sandbox, grower, crops_guid
):
    data = section(sandbox, grower, crops_guid, "CP")
    assert data.sector_prefix in ("CR", "SB")
    assert all(r.startswith(f"{data.sector_prefix}.CP.") for r in references(data))


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_preview_of_a_changed_section_says_what_has_changed_and_differs_from_live(
    sandbox, grower, crops_guid, fmt
):
    live = section(sandbox, grower, crops_guid, "ST", fmt)
    preview = section(sandbox, grower, crops_guid, "ST", fmt, stage="preview/")
    assert live.what_has_changed is None
    assert preview.what_has_changed
    assert preview.section_guid != live.section_guid
    assert preview.sector_prefix == "CR" and preview.section_prefix == "ST"
    live_refs, preview_refs = set(references(live)), set(references(preview))
    assert live_refs - preview_refs or preview_refs - live_refs
    indexes = [p.index for p in preview.standard_points]
    assert indexes == sorted(indexes)
    statuses = {p.revision_status for p in preview.standard_points}
    assert statuses <= {"Unchanged", "Revised", "New"}
    assert {"Revised", "New"} <= statuses
    assert {p.revision_status for p in live.standard_points} <= {"Unchanged", "Revised", "New"}
    point_guids = {p.guid for p in preview.standard_points}
    assert {a.question_guid for a in preview.answers} <= point_guids
    assert {link.asset_guid for link in preview.links} <= point_guids


def test_the_preview_section_by_guid_gives_the_same_data_as_by_prefix(sandbox, grower, crops_guid):
    by_prefix = section(sandbox, grower, crops_guid, "ST", stage="preview/")
    by_guid = section(sandbox, grower, crops_guid, by_prefix.section_guid, stage="preview/")
    assert by_guid == by_prefix


def test_all_live_schemes_together_have_at_least_150_standard_points(sandbox, grower):
    schemes = fetch(sandbox, grower, "/v1/standards.eb", records.SchemeList)
    total = 0
    for scheme in schemes.items:
        listing = fetch(
            sandbox, grower, f"/v1/standards/{scheme.scheme_guid}.eb", records.SectionList
        )
        for entry in listing.sections:
            data = section(sandbox, grower, scheme.scheme_guid, entry.guid)
            assert data.standard_points, f"{entry.sector_prefix}.{entry.prefix} is empty"
            total += len(data.standard_points)
    assert total >= 150


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_html_fields_of_standard_points_carry_html(sandbox, grower, crops_guid, fmt):
    data = section(sandbox, grower, crops_guid, "ST", fmt)
    for name in ("assessment_guidelines", "reference_sources", "guidance"):
        values = [getattr(p, name) for p in data.standard_points if getattr(p, name)]
        assert values, name
        assert any(HTML_TAG.search(v) for v in values), name
    assert all(not HTML_TAG.search(p.assessment_question) for p in data.standard_points)


def test_the_html_of_a_standard_point_is_escaped_text_in_xml(sandbox, grower, crops_guid):
    response = get(sandbox, grower, f"/v1/standards/{crops_guid}/ST.eb", Format.XML)
    assert b"&lt;p&gt;" in response.content or b"&lt;ul&gt;" in response.content
    assert b"<p>" not in response.content


# --- not found ------------------------------------------------------------------------------------

UNKNOWN_GUID = "ZZZZZZZZZZ.ZZZZZZZZZZZZZ"


def not_found_paths(crops_guid: str, storage_guid: str) -> list[str]:
    return [
        f"/v1/standards/{UNKNOWN_GUID}.eb",
        f"/v1/standards/preview/{UNKNOWN_GUID}.eb",
        f"/v1/standards/{UNKNOWN_GUID}/ST.eb",
        f"/v1/standards/preview/{UNKNOWN_GUID}/ST.eb",
        f"/v1/standards/{crops_guid}/ZZ.eb",
        f"/v1/standards/preview/{crops_guid}/ZZ.eb",
        f"/v1/standards/{crops_guid}/{UNKNOWN_GUID}.eb",
        # A section GUID of the live edition is not one of the preview's.
        f"/v1/standards/preview/{crops_guid}/{storage_guid}.eb",
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unknown_scheme_prefix_or_section_guid_answers_404_not_found(
    sandbox, grower, crops_guid, live_sections, fmt
):
    storage = next(s for s in live_sections.sections if s.prefix == "ST")
    for path in not_found_paths(crops_guid, storage.guid):
        response = get(sandbox, grower, path, fmt)
        assert response.status_code == 404, path
        assert response.headers["Content-Type"].startswith(fmt.media_type), path
        body = decode(response.content, records.ErrorBody, fmt)
        assert [e.code for e in body.errors] == ["OperationError:NotFound"], path
        assert body.errors[0].message


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_sector_filter_that_excludes_the_section_answers_404(sandbox, grower, crops_guid, fmt):
    response = get(
        sandbox, grower, f"/v1/standards/{crops_guid}/ST.eb", fmt, SectorPrefixFilter="SB"
    )
    assert response.status_code == 404
    body = decode(response.content, records.ErrorBody, fmt)
    assert [e.code for e in body.errors] == ["OperationError:NotFound"]


def test_the_standards_need_credentials(sandbox, crops_guid):
    for path in ("/v1/standards.eb", f"/v1/standards/{crops_guid}.eb"):
        response = requests.get(
            sandbox.endpoint(path), headers={"Accept": "application/json"}, timeout=TIMEOUT
        )
        assert response.status_code == 401
        assert "Basic" in response.headers["WWW-Authenticate"]
        body = decode(response.content, records.ErrorBody, Format.JSON)
        assert [e.code for e in body.errors] == ["OperationError:AuthenticationRequired"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_sector_filter_no_section_has_gives_an_empty_list_that_is_still_written(
    sandbox, grower, crops_guid, fmt
):
    response = get(sandbox, grower, f"/v1/standards/{crops_guid}.eb", fmt, SectorPrefixFilter="ZZ")
    assert response.status_code == 200
    assert decode(response.content, records.SectionList, fmt).sections == []
    if fmt is Format.JSON:
        assert response.json()["Sections"] == []
    else:
        assert b"<Sections></Sections>" in response.content or b"<Sections/>" in response.content
