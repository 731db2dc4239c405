"""A grower queries a load's result from the passport's page (why, and a laboratory's certificate
if they have one, a PDF of at most 5 MB); a clerk of the site answers it or stands by the result;
a correction answers it too. Each is a new entry of the load's history, shown in order on the
passport's page; a bad certificate is refused beside its field and changes nothing; anyone but
the passport's grower (for the query) or the site's clerks (for the answer) gets 404, and the
certificate goes to those two only."""

from __future__ import annotations

import re
import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client

from portal.accounts.session import portal_user
from portal.intake import loads, queries
from portal.intake.models import Decision, LoadEntry
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import (
    a_certificate,
    a_load,
    a_signed_in_clerk,
    a_site,
    figures,
    queried,
)
from tests.portal.passports.helpers import text
from tests.portal.passports.helpers import words as text_of

pytestmark = pytest.mark.django_db

WHY = "The specific weight looks low: our own test of the sample gave 77.1 kg/hl."


@pytest.fixture
def load(grower):
    return a_load(a_site())


@pytest.fixture
def clerk(load) -> Client:
    """The demo haulier (of no membership), made a clerk of the load's site."""
    return a_signed_in_clerk(load.site)


def passport_page(client: Client, load) -> str:
    return text(client.get(f"/passports/{load.passport.short_code}/"))


def query(client: Client, load, words: str = WHY, certificate: bytes | None = None, **extra):
    data = {"words": words}
    if certificate is not None:
        data["certificate"] = SimpleUploadedFile("certificate.pdf", certificate, "application/pdf")
    return client.post(f"/intake/loads/{load.pk}/query", data, **extra)


def kinds(load) -> list[str]:
    return list(load.entries.values_list("kind", flat=True))


def kept_files(folder) -> list:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


# --- the grower's query ---------------------------------------------------------------------------


def test_the_grower_queries_a_result_and_sees_it_open_in_the_history(grower, load):
    response = query(grower, load)
    assert response.status_code == 303
    assert response["Location"] == f"/passports/{load.passport.short_code}/"
    page = passport_page(grower, load)
    assert "Your query is sent to Stour Valley Grain, Sudbury." in page
    assert "Query open Stour Valley Grain, Sudbury has the query grower sent on" in page
    assert "Queried by grower on" in page and WHY in page
    assert page.index("Recorded by intake on") < page.index("Queried by grower on")
    assert "Query this result" not in page  # one query open at a time
    assert kinds(load) == ["recorded", "queried"]


def test_a_query_keeps_its_certificate_under_a_name_no_one_could_guess(grower, load, portal_files):
    certificate = a_certificate(pages=2)
    assert query(grower, load, certificate=certificate).status_code == 303
    entry = load.entries.get(kind="queried")
    assert re.fullmatch(r"intake/certificates/[A-Za-z0-9_-]{32}\.pdf", entry.certificate.name)
    assert (portal_files / entry.certificate.name).read_bytes() == certificate
    page = grower.get(f"/passports/{load.passport.short_code}/").content.decode()
    assert f'href="/intake/loads/{load.pk}/certificate/{entry.pk}">Laboratory certificate' in page


def test_the_passport_page_offers_the_query_s_form_beside_each_load(grower, load):
    page = grower.get(f"/passports/{load.passport.short_code}/").content.decode()
    assert "<summary>Query this result</summary>" in page
    assert f'action="/intake/loads/{load.pk}/query" enctype="multipart/form-data"' in page
    assert f'id="query-{load.pk}-words"' in page and 'accept="application/pdf,.pdf"' in page


NOT_A_PDF = b"\x89PNG\r\n\x1a\n" + bytes(2048)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (NOT_A_PDF, "This file is not a PDF, whatever its name says"),
        (
            b"<html><a href=https://example.com>Open</a></html>\n" + a_certificate(),
            "This file is not a PDF, whatever its name says",
        ),
        (a_certificate()[:300], "This PDF is cut short"),
        (b"%PDF-1.7\n" + bytes(4096) + b"\n%%EOF\n", "This PDF is damaged and does not open"),
        (b"", "This file is empty"),
        (b"%PDF-1.7\n" + bytes(5 * 1024 * 1024) + b"%%EOF\n", "larger than 5 MB"),
    ],
    ids=[
        "a renamed PNG",
        "a PDF behind something else",
        "truncated",
        "damaged",
        "empty",
        "over 5 MB",
    ],
)
def test_a_bad_certificate_is_refused_beside_its_field_and_changes_nothing(
    grower, load, portal_files, content, said
):
    response = query(grower, load, certificate=content)
    assert response.status_code == 400
    page = response.content.decode()
    error_id = f"query-{load.pk}-certificate_error"
    error = re.search(rf'<ul class="errorlist" id="{error_id}">(.*?)</ul>', page)
    assert error and said in text_of(error.group(1))
    field = re.search(rf'<input[^>]*id="query-{load.pk}-certificate"[^>]*>', page).group(0)
    assert 'aria-invalid="true"' in field
    assert error_id in field  # aria-describedby
    assert WHY in page  # the words typed are kept
    assert "Your query was not sent." in text_of(page)
    assert kinds(load) == ["recorded"] and kept_files(portal_files) == []


def test_a_body_far_over_the_limit_is_refused_before_it_is_read(grower, load, portal_files):
    response = query(grower, load, certificate=b"%PDF-1.7\n" + bytes(11 * 1024 * 1024))
    assert response.status_code == 413
    assert "The certificate is larger than 5 MB" in text(response)
    assert "Write your query again: with so large a file, nothing you sent was read." in text(
        response
    )
    assert kinds(load) == ["recorded"] and kept_files(portal_files) == []


@pytest.mark.parametrize(
    ("words", "said"),
    [("   ", "Say why you query this result."),
     ("x" * 2_001, "Ensure this value has at most 2000 characters")],
    ids=["none", "too many"],
)  # fmt: skip
def test_the_words_are_required_and_not_too_many(grower, load, words, said):
    response = query(grower, load, words=words)
    assert response.status_code == 400
    assert said in text(response)
    assert f'id="query-{load.pk}-words_error"' in response.content.decode()
    assert kinds(load) == ["recorded"]


def test_with_htmx_the_form_comes_back_in_place_and_a_query_sent_reloads_the_page(grower, load):
    refused = query(grower, load, words="", headers={"HX-Request": "true"})
    assert refused.status_code == 400
    assert "<html" not in refused.content.decode()
    assert "Say why you query this result." in text(refused)
    sent = query(grower, load, headers={"HX-Request": "true"})
    assert sent["HX-Redirect"] == f"/passports/{load.passport.short_code}/"


def test_without_javascript_a_refused_query_is_a_page_of_its_own(grower, load):
    page = text(query(grower, load, words=""))
    assert "Query the result of ticket T-1001" in page
    assert "Stour Valley Grain, Sudbury, ticket T-1001" in page
    assert "Back to the passport" in page
    assert "Recorded by intake on" in page  # the history


def test_a_second_query_waits_for_the_first_s_answer(grower, load, portal_files):
    query(grower, load)
    response = query(grower, load, words="And another thing.", certificate=a_certificate())
    assert "This result is queried already" in text(grower.get(response["Location"]))
    assert kinds(load) == ["recorded", "queried"]
    assert kept_files(portal_files) == []  # its certificate not kept either


def test_a_query_needs_the_csrf_token(grower, load):
    grower.handler.enforce_csrf_checks = True
    assert query(grower, load).status_code == 403
    assert kinds(load) == ["recorded"]


@pytest.mark.parametrize("who", ["another business's grower", "anonymous", "a clerk of the site"])
def test_only_the_passport_s_grower_may_query_it(load, clerk, who):
    client = {"another business's grower": lambda: signed_in("lapsed"),
              "anonymous": Client, "a clerk of the site": lambda: clerk}[who]()  # fmt: skip
    assert query(client, load).status_code == 404
    assert client.get(f"/intake/loads/{load.pk}/query").status_code == 404
    assert kinds(load) == ["recorded"]


def test_a_second_contact_of_the_business_may_query_it(load, partner):
    assert query(partner, load).status_code == 303
    assert load.entries.get(kind="queried").by == "partner"


def test_a_load_that_is_not_there_is_404(grower):
    assert query(grower, type("Gone", (), {"pk": 999_999})()).status_code == 404


# --- the clerk's answer ---------------------------------------------------------------------------


def answer(client: Client, load, words: str, action: str = "answer", **extra):
    return client.post(f"/intake/loads/{load.pk}/answer", {"words": words, "action": action},
                       **extra)  # fmt: skip


def test_the_clerk_answers_and_the_grower_sees_the_answer(grower, load, clerk):
    queried(load, WHY)
    response = answer(clerk, load, "Retested: 72.6 kg/hl. The claim stands.")
    assert response.status_code == 303
    assert response["Location"] == f"/intake/loads/{load.pk}/"
    said = text(clerk.get(response["Location"]))
    assert "The grower sees your answer on the passport's page." in said
    page = passport_page(grower, load)
    assert "Answered by haulier on" in page and "Retested: 72.6 kg/hl." in page
    assert "Query open" not in page and "Query this result" in page  # they may ask again
    assert kinds(load) == ["recorded", "queried", "answered"]


def test_the_clerk_stands_by_the_result_with_a_reason(grower, load, clerk):
    queried(load)
    assert answer(clerk, load, "Weighed twice.", action="stand-by").status_code == 303
    assert "Result upheld by haulier on" in passport_page(grower, load)
    assert kinds(load) == ["recorded", "queried", "stood-by"]


@pytest.mark.parametrize("action", ["answer", "stand-by"])
def test_an_answer_or_a_stand_by_needs_words(load, clerk, action):
    queried(load)
    response = answer(clerk, load, "  ", action=action)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Write your answer, or why the result stands." in text(response)
    textarea = re.search(rf'<textarea[^>]*id="answer-{load.pk}-words"[^>]*>', page).group(0)
    assert 'aria-invalid="true"' in textarea and f"answer-{load.pk}-words_error" in textarea
    assert kinds(load) == ["recorded", "queried"]


def test_the_clerk_sees_the_open_query_with_its_certificate(load, clerk):
    entry = queried(load, WHY, certificate=a_certificate())
    page = clerk.get(f"/intake/loads/{load.pk}/answer").content.decode()
    assert "Query open" in page and WHY in text_of(page)
    assert f'href="/intake/loads/{load.pk}/certificate/{entry.pk}"' in page
    assert 'value="stand-by"' in page and 'value="answer"' in page
    said = text_of(page)
    assert (
        "Answer sends your words to the grower as the site's answer (your explanation, or "
        "what you will do), and closes the query."
    ) in said
    assert (
        "Stand by the result tells the grower that the result stands as recorded, with "
        'your words as why ("Result upheld" in the history), and closes the query.'
    ) in said
    assert f'aria-describedby="answer-{load.pk}-stands"' in page


def test_with_htmx_a_refused_answer_comes_back_in_place(load, clerk):
    queried(load)
    response = answer(clerk, load, "", headers={"HX-Request": "true"})
    assert response.status_code == 400 and "<html" not in response.content.decode()
    assert 'class="query-answer"' in response.content.decode()


def test_a_load_with_no_open_query_has_nothing_to_answer(load, clerk):
    assert "No query of this load is open" in text(clerk.get(f"/intake/loads/{load.pk}/answer"))
    response = answer(clerk, load, "Nothing to say.")
    assert "This load has no query open" in text(clerk.get(response["Location"]))
    assert kinds(load) == ["recorded"]


@pytest.mark.django_db(transaction=True)
def test_two_clerks_replying_at_once_reply_once(upstream_sandbox, monkeypatch):
    portal_user("grower")  # the passport's maker
    load = a_load(a_site())
    queried(load)
    reads = queries.open_query_of

    def slow_read(load):  # each reply reads the query open, then waits before it answers
        found = reads(load)
        time.sleep(0.5)
        return found

    monkeypatch.setattr(queries, "open_query_of", slow_read)
    outcomes: list[str] = []

    def reply(words: str) -> None:
        try:
            queries.reply(load, by="haulier", words=words, stand_by=False)
            outcomes.append("answered")
        except queries.NotOpen:
            outcomes.append("not open")
        finally:
            connection.close()  # the thread's own

    replies = [threading.Thread(target=reply, args=(w,)) for w in ("One.", "Two.")]
    for each in replies:
        each.start()
    for each in replies:
        each.join(30)
    assert sorted(outcomes) == ["answered", "not open"]
    assert kinds(load) == ["recorded", "queried", "answered"]


@pytest.mark.parametrize("who", ["a clerk of another site", "the grower", "anonymous"])
def test_only_the_site_s_clerks_may_answer(grower, load, who):
    queried(load)
    other = a_site(name="Fenland Mills", code="fenland-mills")
    client = {"a clerk of another site": lambda: a_signed_in_clerk(other),
              "the grower": lambda: grower, "anonymous": Client}[who]()  # fmt: skip
    assert answer(client, load, "Stands.").status_code == 404
    assert client.get(f"/intake/loads/{load.pk}/answer").status_code == 404
    assert kinds(load) == ["recorded", "queried"]


# --- open queries and the history -----------------------------------------------------------------


def test_a_correction_after_a_query_answers_it(grower, load):
    queried(load)
    assert queries.open_query_of(load) is not None
    loads.correct(load, figures(decision=Decision.ACCEPTED, claims=(), reasons=()), by="intake",
                  reason="Specific weight retested at 76.4 kg/hl")  # fmt: skip
    assert queries.open_query_of(load) is None
    page = passport_page(grower, load)
    assert "Query open" not in page and "Query this result" in page


def test_which_query_is_open():
    def entries(*kinds: str) -> list[LoadEntry]:
        return [LoadEntry(kind=kind, pk=n) for n, kind in enumerate(kinds, 1)]

    assert queries.open_query(entries("recorded")) is None
    assert queries.open_query(entries("recorded", "queried")).pk == 2
    assert queries.open_query(entries("recorded", "corrected", "queried")).pk == 3
    for reply in ("answered", "stood-by", "corrected"):
        assert queries.open_query(entries("recorded", "queried", reply)) is None
    assert queries.open_query(entries("recorded", "queried", "answered", "queried")).pk == 4


def test_the_history_shows_each_entry_in_order_and_keeps_those_before(grower, load, clerk):
    query(grower, load, words="First query.")
    answer(clerk, load, "First answer.")
    query(grower, load, words="Second query.", certificate=a_certificate())
    answer(clerk, load, "We stand by it.", action="stand-by")
    query(grower, load, words="Third query.")
    loads.correct(load, figures(tare_kg=14_020), by="haulier", reason="Tare of the wrong lorry")
    page = passport_page(grower, load)
    said = ["Recorded by intake", "Queried by grower", "First query.", "Answered by haulier",
            "First answer.", "Queried by grower", "Second query.", "Laboratory certificate (PDF)",
            "Result upheld by haulier", "We stand by it.", "Queried by grower", "Third query.",
            "Corrected by haulier", "Tare of the wrong lorry"]  # fmt: skip
    places = [page.index(words, page.index("History")) for words in said[:1]]
    for words in said[1:]:
        places.append(page.index(words, places[-1] + 1))
    assert places == sorted(places)
    assert kinds(load) == ["recorded", "queried", "answered", "queried", "stood-by", "queried",
                           "corrected"]  # fmt: skip


# --- the certificate ------------------------------------------------------------------------------


def download(client: Client, load, entry):
    return client.get(f"/intake/loads/{load.pk}/certificate/{entry.pk}")


def test_the_grower_and_the_site_s_clerk_download_the_certificate(grower, load, clerk, partner):
    certificate = a_certificate()
    entry = queried(load, certificate=certificate)
    for client in (grower, partner, clerk):
        response = download(client, load, entry)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/pdf"
        assert response["Content-Disposition"] == (
            f'attachment; filename="certificate-T-1001-{entry.pk}.pdf"'
        )
        assert response["X-Content-Type-Options"] == "nosniff"
        assert b"".join(response.streaming_content) == certificate


@pytest.mark.parametrize("who", ["a clerk of another site", "another business's grower",
                                 "anonymous"])  # fmt: skip
def test_no_one_else_downloads_the_certificate(grower, load, who):
    entry = queried(load, certificate=a_certificate())
    other = a_site(name="Fenland Mills", code="fenland-mills")
    client = {"a clerk of another site": lambda: a_signed_in_clerk(other),
              "another business's grower": lambda: signed_in("lapsed"),
              "anonymous": Client}[who]()  # fmt: skip
    assert download(client, load, entry).status_code == 404


def test_a_certificate_is_found_only_with_its_own_load_and_query(grower, load):
    without = queried(load)
    other_load = a_load(load.site, ticket="T-1002")
    with_one = queried(other_load, certificate=a_certificate())
    assert download(grower, load, without).status_code == 404  # a query without one
    assert download(grower, load, with_one).status_code == 404  # another load's
    recorded = load.entries.get(kind="recorded")
    assert download(grower, load, recorded).status_code == 404
