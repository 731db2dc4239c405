"""Crop passports and the authorisation method of the sandbox
(docs/developing/assurance-interface.md, docs/interface.md), over real HTTP."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import msgspec
import pypdf
import pytest
import requests

from portal.assurance import records
from portal.assurance.codec import Format, decode, encode
from sandbox.ids import display_short_code, guid_for
from tests.demo import (
    COLDHARBOUR,
    COLDHARBOUR_SITE,
    FLAT_STORE,
    GRANGE_BINS,
    HOLLOWFIELD,
    HOLLOWFIELD_FARM,
    MAIN_STORE,
    MARSH_END,
    OAKHURST,
    OAKHURST_SITE,
    RIDGEWAY,
    RIDGEWAY_SITE,
    WENHAM,
    WENHAM_SITE,
)

TIMEOUT = 30
# An address of this module's own (X-Forwarded-For), so no other module's lockout reaches it.
ADDRESS = "192.0.2.12"
FORMATS = [pytest.param(Format.JSON, id="json"), pytest.param(Format.XML, id="xml")]
PDF = "application/pdf"
# docs/interface.md: eight to twelve characters, no 0/O, 1/I/L.
SHORT_CODE = re.compile(r"[2-9A-HJKMNP-Z]{8,12}")
DEMO_SHORT_CODE = "7KXM4QHT2W"
GRACE = timedelta(days=30)


SECTION_1 = dict(
    crop_type="Wheat",
    variety="Skyfall",
    store_or_bin_name="Bin 4",
    loading_date=datetime(2026, 8, 21, 7, 30, tzinfo=UTC),
    harvest_year="2026",
    haulier_company_name="Marsh Lane Haulage Ltd",
    vehicle_registration="AB12 CDE",
    trailer_number="TR-0457",
    haulier_collection_ticket_no="MLH-882913",
)
SECTIONS_4_AND_5 = dict(
    post_harvest_treatment_option="B",
    post_harvest_treatment_date=datetime(2026, 8, 2, 14, 0, tzinfo=UTC),
    post_harvest_treatment_product="K-Obiol EC 25",
    don_risk_assessment_result=12.5,
    don_test_date=datetime(2026, 8, 15, 11, 20, tzinfo=UTC),
    don_test_result="Below 200 µg/kg",
    zon_test_date=datetime(2026, 8, 15, 11, 20, tzinfo=UTC),
    zon_test_result="Below 20 µg/kg",
)
OPTIONAL_REQUEST_FIELDS = (*SECTION_1, *SECTIONS_4_AND_5, "store_guid")


def user(name: str) -> requests.Session:
    session = requests.Session()
    session.auth = (name, f"{name}-demo-pass")
    session.headers["X-Forwarded-For"] = ADDRESS
    return session


@pytest.fixture(scope="module")
def grower(sandbox):
    with user("grower") as session:
        yield session


@pytest.fixture(scope="module")
def lapsed(sandbox):
    with user("lapsed") as session:
        yield session


@pytest.fixture(scope="module")
def haulier(sandbox):
    with user("haulier") as session:
        yield session


def authorisation(sandbox, session, fmt=Format.JSON) -> records.Authorisation:
    response = session.get(
        sandbox.endpoint("/v1/authorisation.eb"),
        headers={"Accept": fmt.media_type},
        timeout=TIMEOUT,
    )
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return decode(response.content, records.Authorisation, fmt)


@pytest.fixture(scope="module")
def grower_memberships(sandbox, grower) -> dict[str, records.Membership]:
    return {m.membership_guid: m for m in authorisation(sandbox, grower).memberships}


def request_for(membership=HOLLOWFIELD, site=HOLLOWFIELD_FARM, store=MAIN_STORE, **fields):
    return records.PassportRequest(
        membership_guid=membership, site_guid=site, store_guid=store, **fields
    )


def full_request() -> records.PassportRequest:
    return request_for(**SECTION_1, **SECTIONS_4_AND_5)


def post(sandbox, session, form, fmt=Format.JSON, accept=None) -> requests.Response:
    return session.post(
        sandbox.endpoint("/v1/passports.eb"),
        data=encode(form, fmt),
        headers={"Content-Type": fmt.content_type, "Accept": accept or fmt.media_type},
        timeout=TIMEOUT,
    )


def create(sandbox, session, form, fmt=Format.JSON) -> records.CropPassport:
    response = post(sandbox, session, form, fmt)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return decode(response.content, records.CropPassport, fmt)


def download(sandbox, session, code, accept=Format.JSON.media_type) -> requests.Response:
    return session.get(
        sandbox.endpoint(f"/v1/passports/{code}.eb"), headers={"Accept": accept}, timeout=TIMEOUT
    )


def downloaded(sandbox, session, code, fmt=Format.JSON) -> records.CropPassport:
    response = download(sandbox, session, code, fmt.media_type)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return decode(response.content, records.CropPassport, fmt)


def error_codes(response: requests.Response, fmt: Format) -> list[str]:
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return [e.code for e in decode(response.content, records.ErrorBody, fmt).errors]


def pdf_text(content: bytes) -> str:
    assert content.startswith(b"%PDF")
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text().split()) for page in reader.pages)


# --- creating -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_grower_creates_a_passport_that_carries_the_membership_site_and_store(
    sandbox, grower, grower_memberships, fmt
):
    form = full_request()
    passport = create(sandbox, grower, form, fmt)

    assert SHORT_CODE.fullmatch(passport.short_code)
    membership = grower_memberships[HOLLOWFIELD]
    site = next(s for s in membership.sites if s.site_guid == HOLLOWFIELD_FARM)
    store = next(s for s in site.stores if s.store_guid == MAIN_STORE)
    assert passport.membership_guid == HOLLOWFIELD
    assert passport.site_guid == HOLLOWFIELD_FARM
    assert passport.store_guid == MAIN_STORE
    assert passport.collection_address == f"{site.address}, {site.postcode}"
    assert passport.business_name == membership.business_name == "Hollowfield Farms Ltd"
    assert passport.certifier_name == membership.certifier_name
    assert passport.membership_number == membership.membership_number
    assert passport.status == membership.status == "Valid"
    assert passport.expiry_date == membership.expiry_date
    assert passport.enterprises == membership.enterprises
    assert abs(passport.check_date - datetime.now(UTC)) < timedelta(minutes=2)
    assert passport.grain_store_name == store.store_name == "Main grain store"
    assert passport.grain_store_latitude == store.latitude
    assert passport.grain_store_longitude == store.longitude
    for name, value in {**SECTION_1, **SECTIONS_4_AND_5}.items():
        assert getattr(passport, name) == value, name


def test_two_passports_get_different_short_codes(sandbox, grower):
    first = create(sandbox, grower, request_for())
    second = create(sandbox, grower, request_for())
    assert first.short_code != second.short_code


def test_a_passport_for_a_second_site_and_its_store_takes_that_sites_address(
    sandbox, grower, grower_memberships
):
    passport = create(sandbox, grower, request_for(site=MARSH_END, store=FLAT_STORE))
    site = next(s for s in grower_memberships[HOLLOWFIELD].sites if s.site_guid == MARSH_END)
    assert passport.collection_address == f"{site.address}, {site.postcode}"
    assert passport.grain_store_name == "Marsh End flat store"


def test_a_store_of_another_site_of_the_same_membership_is_accepted(sandbox, grower):
    """docs/interface.md: the store must be the membership's, not necessarily the site's."""
    passport = create(sandbox, grower, request_for(site=HOLLOWFIELD_FARM, store=FLAT_STORE))
    assert passport.site_guid == HOLLOWFIELD_FARM
    assert passport.store_guid == FLAT_STORE
    assert passport.grain_store_name == "Marsh End flat store"
    assert passport.collection_address.startswith("Hollowfield Farm, ")


def test_a_passport_of_the_growers_other_membership_carries_that_membership(
    sandbox, grower, grower_memberships
):
    passport = create(sandbox, grower, request_for(WENHAM, WENHAM_SITE, GRANGE_BINS))
    assert passport.business_name == grower_memberships[WENHAM].business_name
    assert passport.membership_number == grower_memberships[WENHAM].membership_number
    assert passport.certifier_name == grower_memberships[WENHAM].certifier_name


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_passport_with_only_the_required_fields_leaves_the_optional_ones_out(
    sandbox, grower, fmt
):
    passport = create(
        sandbox, grower, records.PassportRequest(membership_guid=HOLLOWFIELD, site_guid=MARSH_END),
        fmt,
    )  # fmt: skip
    assert SHORT_CODE.fullmatch(passport.short_code)
    assert passport.collection_address and passport.business_name
    for name in OPTIONAL_REQUEST_FIELDS:
        assert getattr(passport, name) is None, name
    assert passport.grain_store_name is None
    assert passport.grain_store_latitude is None
    assert passport.grain_store_longitude is None
    assert downloaded(sandbox, grower, passport.short_code, fmt) == passport


@pytest.mark.parametrize("option", ["", "A", "B", "C"])
def test_each_treatment_option_of_the_enumeration_is_accepted(sandbox, grower, option):
    passport = create(sandbox, grower, request_for(post_harvest_treatment_option=option))
    assert passport.post_harvest_treatment_option == (option or None)


def test_a_lower_case_treatment_option_is_not_of_the_enumeration(sandbox, grower):
    """docs/interface.md: the option is exactly empty, A, B or C."""
    response = post(sandbox, grower, request_for(post_harvest_treatment_option="c"))
    assert response.status_code == 400
    assert error_codes(response, Format.JSON) == ["DataError:PostHarvestTreatmentOption:FormatRule"]


def test_creating_with_accept_pdf_answers_the_passport_as_a_pdf(sandbox, grower):
    before = sandbox.count("sandbox_passport")
    response = post(sandbox, grower, full_request(), accept=PDF)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith(PDF)
    text = pdf_text(response.content)
    assert "Hollowfield Farms Ltd" in text
    assert "Marsh Lane Haulage Ltd" in text
    assert sandbox.count("sandbox_passport") == before + 1


def test_the_fields_the_service_sets_cannot_be_set_by_the_request(sandbox, grower, lapsed):
    claims = {
        "ShortCode": "ABCDEFGHJK",
        "BusinessName": "Someone Else Ltd",
        "CollectionAddress": "1 Elsewhere Road",
        "CertifierName": "Nobody",
        "MembershipNumber": "X-1",
        "CheckDate": "2001-01-01T00:00:00Z",
        "Status": "Withdrawn",
        "ExpiryDate": "2099-01-01T00:00:00Z",
        "Enterprises": "Everything",
        "GrainStoreName": "Not a store",
    }
    body = {"MembershipGUID": HOLLOWFIELD, "SiteGUID": HOLLOWFIELD_FARM, **claims}
    response = grower.post(
        sandbox.endpoint("/v1/passports.eb"),
        json=body,
        headers={"Accept": "application/json"},
        timeout=TIMEOUT,
    )
    assert response.status_code == 200, response.text
    record = response.json()
    for name, value in claims.items():
        assert record.get(name) != value, name
    refused = lapsed.post(
        sandbox.endpoint("/v1/passports.eb"),
        json={"MembershipGUID": COLDHARBOUR, "SiteGUID": COLDHARBOUR_SITE, "Status": "Valid"},
        headers={"Accept": "application/json"},
        timeout=TIMEOUT,
    )
    assert refused.status_code == 400
    assert error_codes(refused, Format.JSON) == ["OperationError:StatusNotValid"]


def test_a_passport_with_every_field_at_its_longest_prints_on_one_page(sandbox, grower):
    longest = {name: "W" * 200 for name, value in SECTION_1.items() if isinstance(value, str)}
    escaped = "<b>bold</b> & <script>x</script>"
    form = full_request()
    form = msgspec.structs.replace(form, **longest, post_harvest_treatment_product=escaped)
    response = post(sandbox, grower, form, accept=PDF)
    assert response.status_code == 200, response.text
    assert len(pypdf.PdfReader(io.BytesIO(response.content)).pages) == 1
    # Printed as typed, not as markup; a line may break inside it, so spaces are left out.
    assert escaped.replace(" ", "") in pdf_text(response.content).replace(" ", "")


# --- downloading ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def created(sandbox, grower) -> records.CropPassport:
    return create(sandbox, grower, full_request())


def test_a_passport_downloads_as_the_same_record_in_json_and_xml(sandbox, grower, created):
    as_json = downloaded(sandbox, grower, created.short_code, Format.JSON)
    as_xml = downloaded(sandbox, grower, created.short_code, Format.XML)
    assert as_json == as_xml == created


def test_a_passport_downloads_as_a_pdf_with_its_short_code_and_collection_address(
    sandbox, grower, created
):
    response = download(sandbox, grower, created.short_code, PDF)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith(PDF)
    assert response.headers["Content-Disposition"] == (
        f'inline; filename="passport-{created.short_code}.pdf"'
    )
    assert len(pypdf.PdfReader(io.BytesIO(response.content)).pages) == 1
    text = pdf_text(response.content)
    assert display_short_code(created.short_code) in text
    assert " ".join(created.collection_address.split()) in text
    assert "Skyfall" in text


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param(str.lower, id="lower-case"),
        pytest.param(display_short_code, id="hyphenated"),
        pytest.param(lambda code: display_short_code(code).lower(), id="hyphenated-lower-case"),
        pytest.param(lambda code: code[:3].lower() + code[3:], id="mixed-case"),
    ],
)
def test_a_short_code_matches_in_any_case_and_with_one_hyphen_in_the_middle(
    sandbox, grower, created, spelling
):
    assert downloaded(sandbox, grower, spelling(created.short_code)) == created


def test_a_short_code_with_two_hyphens_is_not_found(sandbox, grower, created):
    code = created.short_code
    response = download(sandbox, grower, f"{code[:3]}-{code[3:6]}-{code[6:]}")
    assert response.status_code == 404


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unknown_short_code_answers_404_not_found(sandbox, grower, fmt):
    for code in ("ABCDEFGHJK", "22222222", "ZZZZZZZZZZZZ", "7KXM4QHT2X"):
        response = download(sandbox, grower, code, fmt.media_type)
        assert response.status_code == 404, code
        assert error_codes(response, fmt) == ["OperationError:NotFound"]


def test_an_unknown_short_code_answers_404_in_json_when_pdf_was_asked_for(sandbox, grower):
    response = download(sandbox, grower, "ABCDEFGHJK", PDF)
    assert response.status_code == 404
    assert error_codes(response, Format.JSON) == ["OperationError:NotFound"]


def test_the_haulier_without_memberships_can_download_a_growers_passport(sandbox, haulier, created):
    assert downloaded(sandbox, haulier, created.short_code, Format.XML) == created
    response = download(sandbox, haulier, created.short_code, PDF)
    assert response.status_code == 200
    assert response.content.startswith(b"%PDF")


def test_the_demo_passport_downloads_by_its_fixed_short_code(sandbox, haulier):
    passport = downloaded(sandbox, haulier, DEMO_SHORT_CODE)
    assert passport.short_code == DEMO_SHORT_CODE
    assert passport.membership_guid == HOLLOWFIELD
    assert passport.site_guid == HOLLOWFIELD_FARM
    assert passport.store_guid == MAIN_STORE
    assert passport.status == "Valid"


def test_downloading_needs_credentials(sandbox, created):
    response = requests.get(
        sandbox.endpoint(f"/v1/passports/{created.short_code}.eb"),
        headers={"Accept": "application/json"},
        timeout=TIMEOUT,
    )
    assert response.status_code == 401
    assert error_codes(response, Format.JSON) == ["OperationError:AuthenticationRequired"]


# --- who may create what --------------------------------------------------------------------------


NOT_A_CONTACT = {
    "a membership the user is not a contact of": request_for(OAKHURST, OAKHURST_SITE, None),
    "a lapsed user's membership": request_for(COLDHARBOUR, COLDHARBOUR_SITE, None),
    "a site of another membership": request_for(HOLLOWFIELD, WENHAM_SITE, None),
    "a site of a membership of another user": request_for(HOLLOWFIELD, OAKHURST_SITE, None),
    "a store of another membership": request_for(HOLLOWFIELD, HOLLOWFIELD_FARM, GRANGE_BINS),
    "an unknown membership": request_for("ZZZZZZZZZZ.ZZZZZZZZZZZZZ", HOLLOWFIELD_FARM, None),
    "an unknown site": request_for(HOLLOWFIELD, "ZZZZZZZZZZ.ZZZZZZZZZZZZZ", None),
    "an unknown store": request_for(HOLLOWFIELD, HOLLOWFIELD_FARM, "ZZZZZZZZZZ.ZZZZZZZZZZZZZ"),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("form", NOT_A_CONTACT.values(), ids=NOT_A_CONTACT.keys())
def test_creating_for_what_is_not_the_users_own_answers_403_not_a_contact(
    sandbox, grower, form, fmt
):
    before = sandbox.count("sandbox_passport")
    response = post(sandbox, grower, form, fmt)
    assert response.status_code == 403
    assert error_codes(response, fmt) == ["OperationError:NotAContact"]
    assert sandbox.count("sandbox_passport") == before


def test_the_haulier_cannot_create_a_passport(sandbox, haulier):
    response = post(sandbox, haulier, request_for())
    assert response.status_code == 403
    assert error_codes(response, Format.JSON) == ["OperationError:NotAContact"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("membership", "site", "status"),
    [
        pytest.param(COLDHARBOUR, COLDHARBOUR_SITE, "Suspended", id="suspended"),
        pytest.param(RIDGEWAY, RIDGEWAY_SITE, "Expired", id="expired"),
    ],
)
def test_a_lapsed_membership_cannot_create_a_passport(
    sandbox, lapsed, membership, site, status, fmt
):
    before = sandbox.count("sandbox_passport")
    response = post(sandbox, lapsed, request_for(membership, site, None), fmt)
    assert response.status_code == 400
    body = decode(response.content, records.ErrorBody, fmt)
    assert [e.code for e in body.errors] == ["OperationError:StatusNotValid"]
    assert status in body.errors[0].message
    assert sandbox.count("sandbox_passport") == before


# --- the claim lapses after creation -------------------------------------------------------------


def seconds_until(moment: datetime) -> float:
    return (moment - datetime.now(UTC)).total_seconds()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_passport_whose_membership_has_expired_since_answers_400_status_not_valid(
    sandbox, grower, grower_memberships, clock, fmt
):
    passport = create(sandbox, grower, request_for())
    expiry = grower_memberships[HOLLOWFIELD].expiry_date
    clock.advance_clock(seconds_until(expiry + GRACE + timedelta(days=2)))

    response = download(sandbox, grower, passport.short_code, fmt.media_type)
    assert response.status_code == 400
    assert error_codes(response, fmt) == ["OperationError:StatusNotValid"]
    assert download(sandbox, grower, passport.short_code, PDF).status_code == 400
    statuses = {m.membership_guid: m.status for m in authorisation(sandbox, grower).memberships}
    assert statuses[HOLLOWFIELD] == "Expired"
    refused = post(sandbox, grower, request_for(), fmt)
    assert refused.status_code == 400
    assert error_codes(refused, fmt) == ["OperationError:StatusNotValid"]


def test_a_passport_still_downloads_in_the_grace_period_and_keeps_its_checked_status(
    sandbox, grower, grower_memberships, clock
):
    passport = create(sandbox, grower, request_for())
    expiry = grower_memberships[HOLLOWFIELD].expiry_date
    clock.advance_clock(seconds_until(expiry + timedelta(days=1)))

    assert downloaded(sandbox, grower, passport.short_code) == passport
    assert passport.status == "Valid"
    statuses = {m.membership_guid: m.status for m in authorisation(sandbox, grower).memberships}
    assert statuses[HOLLOWFIELD] == "Grace"
    in_grace = create(sandbox, grower, request_for())
    assert in_grace.status == "Grace"
    assert in_grace.check_date > expiry


def test_the_clock_is_back_after_the_clock_tests(sandbox, grower, grower_memberships):
    statuses = {m.membership_guid: m.status for m in authorisation(sandbox, grower).memberships}
    assert statuses[HOLLOWFIELD] == "Valid"


# --- authorisation --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_grower_sees_two_valid_memberships_with_their_sites_and_stores(sandbox, grower, fmt):
    result = authorisation(sandbox, grower, fmt)
    assert result.username == "grower"
    memberships = {m.membership_guid: m for m in result.memberships}
    assert set(memberships) == {HOLLOWFIELD, WENHAM}
    for membership in memberships.values():
        assert membership.status == "Valid"
        assert membership.membership_number and membership.business_name
        assert membership.scheme_name == "Combinable Crops and Sugar Beet"
        assert membership.certifier_name and membership.enterprises
        assert membership.expiry_date > datetime.now(UTC)
        assert membership.sites
        for site in membership.sites:
            assert site.site_name and site.address and site.postcode
            assert site.stores
            for store in site.stores:
                assert store.store_guid and store.store_name
                assert store.latitude and store.longitude
    hollowfield = memberships[HOLLOWFIELD]
    sites = {s.site_guid: s for s in hollowfield.sites}
    assert set(sites) == {HOLLOWFIELD_FARM, MARSH_END}
    assert {s.store_guid for s in sites[HOLLOWFIELD_FARM].stores} == {
        MAIN_STORE,
        guid_for("store:dryer-bins"),
    }
    assert {s.store_guid for s in sites[MARSH_END].stores} == {FLAT_STORE}
    assert [s.site_guid for s in memberships[WENHAM].sites] == [WENHAM_SITE]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_lapsed_user_sees_a_suspended_and_an_expired_membership(sandbox, lapsed, fmt):
    result = authorisation(sandbox, lapsed, fmt)
    assert result.username == "lapsed"
    statuses = {m.membership_guid: m.status for m in result.memberships}
    assert statuses == {COLDHARBOUR: "Suspended", RIDGEWAY: "Expired"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_haulier_sees_no_memberships(sandbox, haulier, fmt):
    result = authorisation(sandbox, haulier, fmt)
    assert result.username == "haulier"
    assert result.memberships == []


def test_an_empty_list_of_memberships_is_still_written(sandbox, haulier):
    as_json = haulier.get(
        sandbox.endpoint("/v1/authorisation.eb"), headers={"Accept": "application/json"},
        timeout=TIMEOUT,
    )  # fmt: skip
    assert as_json.json()["Memberships"] == []
    as_xml = haulier.get(
        sandbox.endpoint("/v1/authorisation.eb"), headers={"Accept": "text/xml"}, timeout=TIMEOUT
    )
    assert b"<Memberships></Memberships>" in as_xml.content or b"<Memberships/>" in as_xml.content


def test_memberships_sites_and_stores_are_ordered_by_name(sandbox, grower):
    result = authorisation(sandbox, grower)
    names = [m.business_name for m in result.memberships]
    assert names == sorted(names)
    for membership in result.memberships:
        site_names = [s.site_name for s in membership.sites]
        assert site_names == sorted(site_names)
        for site in membership.sites:
            store_names = [s.store_name for s in site.stores]
            assert store_names == sorted(store_names)


def test_the_authorisation_and_the_passport_agree_on_the_claim(sandbox, grower, created):
    membership = next(
        m for m in authorisation(sandbox, grower).memberships if m.membership_guid == HOLLOWFIELD
    )
    claim = msgspec.structs.asdict(created)
    for name in ("business_name", "certifier_name", "membership_number", "enterprises"):
        assert claim[name] == getattr(membership, name), name
