"""The standards pages under /cy/: in Welsh, saying once that the standards are published in
English, the service's own text marked lang="en" so that a screen reader reads it in English;
the checklists made from a Welsh page (PDF, CSV, the whole scheme's job) with Welsh words and
headers, their values as the service sent them. The English pages are as they were."""

from __future__ import annotations

import csv
import io
import re

import pytest

from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.standards.helpers import CROPS, STORAGE, demo, demo_section, pdf_words

pytestmark = pytest.mark.django_db
NOTICE = "Dim ond yn Saesneg y cyhoeddir y safonau"
CROPS_NAME = demo("crops")["name"]


def page(client, address: str) -> str:
    response = client.get(address)
    assert response.status_code == 200
    return response.content.decode()


def test_the_schemes_page_is_in_welsh_with_the_notice_once(grower):
    html = page(grower, "/cy/standards/")
    assert '<html lang="cy"' in html
    assert "<h1>Safonau</h1>" in html
    assert "Mewn grym nawr" in html and "Y fersiynau nesaf" in html
    assert html.count(NOTICE) == 1
    # The scheme's name is the service's, in English, and marked so.
    assert f'lang="en">{CROPS_NAME}</a>' in html
    assert f'<span lang="en">{CROPS_NAME}</span> (rhagolwg)' in html


def test_the_english_pages_have_no_notice_and_no_marks(grower):
    html = page(grower, "/standards/")
    assert NOTICE not in html and "published in English" not in html
    assert 'lang="en"' not in html.split("<main", 1)[1]


def test_a_scheme_page_is_in_welsh(grower):
    html = page(grower, f"/cy/standards/{CROPS}/")
    assert f'<h1><span lang="en">{CROPS_NAME}</span></h1>' in html
    assert html.count(NOTICE) == 1
    assert "Chwilio’r cynllun hwn yn ôl cyfeirnod" in html
    assert ">Gwneud rhestr wirio PDF</button>" in html and ">Gwneud ffeil CSV</button>" in html
    assert '<h2 id="sections-heading">Adrannau</h2>' in html
    # Its links stay in Welsh.
    assert f'href="/cy/standards/{CROPS}/CR/ST/"' in html


def test_a_section_page_is_in_welsh_with_the_points_text_in_english(grower):
    html = page(grower, f"/cy{STORAGE}")
    assert '<html lang="cy"' in html
    assert html.count(NOTICE) == 1
    assert '<span lang="en">Storage</span>' in html
    assert "<h4>Sut y caiff ei fesur</h4>" in html and "<h4>Atebion</h4>" in html
    assert "Atebion critigol yn unig" in html and ">Pob nod</option>" in html
    assert "21 pwynt safon" in html
    first = demo_section("crops", "CR.ST")["points"][0]
    assert re.search(r'<span class="point-question" lang="en">[^<]*'
                     + re.escape(first["question"][:30]), html)  # fmt: skip
    assert "Diweddarwyd y cynnwys o’r gwasanaeth Sicrwydd ddiwethaf ar" in html


def test_the_section_kept_for_one_language_is_not_shown_in_the_other(grower):
    page(grower, f"/cy{STORAGE}")
    english = page(grower, STORAGE)
    assert "How it is measured" in english and "Sut y caiff ei fesur" not in english
    assert page(grower, f"/cy{STORAGE}").count("Sut y caiff ei fesur") > 0


def test_a_point_and_a_search_are_in_welsh(grower):
    html = page(grower, f"/cy/standards/{CROPS}/points/CR.ST.3/")
    assert html.count(NOTICE) == 1 and "Dolen i CR.ST.3" in html
    found = page(grower, f"/cy/standards/{CROPS}/search/?q=CR.ST.3")
    assert re.search(r"Cafwyd \d+ pwynt safon o dan CR\.ST\.3\.", found)
    nothing = page(grower, f"/cy/standards/{CROPS}/search/?q=zzzzqx")
    assert "Ni chafwyd dim ar gyfer “zzzzqx”" in nothing


def test_what_has_changed_is_in_welsh(grower):
    html = page(grower, f"/cy/standards/{CROPS}/changes/")
    assert f'Beth sydd wedi newid yn <span lang="en">{CROPS_NAME}</span>' in html
    assert html.count(NOTICE) == 1
    assert "Adrannau a newidiwyd" in html
    assert "wedi’u hychwanegu" in html


def test_a_section_s_csv_from_a_welsh_page_has_welsh_headers_and_the_same_values(grower):
    response = grower.get(f"/cy{STORAGE}export.csv")
    assert response.status_code == 200
    table = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert table[0] == ["Cyfeirnod", "Pwynt safon", "Sut y caiff ei fesur", "Cadw cofnodion",
                        "Canllawiau", "Sgôr", "Diwygiad", "Nodau", "Pwyntiau archwilio",
                        "Atebion", "Critigol"]  # fmt: skip
    english = list(csv.reader(io.StringIO(grower.get(f"{STORAGE}export.csv").content
                                          .decode("utf-8-sig"))))  # fmt: skip
    assert table[1:] == english[1:]  # the values, "yes" and "no" among them, stay as they are


def test_a_section_s_checklist_from_a_welsh_page_is_in_welsh(grower):
    response = grower.get(f"/cy{STORAGE}checklist.pdf?critical=1")
    assert response.status_code == 200
    text = " ".join(pdf_words(response.content).split())
    assert "rhestr wirio o" in text and "(dim ond y rhai ag atebion critigol)" in text
    assert "Mae’r aseswr yn gwirio:" in text
    assert "Tudalen 1 o" in text
    assert "checklist of" not in text


def test_the_whole_scheme_made_from_a_welsh_page_is_in_welsh(grower):
    grower.post(f"/cy/standards/{CROPS}/export/", {"format": "csv"})
    job = Job.objects.get()
    assert job.title == f"{CROPS_NAME} fel CSV"
    run(job)
    job.refresh_from_db()
    assert job.state == Job.State.DONE
    rows = list(csv.reader(io.StringIO(job.result.read().decode("utf-8-sig"))))
    assert rows[0][:4] == ["Adran", "Enw’r adran", "Cyfeirnod", "Pwynt safon"]
    grower.post(f"/cy/standards/{CROPS}/export/", {"format": "pdf"})
    pdf_job = run(Job.objects.get(kind="scheme-export-pdf"))
    text = " ".join(pdf_words(pdf_job.result.read()).split())
    assert "Y safonau sydd mewn grym" in text and "Cynnwys" in text
    assert "Rhestr wirio o" in text
