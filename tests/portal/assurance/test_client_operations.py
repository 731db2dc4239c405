"""Every operation of `AssuranceClient` against the sandbox over a real socket, in JSON and XML:
typed records, the same records in both formats, the errors, the call reports, and no
credential leaking into exceptions, logs or reprs."""

from __future__ import annotations

import logging
import re
import types
import typing
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import datetime

import msgspec
import pytest

from portal.assurance import records
from portal.assurance.client import (
    AssuranceClient,
    BasicAuth,
    BearerToken,
    CallReport,
    SessionCookie,
)
from portal.assurance.codec import Format
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationFailed,
    AuthenticationRequired,
    LockoutActive,
    LockoutWarning,
    NotAContact,
    NotFound,
    StatusNotValid,
    ValidationFailed,
)
from tests.conftest import Sandbox, start_sandbox, stop_sandbox
from tests.demo import (
    COLDHARBOUR,
    COLDHARBOUR_SITE,
    HOLLOWFIELD,
    HOLLOWFIELD_FARM,
    MAIN_STORE,
    OAKHURST,
    OAKHURST_SITE,
)

FORMATS = [pytest.param(Format.JSON, id="json"), pytest.param(Format.XML, id="xml")]
CROPS = "Combinable Crops and Sugar Beet"
DEMO_SHORT_CODE = "7KXM4QHT2W"
UNKNOWN_SHORT_CODE = "2345678923"
UNKNOWN_SCHEME = "ZZZZZZZZZZ.ZZZZZZZZZZZZZ"
SHORT_CODE = re.compile(r"[2-9A-HJKMNP-Z]{8,12}")
GROWER, GROWER_EMAIL, GROWER_PASSWORD = "grower", "grower@example.com", "grower-demo-pass"
LAPSED, LAPSED_PASSWORD = "lapsed", "lapsed-demo-pass"
WRONG_PASSWORD = "not-the-grower-password"

HOLLOWFIELD_FARM_ADDRESS = "Hollowfield Farm, Long Lane, Little Wenham, Ipswich, Suffolk, IP7 6QW"

MONTH_AND_A_DAY = 31 * 24 * 3600


# --- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clients(sandbox: Sandbox) -> Iterator[dict[Format, AssuranceClient]]:
    """One client per format against the shared sandbox, without a hook."""
    made = {fmt: AssuranceClient(sandbox.url, fmt=fmt) for fmt in Format}
    yield made
    for client in made.values():
        client.close()


@pytest.fixture(scope="module")
def signins(clients) -> dict[Format, records.Authorization]:
    """The grower signed in once per format."""
    return {fmt: client.login(GROWER, GROWER_PASSWORD) for fmt, client in clients.items()}


@pytest.fixture(scope="module")
def tokens(signins) -> dict[Format, BearerToken]:
    return {fmt: BearerToken(authorization.token) for fmt, authorization in signins.items()}


@pytest.fixture(scope="module")
def crops(clients, tokens) -> str:
    """The GUID of the crops scheme."""
    schemes = clients[Format.JSON].schemes(tokens[Format.JSON])
    return next(s.scheme_guid for s in schemes.items if s.scheme_name == CROPS)


@pytest.fixture(scope="module")
def st_section_guid(clients, tokens, crops) -> str:
    """The GUID of the live `CR.ST` section of the crops scheme."""
    listing = clients[Format.JSON].sections(tokens[Format.JSON], crops, sector="CR")
    return next(s.guid for s in listing.sections if s.prefix == "ST")


@pytest.fixture(scope="module")
def lapsed_tokens(clients) -> dict[Format, BearerToken]:
    return {
        fmt: BearerToken(client.login(LAPSED, LAPSED_PASSWORD).token)
        for fmt, client in clients.items()
    }


@pytest.fixture(scope="module")
def lockout_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A sandbox of this module's own for failed sign-ins: the client always comes from
    127.0.0.1, and failures there must not lock the shared sandbox."""
    server = start_sandbox(tmp_path_factory.mktemp("lockout"), SANDBOX_LOCKOUT_FAILURES="5")
    yield server
    stop_sandbox(server)


@pytest.fixture
def locking(lockout_sandbox: Sandbox) -> Iterator[Sandbox]:
    """The lockout sandbox with no failures counted, before and after the test."""
    lockout_sandbox.reset_lockouts()
    yield lockout_sandbox
    lockout_sandbox.reset_lockouts()


# --- helpers --------------------------------------------------------------------------------------


def first_difference(json_value, xml_value, path: str = "record") -> str | None:
    """Where two records first differ, readably; None when they do not."""
    if isinstance(json_value, msgspec.Struct) and type(json_value) is type(xml_value):
        for f in msgspec.structs.fields(json_value):
            found = first_difference(
                getattr(json_value, f.name), getattr(xml_value, f.name), f"{path}.{f.name}"
            )
            if found:
                return found
        return None
    if isinstance(json_value, list) and isinstance(xml_value, list):
        for n, (j, x) in enumerate(zip(json_value, xml_value, strict=False)):
            found = first_difference(j, x, f"{path}[{n}]")
            if found:
                return found
        if len(json_value) != len(xml_value):
            return f"{path}: {len(json_value)} items in JSON, {len(xml_value)} in XML"
        return None
    if json_value != xml_value or type(json_value) is not type(xml_value):
        return f"{path}: JSON gives {json_value!r}, XML gives {xml_value!r}"
    return None


def assert_same(json_record, xml_record) -> None:
    difference = first_difference(json_record, xml_record)
    assert json_record == xml_record, difference
    assert difference is None, difference


def _scalar_type(annotation) -> type:
    """`str | None` -> str, and so on; a date-time field holds a datetime."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        (annotation,) = [a for a in typing.get_args(annotation) if a is not type(None)]
    return datetime if annotation is records.WireDateTime else annotation


def typed_values(record, path: str = "record") -> Iterator[tuple[str, type, object]]:
    """(path, declared type, value) of every field set in `record` and the records it holds;
    fails on a value whose type is not the declared one."""
    hints = typing.get_type_hints(type(record))
    for f in msgspec.structs.fields(record):
        value, where = getattr(record, f.name), f"{path}.{f.name}"
        annotation = hints[f.name]
        if typing.get_origin(annotation) is list:
            assert isinstance(value, list), f"{where} is {value!r}, not a list"
            (item_type,) = typing.get_args(annotation)
            for n, item in enumerate(value):
                assert type(item) is item_type, f"{where}[{n}] is a {type(item).__name__}"
                yield from typed_values(item, f"{where}[{n}]")
            continue
        if value is None:
            continue
        kind = _scalar_type(annotation)
        assert type(value) is kind, f"{where} is {value!r}, not a {kind.__name__}"
        if kind is datetime:
            assert value.tzinfo is not None, f"{where} has no time zone"
        yield where, kind, value


def kinds_present(record) -> set[type]:
    return {kind for _, kind, _ in typed_values(record)}


def full_request(**changes) -> records.PassportRequest:
    fields = dict(
        membership_guid=HOLLOWFIELD,
        site_guid=HOLLOWFIELD_FARM,
        store_guid=MAIN_STORE,
        crop_type="Wheat",
        variety="Skyfall",
        store_or_bin_name="Bin 4",
        loading_date=datetime.fromisoformat("2026-08-21T07:30:00Z"),
        harvest_year="2026",
        haulier_company_name="Marsh Lane Haulage Ltd",
        vehicle_registration="AB12 CDE",
        trailer_number="TR-0457",
        haulier_collection_ticket_no="MLH-882913",
        post_harvest_treatment_option="B",
        post_harvest_treatment_date=datetime.fromisoformat("2026-08-02T14:00:00Z"),
        post_harvest_treatment_product="K-Obiol EC 25",
        don_risk_assessment_result=12.5,
        don_test_date=datetime.fromisoformat("2026-08-15T11:20:00Z"),
        don_test_result="Below 200 µg/kg",
        zon_test_date=datetime.fromisoformat("2026-08-15T11:20:00Z"),
        zon_test_result="Below 20 µg/kg",
    )
    return records.PassportRequest(**{**fields, **changes})


def assert_error(
    error: AssuranceError, kind: type[AssuranceError], status: int, code: str | None
) -> None:
    assert type(error) is kind, f"{type(error).__name__}: {error}"
    assert error.status == status
    if code is not None:
        assert error.code == code
        assert code in [e.code for e in error.errors]
    assert error.errors, "the error body's items are kept"
    assert all(e.code and e.message for e in error.errors)
    assert error.message
    assert error.message == " ".join(e.message for e in error.errors)


# --- records of every operation, typed ------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_login_answers_an_authorization_with_a_token_and_an_aware_expiry(signins, fmt):
    authorization = signins[fmt]
    assert type(authorization) is records.Authorization
    assert authorization.realm == "Assurance"
    assert isinstance(authorization.token, str) and len(authorization.token) >= 43
    assert kinds_present(authorization) == {str, datetime}
    assert authorization.expires > datetime.now(authorization.expires.tzinfo)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("preview", [False, True], ids=["live", "preview"])
def test_schemes_answers_a_scheme_list_of_typed_entries(clients, tokens, fmt, preview):
    schemes = clients[fmt].schemes(tokens[fmt], preview=preview)
    assert type(schemes) is records.SchemeList
    assert schemes.items and all(type(s) is records.SchemeEntry for s in schemes.items)
    assert CROPS in [s.scheme_name for s in schemes.items]
    assert kinds_present(schemes) == {str, datetime}
    if not preview:
        assert len(schemes.items) >= 3


@pytest.mark.parametrize("fmt", FORMATS)
def test_sections_answers_a_section_list_with_scopes_and_numeric_indexes(
    clients, tokens, crops, fmt
):
    listing = clients[fmt].sections(tokens[fmt], crops)
    assert type(listing) is records.SectionList
    assert listing.scheme_guid == crops and listing.scheme_name == CROPS
    assert listing.scopes and all(type(s) is records.Scope for s in listing.scopes)
    assert len(listing.sections) >= 8
    assert all(type(s) is records.SectionEntry for s in listing.sections)
    assert kinds_present(listing) == {str, float, datetime}
    assert {s.sector_prefix for s in listing.sections} >= {"CR", "SB"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_sections_with_a_sector_filter_lists_only_that_sectors_sections(
    clients, tokens, crops, fmt
):
    listing = clients[fmt].sections(tokens[fmt], crops, sector="SB")
    assert listing.sections
    assert {s.sector_prefix for s in listing.sections} == {"SB"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_section_data_answers_points_audit_points_answers_aims_and_links_typed(
    clients, tokens, crops, fmt
):
    data = clients[fmt].section_data(tokens[fmt], crops, "ST", sector="CR")
    assert type(data) is records.SectionData
    assert data.scheme_guid == crops and data.section_prefix == "ST"
    for name, item_type in [
        ("standard_points", records.StandardPoint),
        ("audit_points", records.AuditPoint),
        ("answers", records.Answer),
        ("categories", records.Category),
        ("links", records.Link),
    ]:
        items = getattr(data, name)
        assert items, f"{name} is empty"
        assert all(type(item) is item_type for item in items)
    assert kinds_present(data) == {str, float, bool, datetime}
    assert all(p.reference.startswith("CR.ST.") for p in data.standard_points)
    assert {a.critical_point for a in data.answers} == {True, False}
    assert all(type(p.score) is float for p in data.standard_points if p.score is not None)


@pytest.mark.parametrize("fmt", FORMATS)
def test_preview_section_data_says_what_has_changed(clients, tokens, crops, fmt):
    data = clients[fmt].section_data(tokens[fmt], crops, "ST", preview=True)
    assert data.standard_points
    assert data.what_has_changed
    assert {p.revision_status for p in data.standard_points} <= {"Unchanged", "Revised", "New"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_section_data_by_guid_is_the_section_by_prefix(
    clients, tokens, crops, st_section_guid, fmt
):
    by_guid = clients[fmt].section_data(tokens[fmt], crops, st_section_guid)
    by_prefix = clients[fmt].section_data(tokens[fmt], crops, "ST", sector="CR")
    assert by_guid.section_guid == st_section_guid
    assert_same(by_guid, by_prefix)


@pytest.mark.parametrize("fmt", FORMATS)
def test_authorisation_answers_the_growers_memberships_with_sites_and_stores(clients, tokens, fmt):
    authorisation = clients[fmt].authorisation(tokens[fmt])
    assert type(authorisation) is records.Authorisation
    assert authorisation.username == GROWER
    memberships = {m.membership_guid: m for m in authorisation.memberships}
    assert HOLLOWFIELD in memberships and OAKHURST not in memberships
    hollowfield = memberships[HOLLOWFIELD]
    assert type(hollowfield) is records.Membership and hollowfield.is_valid
    site = next(s for s in hollowfield.sites if s.site_guid == HOLLOWFIELD_FARM)
    assert type(site) is records.Site
    assert MAIN_STORE in [s.store_guid for s in site.stores]
    assert all(type(s) is records.Store for s in site.stores)
    assert kinds_present(authorisation) == {str, datetime}


@pytest.mark.parametrize("fmt", FORMATS)
def test_passport_by_short_code_answers_the_demo_passport_typed(clients, tokens, fmt):
    passport = clients[fmt].passport(tokens[fmt], DEMO_SHORT_CODE)
    assert type(passport) is records.CropPassport
    assert passport.short_code == DEMO_SHORT_CODE
    assert passport.business_name == "Hollowfield Farms Ltd"
    assert passport.membership_guid == HOLLOWFIELD
    assert passport.crop_type == "Wheat"
    assert passport.don_risk_assessment_result == 12.0
    assert kinds_present(passport) == {str, float, datetime}


# --- the same records in JSON and in XML ----------------------------------------------------------

READS: list[tuple[str, Callable]] = [
    ("schemes-live", lambda c, t, crops, guid: c.schemes(t)),
    ("schemes-preview", lambda c, t, crops, guid: c.schemes(t, preview=True)),
    ("sections-live", lambda c, t, crops, guid: c.sections(t, crops)),
    ("sections-live-sector", lambda c, t, crops, guid: c.sections(t, crops, sector="SB")),
    ("sections-preview", lambda c, t, crops, guid: c.sections(t, crops, preview=True)),
    (
        "sections-preview-sector",
        lambda c, t, crops, guid: c.sections(t, crops, preview=True, sector="CR"),
    ),
    ("section-by-prefix", lambda c, t, crops, guid: c.section_data(t, crops, "ST")),
    (
        "section-by-prefix-sector",
        lambda c, t, crops, guid: c.section_data(t, crops, "CP", sector="SB"),
    ),
    ("section-by-guid", lambda c, t, crops, guid: c.section_data(t, crops, guid)),
    (
        "section-preview-by-prefix",
        lambda c, t, crops, guid: c.section_data(t, crops, "ST", preview=True),
    ),
    (
        "section-preview-by-prefix-sector",
        lambda c, t, crops, guid: c.section_data(t, crops, "ST", preview=True, sector="CR"),
    ),
    ("authorisation", lambda c, t, crops, guid: c.authorisation(t)),
    ("passport", lambda c, t, crops, guid: c.passport(t, DEMO_SHORT_CODE)),
]


@pytest.fixture(scope="module")
def preview_st_guid(clients, tokens, crops) -> str:
    listing = clients[Format.JSON].sections(tokens[Format.JSON], crops, preview=True, sector="CR")
    return next(s.guid for s in listing.sections if s.prefix == "ST")


@pytest.mark.parametrize(("name", "read"), READS, ids=[name for name, _ in READS])
def test_the_json_and_the_xml_client_read_equal_records(
    clients, tokens, crops, st_section_guid, name, read
):
    json_record = read(clients[Format.JSON], tokens[Format.JSON], crops, st_section_guid)
    xml_record = read(clients[Format.XML], tokens[Format.XML], crops, st_section_guid)
    assert_same(json_record, xml_record)
    assert any(True for _ in typed_values(json_record))


def test_the_json_and_the_xml_client_read_an_equal_preview_section_by_guid(
    clients, tokens, crops, preview_st_guid
):
    json_record = clients[Format.JSON].section_data(
        tokens[Format.JSON], crops, preview_st_guid, preview=True
    )
    xml_record = clients[Format.XML].section_data(
        tokens[Format.XML], crops, preview_st_guid, preview=True
    )
    assert json_record.section_guid == preview_st_guid
    assert_same(json_record, xml_record)


def test_the_readable_difference_names_the_first_differing_field():
    left = records.SectionData(standard_points=[records.StandardPoint(reference="CR.ST.1")])
    right = records.SectionData(standard_points=[records.StandardPoint(reference="CR.ST.2")])
    assert first_difference(left, right) == (
        "record.standard_points[0].reference: JSON gives 'CR.ST.1', XML gives 'CR.ST.2'"
    )
    assert first_difference(left, left) is None


# --- signing in -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("username", [GROWER, GROWER_EMAIL], ids=["username", "email"])
def test_login_works_by_username_and_by_email_and_its_token_works(clients, fmt, username):
    authorization = clients[fmt].login(username, GROWER_PASSWORD)
    assert authorization.token
    assert clients[fmt].authorisation(BearerToken(authorization.token)).username == GROWER


@pytest.mark.parametrize("fmt", FORMATS)
def test_login_session_gives_a_session_cookie_that_works_for_authorisation(clients, fmt):
    cookie = clients[fmt].login_session(GROWER, GROWER_PASSWORD)
    assert type(cookie) is SessionCookie
    assert cookie.header.startswith("AssuranceSession=")
    authorisation = clients[fmt].authorisation(cookie)
    assert authorisation.username == GROWER
    assert HOLLOWFIELD in [m.membership_guid for m in authorisation.memberships]


@pytest.mark.parametrize("fmt", FORMATS)
def test_basic_authentication_works_on_any_operation(clients, crops, fmt):
    basic = BasicAuth(GROWER, GROWER_PASSWORD)
    assert clients[fmt].authorisation(basic).username == GROWER
    assert clients[fmt].sections(basic, crops).scheme_guid == crops
    assert clients[fmt].passport(basic, DEMO_SHORT_CODE).short_code == DEMO_SHORT_CODE


# --- passports ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_create_passport_answers_a_passport_with_a_short_code_and_the_sites_address(
    clients, tokens, fmt
):
    request = full_request()
    passport = clients[fmt].create_passport(tokens[fmt], request)
    assert type(passport) is records.CropPassport
    assert SHORT_CODE.fullmatch(passport.short_code)
    assert passport.collection_address == HOLLOWFIELD_FARM_ADDRESS
    assert passport.membership_guid == HOLLOWFIELD
    assert passport.site_guid == HOLLOWFIELD_FARM
    assert passport.store_guid == MAIN_STORE
    assert passport.grain_store_name == "Main grain store"
    assert passport.status == "Valid"
    assert kinds_present(passport) == {str, float, datetime}
    for f in msgspec.structs.fields(request):
        assert getattr(passport, f.name) == getattr(request, f.name), f.name


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_created_passport_reads_back_by_its_short_code_as_the_same_record(clients, tokens, fmt):
    created = clients[fmt].create_passport(tokens[fmt], full_request())
    assert_same(created, clients[fmt].passport(tokens[fmt], created.short_code))
    other = Format.XML if fmt is Format.JSON else Format.JSON
    assert_same(created, clients[other].passport(tokens[other], created.short_code))


def test_a_passport_with_only_the_required_fields_reads_back_the_same(clients, tokens):
    request = records.PassportRequest(membership_guid=HOLLOWFIELD, site_guid=HOLLOWFIELD_FARM)
    created = clients[Format.XML].create_passport(tokens[Format.XML], request)
    assert created.collection_address == HOLLOWFIELD_FARM_ADDRESS
    assert created.store_guid is None and created.crop_type is None
    assert_same(created, clients[Format.JSON].passport(tokens[Format.JSON], created.short_code))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("typed", ["7kxm4qht2w", "7KXM4-QHT2W", "7kxm4-qht2w"])
def test_passport_takes_a_short_code_in_lower_case_or_with_its_hyphen(clients, tokens, fmt, typed):
    passport = clients[fmt].passport(tokens[fmt], typed)
    assert passport.short_code == DEMO_SHORT_CODE
    assert_same(passport, clients[fmt].passport(tokens[fmt], DEMO_SHORT_CODE))


@pytest.mark.parametrize("fmt", FORMATS)
def test_create_passport_pdf_and_passport_pdf_answer_pdf_bytes(clients, tokens, fmt):
    created = clients[fmt].create_passport_pdf(tokens[fmt], full_request())
    downloaded = clients[fmt].passport_pdf(tokens[fmt], DEMO_SHORT_CODE)
    for document in (created, downloaded):
        assert type(document) is bytes
        assert document.startswith(b"%PDF-")
        assert len(document) > 1000


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_wrong_password_is_authentication_failed(locking, fmt):
    with (
        closing(AssuranceClient(locking.url, fmt=fmt)) as client,
        pytest.raises(AuthenticationFailed) as caught,
    ):
        client.login(GROWER, WRONG_PASSWORD)
    assert_error(caught.value, AuthenticationFailed, 400, "OperationError:AuthenticationFailed")
    assert caught.value.operation == "login"
    assert "OperationError:AuthenticationFailed" in str(caught.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_repeated_failures_warn_on_the_third_and_lock_on_the_fifth(locking, fmt):
    client = AssuranceClient(locking.url, fmt=fmt)
    outcomes: list[AssuranceError] = []
    try:
        for _ in range(5):
            with pytest.raises(AssuranceError) as caught:
                client.login(GROWER, WRONG_PASSWORD)
            outcomes.append(caught.value)
        with pytest.raises(LockoutActive) as still_locked:
            client.login(GROWER, GROWER_PASSWORD)
        with pytest.raises(LockoutActive):
            client.authorisation(BasicAuth(GROWER, GROWER_PASSWORD))
    finally:
        client.close()

    assert [type(e) for e in outcomes] == [
        AuthenticationFailed,
        AuthenticationFailed,
        LockoutWarning,
        LockoutWarning,
        LockoutActive,
    ]
    assert issubclass(LockoutWarning, AuthenticationFailed)
    assert isinstance(outcomes[2], AuthenticationFailed)
    assert not isinstance(outcomes[4], AuthenticationFailed)
    assert_error(outcomes[2], LockoutWarning, 400, "OperationError:AuthenticationLockoutWarning")
    assert_error(outcomes[4], LockoutActive, 400, "OperationError:AuthenticationLockoutActive")
    assert_error(
        still_locked.value, LockoutActive, 400, "OperationError:AuthenticationLockoutActive"
    )


def test_a_wrong_basic_auth_password_is_authentication_required(locking):
    with (
        closing(AssuranceClient(locking.url)) as client,
        pytest.raises(AuthenticationRequired) as caught,
    ):
        client.authorisation(BasicAuth(GROWER, WRONG_PASSWORD))
    assert_error(caught.value, AuthenticationRequired, 401, "OperationError:AuthenticationRequired")


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unknown_token_is_authentication_required_with_status_401(clients, fmt):
    with pytest.raises(AuthenticationRequired) as caught:
        clients[fmt].schemes(BearerToken("x" * 43))
    assert_error(caught.value, AuthenticationRequired, 401, "OperationError:AuthenticationRequired")
    assert caught.value.operation == "schemes"


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_expired_token_is_authentication_required(clients, clock, fmt):
    token = BearerToken(clients[fmt].login(GROWER, GROWER_PASSWORD).token)
    assert clients[fmt].authorisation(token).username == GROWER
    clock.advance_clock(MONTH_AND_A_DAY)
    with pytest.raises(AuthenticationRequired) as caught:
        clients[fmt].authorisation(token)
    assert_error(caught.value, AuthenticationRequired, 401, "OperationError:AuthenticationRequired")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_passport_for_a_membership_the_user_is_no_contact_of_is_not_a_contact(
    clients, tokens, fmt
):
    request = records.PassportRequest(membership_guid=OAKHURST, site_guid=OAKHURST_SITE)
    with pytest.raises(NotAContact) as caught:
        clients[fmt].create_passport(tokens[fmt], request)
    assert_error(caught.value, NotAContact, 403, "OperationError:NotAContact")
    assert caught.value.operation == "create_passport"


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unknown_scheme_is_not_found(clients, tokens, fmt):
    with pytest.raises(NotFound) as caught:
        clients[fmt].sections(tokens[fmt], UNKNOWN_SCHEME)
    assert_error(caught.value, NotFound, 404, "OperationError:NotFound")
    with pytest.raises(NotFound):
        clients[fmt].section_data(tokens[fmt], UNKNOWN_SCHEME, "ST")


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unknown_short_code_is_not_found(clients, tokens, fmt):
    with pytest.raises(NotFound) as caught:
        clients[fmt].passport(tokens[fmt], UNKNOWN_SHORT_CODE)
    assert_error(caught.value, NotFound, 404, "OperationError:NotFound")
    with pytest.raises(NotFound):
        clients[fmt].passport_pdf(tokens[fmt], UNKNOWN_SHORT_CODE)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_passport_for_a_suspended_membership_is_status_not_valid(clients, lapsed_tokens, fmt):
    request = records.PassportRequest(membership_guid=COLDHARBOUR, site_guid=COLDHARBOUR_SITE)
    with pytest.raises(StatusNotValid) as caught:
        clients[fmt].create_passport(lapsed_tokens[fmt], request)
    assert_error(caught.value, StatusNotValid, 400, "OperationError:StatusNotValid")
    with pytest.raises(StatusNotValid):
        clients[fmt].create_passport_pdf(lapsed_tokens[fmt], request)


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_required_fields_are_validation_failed_naming_each_field(clients, tokens, fmt):
    request = records.PassportRequest(membership_guid="", site_guid="", crop_type="Wheat")
    with pytest.raises(ValidationFailed) as caught:
        clients[fmt].create_passport(tokens[fmt], request)
    error = caught.value
    assert_error(error, ValidationFailed, 400, None)
    assert set(error.field_errors) == {"MembershipGUID", "SiteGUID"}
    assert {e.code for e in error.errors} == {
        "DataError:MembershipGUID:RequiredRule",
        "DataError:SiteGUID:RequiredRule",
    }
    assert all(messages for messages in error.field_errors.values())


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_post_harvest_treatment_option_out_of_its_values_is_validation_failed(
    clients, tokens, fmt
):
    with pytest.raises(ValidationFailed) as caught:
        clients[fmt].create_passport(tokens[fmt], full_request(post_harvest_treatment_option="D"))
    error = caught.value
    assert_error(error, ValidationFailed, 400, "DataError:PostHarvestTreatmentOption:FormatRule")
    assert list(error.field_errors) == ["PostHarvestTreatmentOption"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_data_error_of_one_request_is_reported_together(clients, tokens, fmt):
    request = records.PassportRequest(
        membership_guid="",
        site_guid="",
        post_harvest_treatment_option="D",
        crop_type="W" * 201,
        loading_date=datetime.fromisoformat("2026-08-21T07:30:00Z"),
    )
    with pytest.raises(ValidationFailed) as caught:
        clients[fmt].create_passport_pdf(tokens[fmt], request)
    assert set(caught.value.field_errors) == {
        "MembershipGUID",
        "SiteGUID",
        "PostHarvestTreatmentOption",
        "CropType",
    }


# --- call reports ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_hook_gets_one_report_per_call_with_its_outcome(
    sandbox, tokens, crops, st_section_guid, fmt
):
    reports: list[CallReport] = []
    token = tokens[fmt]
    with closing(AssuranceClient(sandbox.url, fmt=fmt, on_call=reports.append)) as client:
        client.login(GROWER, GROWER_PASSWORD)
        client.login_session(GROWER, GROWER_PASSWORD)
        client.schemes(token)
        client.sections(token, crops)
        client.section_data(token, crops, st_section_guid)
        client.authorisation(token)
        created = client.create_passport(token, full_request())
        client.create_passport_pdf(token, full_request())
        client.passport(token, created.short_code)
        client.passport_pdf(token, created.short_code)
        with pytest.raises(NotFound):
            client.passport(token, UNKNOWN_SHORT_CODE)
        with pytest.raises(AuthenticationRequired):
            client.schemes(BearerToken("x" * 43))
        with pytest.raises(NotAContact):
            client.create_passport(
                token, records.PassportRequest(membership_guid=OAKHURST, site_guid=OAKHURST_SITE)
            )
        with pytest.raises(ValidationFailed):
            client.create_passport(token, records.PassportRequest(membership_guid="", site_guid=""))

    assert [(r.operation, r.status, r.outcome) for r in reports] == [
        ("login", 200, "ok"),
        ("login_session", 200, "ok"),
        ("schemes", 200, "ok"),
        ("sections", 200, "ok"),
        ("section_data", 200, "ok"),
        ("authorisation", 200, "ok"),
        ("create_passport", 200, "ok"),
        ("create_passport_pdf", 200, "ok"),
        ("passport", 200, "ok"),
        ("passport_pdf", 200, "ok"),
        ("passport", 404, "NotFound"),
        ("schemes", 401, "AuthenticationRequired"),
        ("create_passport", 403, "NotAContact"),
        ("create_passport", 400, "ValidationFailed"),
    ]
    for report in reports:
        assert type(report) is CallReport
        assert report.duration > 0, report
        assert report.bytes > 0, report
        assert report.attempts == 1, report
    pdf_reports = [r for r in reports if r.operation.endswith("_pdf")]
    assert all(r.bytes > 1000 for r in pdf_reports)


def test_the_hook_reports_a_failed_sign_in(locking):
    reports: list[CallReport] = []
    with (
        closing(AssuranceClient(locking.url, on_call=reports.append)) as client,
        pytest.raises(AuthenticationFailed),
    ):
        client.login(GROWER, WRONG_PASSWORD)
    ((operation, status, outcome, attempts),) = [
        (r.operation, r.status, r.outcome, r.attempts) for r in reports
    ]
    assert (operation, status, outcome, attempts) == ("login", 400, "AuthenticationFailed", 1)
    assert reports[0].duration > 0 and reports[0].bytes > 0


def test_a_client_with_no_hook_works_and_still_raises(sandbox, tokens):
    with closing(AssuranceClient(sandbox.url, on_call=None)) as client:
        assert client.on_call is None
        assert client.passport(tokens[Format.JSON], DEMO_SHORT_CODE).short_code == DEMO_SHORT_CODE
        with pytest.raises(NotFound):
            client.passport(tokens[Format.JSON], UNKNOWN_SHORT_CODE)


# --- no credential leaks --------------------------------------------------------------------------


def test_credentials_objects_keep_their_secrets_out_of_repr():
    token = BearerToken("secret-token-abcdefghijklmnopqrstuvwxyz0123")
    cookie = SessionCookie("AssuranceSession=secret-cookie-value")
    basic = BasicAuth(GROWER, "secret-basic-password")
    assert "secret-token" not in repr(token)
    assert "secret-cookie" not in repr(cookie)
    assert "secret-basic-password" not in repr(basic)
    assert GROWER in repr(basic)
    authorization = records.Authorization(realm="Assurance", token="secret-token-abc")
    assert "secret-token" not in repr(authorization)
    request = records.LoginRequest(type="token", username=GROWER, password="secret-pw")
    assert "secret-pw" not in repr(request)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_credential_appears_in_exceptions_or_in_the_clients_log(sandbox, locking, fmt, caplog):
    caplog.set_level(logging.DEBUG, logger="portal.assurance")
    errors: list[AssuranceError] = []
    secrets: list[str] = [GROWER_PASSWORD, WRONG_PASSWORD]

    with closing(AssuranceClient(sandbox.url, fmt=fmt)) as client:
        authorization = client.login(GROWER, GROWER_PASSWORD)
        cookie = client.login_session(GROWER, GROWER_PASSWORD)
        secrets += [authorization.token, cookie.header, cookie.header.partition("=")[2]]
        for credentials in (BearerToken(authorization.token), cookie,
                            BasicAuth(GROWER, GROWER_PASSWORD)):  # fmt: skip
            for call in (
                lambda c: client.passport(c, UNKNOWN_SHORT_CODE),
                lambda c: client.sections(c, UNKNOWN_SCHEME),
                lambda c: client.create_passport(
                    c, records.PassportRequest(membership_guid=OAKHURST, site_guid=OAKHURST_SITE)
                ),
                lambda c: client.create_passport(
                    c, records.PassportRequest(membership_guid="", site_guid="")
                ),
            ):
                with pytest.raises(AssuranceError) as caught:
                    call(credentials)
                errors.append(caught.value)
        stale = BearerToken(authorization.token[::-1])
        secrets.append(stale.token)
        with pytest.raises(AuthenticationRequired) as caught:
            client.authorisation(stale)
        errors.append(caught.value)

    with closing(AssuranceClient(locking.url, fmt=fmt)) as client:
        for _ in range(5):
            with pytest.raises(AssuranceError) as caught:
                client.login(GROWER, WRONG_PASSWORD)
            errors.append(caught.value)
        with pytest.raises(LockoutActive) as caught:
            client.authorisation(BasicAuth(GROWER, WRONG_PASSWORD))
        errors.append(caught.value)

    assert len(errors) == 12 + 1 + 6
    assert caplog.records, "the client logs its calls"
    logged = [
        (record.getMessage(), repr(record.args), record.exc_text or "") for record in caplog.records
    ]
    for secret in secrets:
        for error in errors:
            for shown in (str(error), repr(error), repr(error.args), error.message,
                          repr(error.errors)):  # fmt: skip
                assert secret not in shown, f"{secret!r} in {type(error).__name__}: {shown}"
        for message, args, exc_text in logged:
            assert secret not in message
            assert secret not in args
            assert secret not in exc_text
