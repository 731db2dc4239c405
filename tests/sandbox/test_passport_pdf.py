"""The passport PDF: one A4 page, text that reads back, blanks for missing values, no fetches."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pypdf import PdfReader

from portal.assurance.records import CropPassport
from sandbox.pdf import (
    BASE_URL,
    PACKAGE_DIR,
    PackageURLFetcher,
    ResourceRefused,
    display_short_code,
    passport_html,
    render_passport_pdf,
)

ADDRESS = "Manor Farm, Long Lane, Little Snoring, Fakenham, Norfolk NR21 0AB"


def required_only(**changes) -> CropPassport:
    values = {
        "short_code": "K7QXR4MNPW",
        "membership_guid": "0349EQH8NH.16LGK2EH7S03C",
        "site_guid": "0349EQH8NH.16LGK2EH7S03D",
        "business_name": "Hollow Lane Farms Ltd",
        "collection_address": ADDRESS,
        "certifier_name": "Acme Certification Ltd",
        "membership_number": "CCS-204871",
        "check_date": datetime(2026, 11, 21, 16, 2, tzinfo=UTC),
        "status": "Valid",
        "expiry_date": datetime(2027, 6, 30, tzinfo=UTC),
        "enterprises": "Combinable Crops,Sugar Beet",
    }
    return CropPassport(**(values | changes))


def complete(**changes) -> CropPassport:
    values = {
        "store_guid": "0349EQH8NH.16LGK2EH7S03E",
        "crop_type": "Wheat",
        "variety": "KWS Extase",
        "store_or_bin_name": "Bin 4 (east barn)",
        "loading_date": datetime(2026, 11, 22, 7, 30, tzinfo=UTC),
        "harvest_year": "2026",
        "haulier_company_name": "Fenland Grain Haulage",
        "vehicle_registration": "AB12 CDE",
        "trailer_number": "T-114",
        "haulier_collection_ticket_no": "FGH-88213",
        "post_harvest_treatment_option": "B",
        "post_harvest_treatment_date": datetime(2026, 9, 3, tzinfo=UTC),
        "post_harvest_treatment_product": "K-Obiol EC25",
        "don_risk_assessment_result": 4.0,
        "don_test_date": datetime(2026, 8, 20, tzinfo=UTC),
        "don_test_result": "<200 ppb",
        "zon_test_date": datetime(2026, 8, 21, tzinfo=UTC),
        "zon_test_result": "<50 ppb",
        "grain_store_name": "East Barn Grain Store",
        "grain_store_latitude": "52.8624",
        "grain_store_longitude": "0.9081",
    }
    return required_only(**(values | changes))


def read(pdf: bytes) -> tuple[int, str]:
    reader = PdfReader(io.BytesIO(pdf))
    return len(reader.pages), "\n".join(page.extract_text() for page in reader.pages)


@pytest.fixture(scope="module")
def complete_pdf() -> tuple[bytes, int, str]:
    pdf = render_passport_pdf(complete())
    return (pdf, *read(pdf))


class TestCompletePassport:
    def test_it_is_one_pdf_page(self, complete_pdf):
        pdf, pages, _ = complete_pdf
        assert pdf.startswith(b"%PDF-")
        assert pages == 1

    def test_it_shows_the_short_code_with_one_hyphen(self, complete_pdf):
        assert "K7QXR-4MNPW" in complete_pdf[2]

    def test_it_shows_who_and_where(self, complete_pdf):
        text = complete_pdf[2]
        assert ADDRESS in text
        assert "Hollow Lane Farms Ltd" in text
        assert "Acme Certification Ltd" in text
        assert "CCS-204871" in text

    def test_it_shows_the_load_and_the_claim(self, complete_pdf):
        text = complete_pdf[2]
        for value in ("Wheat", "KWS Extase", "AB12 CDE", "FGH-88213", "East Barn Grain Store"):
            assert value in text
        assert "Combinable Crops, Sugar Beet" in text
        assert "52.8624" in text and "0.9081" in text

    def test_it_prints_dates_as_the_portals_pages_write_them(self, complete_pdf):
        text = complete_pdf[2]
        for date in ("22 November 2026", "21 November 2026", "30 June 2027", "3 September 2026",
                     "20 August 2026"):  # fmt: skip
            assert date in text

    def test_it_prints_an_integral_risk_score_as_an_integer(self, complete_pdf):
        text = complete_pdf[2]
        assert "4.0" not in text
        assert "(SCORE)\n4\n" in text

    def test_it_ticks_the_chosen_treatment_option(self, complete_pdf):
        assert "\u2714 B" in complete_pdf[2]


class TestRequiredFieldsOnly:
    def test_it_is_one_page_with_no_none(self):
        pages, text = read(render_passport_pdf(required_only()))
        assert pages == 1
        assert "None" not in text
        assert "K7QXR-4MNPW" in text
        assert ADDRESS in text

    def test_it_prints_blank_boxes_for_missing_values(self):
        page_html = passport_html(required_only())
        assert "None" not in page_html
        # Nine load details, two treatment fields and five mycotoxin fields, besides signatures.
        assert page_html.count('<div class="v blank"></div>') >= 9 + 2 + 5
        assert "must be completed by hand" in page_html

    def test_it_leaves_out_the_grain_store_row_without_a_store(self):
        assert "Grain store (collection point)" not in passport_html(required_only())

    def test_it_ticks_nothing_without_an_option(self):
        assert "&#10004;" not in passport_html(required_only(post_harvest_treatment_option=""))


class TestLongValues:
    def test_long_names_and_addresses_wrap_onto_one_page(self):
        passport = complete(
            short_code="K7QXR4MNPWAB",
            business_name="The Trustees of the Great Snoring and Little Snoring Agricultural "
            "Partnership Settlement (No. 2) Limited Liability Partnership",
            collection_address="Unit 14, The Old Granary Buildings, Manor Farm Business Park, "
            "Long Lane off the Fakenham Road (B1354), Little Snoring, Fakenham, Norfolk NR21 0AB",
            haulier_company_name="Fenland and East Anglian Grain Haulage and Storage Services Ltd",
            enterprises="Combinable Crops, Sugar Beet, Fresh Produce, Beef and Lamb, Dairy, Pigs",
        )
        pages, text = read(render_passport_pdf(passport))
        assert pages == 1
        assert "K7QXR4-MNPWAB" in text

    def test_absurdly_long_values_still_fit_one_page(self):
        passport = complete(business_name="Long business name " * 40, variety="x" * 600)
        assert read(render_passport_pdf(passport))[0] == 1


class TestValuesAreEscaped:
    def test_markup_in_a_value_is_printed_as_text(self):
        page_html = passport_html(required_only(business_name="<b>Smith & Sons</b> $crop_type"))
        assert "&lt;b&gt;Smith &amp; Sons&lt;/b&gt; $crop_type" in page_html
        assert "<b>" not in page_html


class TestFormatting:
    @pytest.mark.parametrize(
        ("code", "shown"),
        [
            ("ABCDEFGHJK", "ABCDE-FGHJK"),
            ("abcdefgh", "ABCD-EFGH"),
            ("ABCDEFGHJ", "ABCD-EFGHJ"),
            ("ABCDE-FGHJK", "ABCDE-FGHJK"),
        ],
    )
    def test_short_code_has_one_hyphen_in_the_middle(self, code, shown):
        assert display_short_code(code) == shown

    def test_dates_are_printed_in_utc(self):
        late_evening_in_new_york = datetime(
            2026, 11, 21, 22, 0, tzinfo=timezone(timedelta(hours=-5))
        )
        page_html = passport_html(required_only(check_date=late_evening_in_new_york))
        assert "22 November 2026" in page_html
        assert "21 November 2026" not in page_html


class TestFetcher:
    def test_it_serves_a_package_file(self):
        response = PackageURLFetcher().fetch(BASE_URL + "passport.css")
        try:
            assert response.content_type == "text/css"
            assert b"@font-face" in response.read()
        finally:
            response.close()

    def test_it_serves_a_font(self):
        response = PackageURLFetcher().fetch(BASE_URL + "fonts/DejaVuSans.ttf")
        try:
            assert len(response.read()) > 100_000
        finally:
            response.close()

    @pytest.mark.parametrize(
        "url",
        [
            "http://example.com/passport.css",
            "https://example.com/font.ttf",
            "data:text/css,body{}",
            "ftp://example.com/x",
        ],
    )
    def test_it_refuses_other_schemes(self, url):
        with pytest.raises(ResourceRefused):
            PackageURLFetcher().fetch(url)

    def test_it_refuses_a_file_outside_the_package(self):
        with pytest.raises(ResourceRefused):
            PackageURLFetcher().fetch("file:///etc/passwd")

    def test_it_refuses_climbing_out_of_the_package(self):
        with pytest.raises(ResourceRefused):
            PackageURLFetcher().fetch(BASE_URL + "../__init__.py")

    def test_it_refuses_a_missing_package_file(self):
        with pytest.raises(ResourceRefused):
            PackageURLFetcher().fetch(BASE_URL + "missing.css")

    def test_it_refuses_a_file_url_on_another_host(self):
        with pytest.raises(ResourceRefused):
            PackageURLFetcher().fetch(f"file://example.com{PACKAGE_DIR}/passport.css")
