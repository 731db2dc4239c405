"""A day's loads checked at intake (`/p/check`): many short codes at once, through the portal's
look-up account and the client address's allowance, against the live sandbox."""

from __future__ import annotations

import csv
import io
import re
import threading
from datetime import datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.assurance import service
from portal.assurance.errors import Unavailable
from portal.dashboard import figures as dashboard
from portal.passports import codes, gate_check, lookup
from portal.passports.gate_check import State
from tests.portal.accounts.helpers import upstream_calls
from tests.portal.passports.helpers import (
    signed_address,
    suspended_after_it_was_made,
    table_of,
    text,
    within_one_window,
)

pytestmark = pytest.mark.django_db

DEMO = "7KXM4-QHT2W"
UNKNOWN = "ABCDE-FGHJK"
OTHER_UNKNOWN = "BCDEF-GHJKM"


def check(client: Client, typed: str) -> tuple[object, object]:
    """Sends the list; the answer to the form, and the page it leads to (or None)."""
    sent = client.post("/p/check", {"codes": typed})
    if sent.status_code != 303:
        return sent, None
    return sent, client.get(sent["Location"])


def rows(page) -> list[tuple[str, str]]:
    """The table's rows: each code as shown, and its state."""
    row = r'<th scope="row" class="code">(.*?)</th>\s*<td class="state state-([\w-]+)"'
    return re.findall(row, page.content.decode())


def row_text(page, code: str) -> str:
    """The words of the table's row of `code`."""
    html = page.content.decode()
    row = re.search(rf'<th scope="row" class="code">{re.escape(code)}</th>(.*?)</tr>', html, re.S)
    assert row, f"no row for {code}"
    return " ".join(re.sub(r"<[^>]+>", " ", row[1]).split())


def lookups(calls) -> int:
    return sum(1 for report in calls if report.operation == "passport")


# --- reading the list -----------------------------------------------------------------------------


def entries(typed: str) -> list[tuple[str, str | None, int]]:
    return [(e.shown, e.short_code, e.times) for e in gate_check.listed(typed)]


def test_codes_are_read_one_a_line_or_between_spaces_commas_or_semicolons():
    typed = "7kxm4qht2w\nABCDE-FGHJK, bcdefghjkm;CDEFGHJK  DEFGHJKM\r\n\n\t"
    assert [short_code for _, short_code, _ in entries(typed)] == [
        DEMO, UNKNOWN, OTHER_UNKNOWN, "CDEF-GHJK", "DEFG-HJKM",
    ]  # fmt: skip


def test_each_code_is_listed_once_with_the_times_it_was_given():
    typed = f"{DEMO}\n7kxm4qht2w\n{UNKNOWN}\n7KXM4QHT2W\nnope\nNOPE"
    assert entries(typed) == [(DEMO, DEMO, 3), (UNKNOWN, UNKNOWN, 1), ("nope", None, 2)]


def test_a_code_typed_with_spaces_in_it_is_read_whole():
    assert entries("7KXM4 QHT2W\n7kx m4q ht2w") == [(DEMO, DEMO, 2)]
    # But words that are codes alone stay codes.
    assert [code for _, code, _ in entries("ABCDEFGH JKMNPQRS")] == ["ABCD-EFGH", "JKMN-PQRS"]


def test_a_look_up_address_is_read_as_its_code():
    typed = f"https://portal.example.org/p/{DEMO}\nhttp://127.0.0.1:8000/p/abcdefghjk/"
    assert [code for _, code, _ in entries(typed)] == [DEMO, UNKNOWN]


def test_a_signed_address_is_read_as_its_code():
    address = signed_address(DEMO)
    assert [(code, times) for _, code, times in entries(f"{address}\n{address.lower()}/")] == [
        (DEMO, 2)
    ]


def test_a_signed_address_altered_is_not_a_code():
    address = signed_address(DEMO)
    altered = address[:-10] + ("A" if address[-10] != "A" else "B") + address[-9:]
    [(shown, short_code, _)] = entries(altered)
    assert short_code is None
    assert shown == altered[: gate_check.SHOWN_TYPED] + "…"


def test_a_list_of_signed_addresses_is_checked(visitor, one_window):
    _, page = check(visitor, "\n".join([signed_address(DEMO), signed_address(UNKNOWN)] * 25))
    assert rows(page) == [(DEMO, "valid"), (UNKNOWN, "unknown")]


@pytest.mark.parametrize(
    "typed",
    [
        "0OIL1-0OIL1",
        "ABC",
        "ABCDE--FGHJK",
        "ABCDÉFGHJK",
        "=1+1",
        "<script>",
        "A" * 13,
        "ㅤ".join("AB"),
    ],
)
def test_what_cannot_be_a_code_is_listed_as_typed(typed):
    [(shown, short_code, times)] = entries(typed)
    assert short_code is None and times == 1
    assert shown == typed


def test_a_long_entry_is_shown_cut_short():
    [entry] = gate_check.listed("X" * 90)
    assert entry.shown == "X" * 40 + "…"


# --- the form -------------------------------------------------------------------------------------


def test_the_form_asks_for_codes(visitor):
    page = visitor.get("/p/check")
    assert page.status_code == 200
    assert "Check a day's loads" in text(page)
    html = page.content.decode()
    assert '<form method="post" action="/p/check"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<label for="id_codes">Short codes</label>' in html
    assert "Up to 50 codes" in text(page)


@pytest.mark.parametrize("typed", ["", "   \n ", ",,;\n,"])
def test_an_empty_list_is_refused_with_a_reason(visitor, typed):
    with upstream_calls() as calls:
        refused, _ = check(visitor, typed)
    assert refused.status_code == 400
    assert "Enter the short codes to check, one a line." in text(refused)
    assert 'aria-invalid="true"' in refused.content.decode()
    assert calls == []


def test_51_codes_are_refused_before_any_is_checked(visitor, settings, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 3
    many = [codes.normalise(f"ABCDEFGH{a}{b}") for a in "23456789" for b in "23456789"][:51]
    with upstream_calls() as calls:
        refused, _ = check(visitor, "\n".join(many))
    assert refused.status_code == 400
    assert "That is 51 codes: at most 50 can be checked at once." in text(refused)
    assert calls == []
    assert many[0] in refused.content.decode()  # the list is kept, to shorten
    # Not one of the allowance was used.
    for _ in range(3):
        assert visitor.get(f"/p/{UNKNOWN}").status_code == 404
    assert visitor.get(f"/p/{UNKNOWN}").status_code == 429


def test_the_limit_is_a_setting_and_counts_entries_once(visitor, settings):
    settings.PORTAL_INTAKE_LIMIT = 3
    assert check(visitor, "a b c a b c\nC")[0].status_code == 303
    refused, _ = check(visitor, "a b c d")
    assert refused.status_code == 400
    assert "at most 3 can be checked at once" in text(refused)


def test_more_text_than_the_codes_take_is_refused(visitor):
    refused, _ = check(visitor, "A" * (50 * 400 + 1))  # 50 signed addresses, each at most 400
    assert refused.status_code == 400
    assert "That is more text than 50 codes take" in text(refused)


def test_a_null_character_is_refused_not_an_error(visitor):
    refused, _ = check(visitor, f"{DEMO}\x00")
    assert refused.status_code == 400


def test_only_get_and_post_are_allowed(visitor):
    assert visitor.put("/p/check").status_code == 405
    assert visitor.post("/p/check/abc").status_code == 405


def test_the_address_with_a_slash_goes_to_the_form(visitor):
    response = visitor.get("/p/check/")
    assert response.status_code == 302 and response["Location"] == "/p/check"


# --- the verdicts ---------------------------------------------------------------------------------


def test_a_mix_of_codes_gets_a_verdict_each_in_the_order_given(visitor, upstream_sandbox):
    with suspended_after_it_was_made(upstream_sandbox) as suspended:
        typed = f"{DEMO}\n{suspended.lower()}, {UNKNOWN}\n0OIL1-0OIL1\n7kxm4qht2w"
        sent, page = check(visitor, typed)
    assert sent.status_code == 303
    assert re.fullmatch(r"/p/check/[\w-]{20,}", sent["Location"])
    assert page.status_code == 200
    assert rows(page) == [
        (DEMO, "valid"), (suspended, "not-valid"), (UNKNOWN, "unknown"),
        ("0OIL1-0OIL1", "malformed"),
    ]  # fmt: skip
    valid = row_text(page, DEMO)
    assert valid.startswith("✓ Valid Listed twice.")
    for detail in ("Hollowfield Farms Ltd", "Wheat", "Extase", "Stour Valley Haulage", "AE24 KTV",
                   "Hollowfield Farm, Long Lane"):  # fmt: skip
        assert detail in valid
    assert row_text(page, suspended).startswith("✗ Not valid The service shows nothing")
    assert "Barley" not in row_text(page, suspended)
    assert row_text(page, UNKNOWN).startswith("? No passport No passport has this short code.")
    assert row_text(page, "0OIL1-0OIL1").startswith("? Not a short code A short code has 8 to 12")
    page_text = text(page)
    assert "Valid: 1 · Not valid: 1 · No passport: 1 · Not a short code: 1" in page_text
    assert "Checked by the portal on" in page_text


def test_each_code_asked_is_a_call_on_the_staff_dashboard(visitor):
    check(visitor, f"{DEMO}\n{UNKNOWN}\n{OTHER_UNKNOWN}\nnope")
    asked = {o.name: o.calls for o in dashboard.operations(timedelta(hours=1))}
    assert asked.get("passport") == 3  # the three codes, recorded together as the check ended


def test_the_table_has_the_passports_columns_by_their_printed_labels(visitor):
    _, page = check(visitor, DEMO)
    headings = re.findall(r'<th scope="col">(.*?)</th>', page.content.decode())
    assert headings == [
        "Passport short code", "Verdict", "Note", "Business name", "Crop type", "Variety",
        "Loading date", "Haulier company name", "Vehicle registration", "Collection address",
        "Checked",
    ]  # fmt: skip


def test_verdicts_are_kept_as_the_look_ups_are(visitor):
    with upstream_calls() as calls:
        check(visitor, f"{DEMO}\n{UNKNOWN}")
        page = visitor.get(f"/p/{DEMO}")
        assert visitor.get(f"/p/{UNKNOWN}").status_code == 404
        check(visitor, f"{DEMO} {UNKNOWN}")
        again = visitor.get(f"/p/{DEMO}")
    assert lookups(calls) == 2
    # The table shows a few fields; the verdict's page all of them, from the verdict kept.
    for shown in (page, again):
        assert "✓ Valid" in text(shown)
        assert "Store or bin name Bay 3" in text(shown)
        assert "DON risk assessment result (score) 12" in text(shown)


def test_verdicts_are_asked_a_few_at_once(visitor, settings, monkeypatch):
    settings.PORTAL_INTAKE_CALLS_AT_ONCE = 3
    # The first three wait for each other: they go on only if they are asked together (or the
    # barrier breaks after its time-out, and the page with it).
    together = threading.Barrier(3, timeout=10)
    lock = threading.Lock()
    seen = {"calls": 0, "asking": 0, "most": 0}
    real = lookup.verdict

    def counted(short_code: str, **options):
        with lock:
            seen["calls"] += 1
            first_three = seen["calls"] <= 3
            seen["asking"] += 1
            seen["most"] = max(seen["most"], seen["asking"])
        try:
            if first_three:
                together.wait()
            return real(short_code, **options)
        finally:
            with lock:
                seen["asking"] -= 1

    monkeypatch.setattr(lookup, "verdict", counted)
    twelve = [codes.normalise(f"ABCDEFGH{a}{b}") for a in "234" for b in "2345"]
    _, page = check(visitor, "\n".join(twelve))
    assert [state for _, state in rows(page)] == ["unknown"] * 12
    assert seen == {"calls": 12, "asking": 0, "most": 3}


def test_a_code_slow_to_answer_holds_up_none_of_the_others(visitor, settings, monkeypatch):
    settings.PORTAL_INTAKE_CALLS_AT_ONCE = 2
    twelve = [codes.normalise(f"ABCDEFGH{a}{b}") for a in "234" for b in "2345"]
    others_asked = threading.Event()
    asked = []
    real = lookup.verdict

    def first_waits_for_the_rest(short_code: str, **options):
        asked.append(short_code)
        if short_code == twelve[0]:
            others_asked.wait(timeout=10)  # the other thread asks for the rest meanwhile
        elif len(asked) == len(twelve):
            others_asked.set()
        return real(short_code, **options)

    monkeypatch.setattr(lookup, "verdict", first_waits_for_the_rest)
    _, page = check(visitor, "\n".join(twelve))
    assert others_asked.is_set()
    assert rows(page) == [(code, "unknown") for code in twelve]


def test_the_table_is_kept_to_read_again_without_checking_again(visitor, settings, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 3
    sent, first = check(visitor, f"{DEMO}\n{UNKNOWN}")
    with upstream_calls() as calls:
        again = visitor.get(sent["Location"])
    assert calls == []
    assert rows(again) == rows(first) == [(DEMO, "valid"), (UNKNOWN, "unknown")]
    assert row_text(again, DEMO) == row_text(first, DEMO)
    assert visitor.get(f"/p/{OTHER_UNKNOWN}").status_code == 404  # the third of three
    assert visitor.get(f"/p/{OTHER_UNKNOWN}").status_code == 429


def test_a_table_no_longer_kept_says_so(visitor):
    for address in ("/p/check/no-such-check", "/p/check/no-such-check.csv"):
        response = visitor.get(address)
        assert response.status_code == 404
        assert "This check's table is no longer kept" in text(response)
        assert '<form method="post" action="/p/check"' in response.content.decode()


def test_a_table_is_kept_thirty_minutes(visitor):
    sent, _ = check(visitor, "nope")
    with time_machine.travel(timezone.now() + timedelta(minutes=29)):
        assert visitor.get(sent["Location"]).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        assert visitor.get(sent["Location"]).status_code == 404


# --- the allowance --------------------------------------------------------------------------------


def test_each_code_checked_counts_against_the_addresss_look_ups(visitor, settings, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 2
    with upstream_calls() as calls:
        _, page = check(visitor, f"{DEMO}\n{UNKNOWN}\nnope\n{OTHER_UNKNOWN}\nCDEFG-HJKMN")
    assert lookups(calls) == 2
    assert rows(page) == [
        (DEMO, "valid"), (UNKNOWN, "unknown"), ("nope", "malformed"),
        (OTHER_UNKNOWN, "not-checked"), ("CDEFG-HJKMN", "not-checked"),
    ]  # fmt: skip
    page_text = text(page)
    assert "2 codes were not checked yet: the limit of checks for now was reached" in page_text
    seconds = re.search(r"Try again in (\d+) seconds?: the form below holds them", page_text)
    assert seconds and 1 <= int(seconds[1]) <= 60
    assert "This connection has checked as many passports as it may for now" in page_text
    # The form holds the codes left, to check them in a minute.
    assert f">{OTHER_UNKNOWN}\nCDEFG-HJKMN</textarea>" in page.content.decode()
    assert row_text(page, OTHER_UNKNOWN).startswith("… Not checked yet The limit of checks")


def test_codes_not_asked_in_time_are_not_counted(visitor, settings, one_window, monkeypatch):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 2
    monkeypatch.setattr(gate_check, "ASKING_SECONDS", 0)
    _, page = check(visitor, f"{DEMO}\n{UNKNOWN}\n{OTHER_UNKNOWN}")
    assert [state for _, state in rows(page)] == ["unavailable"] * 3
    monkeypatch.undo()
    _, page = check(visitor, f"{DEMO}\n{UNKNOWN}\n{OTHER_UNKNOWN}")
    assert rows(page) == [(DEMO, "valid"), (UNKNOWN, "unknown"), (OTHER_UNKNOWN, "not-checked")]


def test_an_address_whose_allowance_is_used_up_is_refused_before_any_is_checked(
    visitor, settings, one_window
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    check(visitor, DEMO)
    with upstream_calls() as calls:
        refused, _ = check(visitor, f"{UNKNOWN}\n{OTHER_UNKNOWN}")
    assert calls == []
    assert refused.status_code == 429
    seconds = int(refused["Retry-After"])
    assert 1 <= seconds <= 60
    assert f"Nothing was checked: this connection has checked as many passports as it may for " \
           f"now. Try again in {seconds} second" in text(refused)  # fmt: skip
    assert f"{UNKNOWN}\n{OTHER_UNKNOWN}</textarea>" in refused.content.decode()


def test_an_allowance_used_at_intake_is_used_for_the_look_up_too(visitor, settings, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 3
    check(visitor, f"{DEMO} {UNKNOWN} {OTHER_UNKNOWN}")
    refused = visitor.get(f"/p/{DEMO}")
    assert refused.status_code == 429
    assert "Too many look-ups" in text(refused)
    assert int(refused["Retry-After"]) >= 1


def test_a_signed_in_user_has_the_larger_allowance(grower, settings):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    settings.PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE = 3
    with within_one_window("127.0.0.1"):
        _, page = check(grower, f"{DEMO} {UNKNOWN} {OTHER_UNKNOWN} CDEFG-HJKMN")
        assert [state for _, state in rows(page)] == ["valid", "unknown", "unknown", "not-checked"]
        assert "3 passports a minute from one connection" in text(page)


def test_the_page_says_how_many_checks_are_left_when_the_limit_is_near(
    visitor, settings, one_window
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 30
    page_text = text(visitor.get("/p/check"))
    assert "This connection can check 30 passports a minute: of a longer list, the rest wait " \
           "for the next minute." in page_text  # fmt: skip
    _, page = check(visitor, f"{DEMO} {UNKNOWN}")
    assert re.search(r"This connection can check 28 more passports now, and 30 again in \d+ "
                     r"seconds?\.", text(page))  # fmt: skip


def test_a_generous_allowance_is_not_mentioned(visitor, settings):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 100
    assert "This connection can check" not in text(visitor.get("/p/check"))


def test_an_ipv6_address_counts_by_its_network(visitor, settings):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    visitor.defaults["REMOTE_ADDR"] = "2001:db8:1:2::1"
    with within_one_window("2001:db8:1:2::"):
        assert visitor.get(f"/p/{UNKNOWN}").status_code == 404
        visitor.defaults["REMOTE_ADDR"] = "2001:db8:1:2:ffff::9"
        assert visitor.get(f"/p/{UNKNOWN}").status_code == 429
        visitor.defaults["REMOTE_ADDR"] = "2001:db8:1:3::1"
        assert visitor.get(f"/p/{UNKNOWN}").status_code == 404


# --- the CSV file ---------------------------------------------------------------------------------


def test_the_table_downloads_as_csv_with_the_same_columns(visitor, upstream_sandbox):
    with suspended_after_it_was_made(upstream_sandbox) as suspended:
        sent, page = check(visitor, f"{DEMO}\n{suspended}\n{UNKNOWN}\n=HYPERLINK(1)\n{DEMO}")
    assert f'href="{sent["Location"]}.csv"' in page.content.decode()
    with upstream_calls() as calls:
        response = visitor.get(f"{sent['Location']}.csv")
    assert calls == []
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert re.fullmatch(
        r'attachment; filename="passports-checked-\d{4}-\d\d-\d\d-\d{4}\.csv"',
        response["Content-Disposition"],
    )
    body = response.content.decode()
    assert body.startswith("\ufeff")
    table = list(csv.reader(io.StringIO(body.removeprefix("\ufeff"))))
    assert tuple(table[0]) == gate_check.HEADINGS
    assert [row[:2] for row in table[1:]] == [
        [DEMO, "Valid"], [suspended, "Not valid"], [UNKNOWN, "No passport"],
        ["'=HYPERLINK(1)", "Not a short code"],
    ]  # fmt: skip
    demo = dict(zip(table[0], table[1], strict=True))
    assert demo["Note"] == "Listed twice."
    assert demo["Business name"] == "Hollowfield Farms Ltd"
    assert demo["Crop type"] == "Wheat" and demo["Variety"] == "Extase"
    assert demo["Haulier company name"] == "Stour Valley Haulage"
    assert demo["Vehicle registration"] == "AE24 KTV"
    assert demo["Collection address"].startswith("Hollowfield Farm, Long Lane")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d", demo["Checked"])
    assert dict(zip(table[0], table[4], strict=True))["Checked"] == ""
    # Dates in ISO 8601 as the service writes them, for a spreadsheet; the page writes the day.
    loaded = datetime.fromisoformat(demo["Loading date"])
    assert demo["Loading date"] == loaded.strftime("%Y-%m-%dT%H:%M:%SZ")
    _, shown = table_of(page, "checked-table")
    assert shown[0]["Loading date"] == f"{loaded.day} {loaded:%B %Y}"


# --- the service --------------------------------------------------------------------------------


def test_a_service_down_leaves_each_code_without_a_verdict(visitor, settings):
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    service.client.cache_clear()
    sent, page = check(visitor, f"{DEMO}\n{UNKNOWN}\nnope")
    assert sent.status_code == 303 and page.status_code == 200
    assert rows(page) == [(DEMO, "unavailable"), (UNKNOWN, "unavailable"), ("nope", "malformed")]
    page_text = text(page)
    assert "2 codes could not be checked: the Assurance service could not be reached." in page_text
    assert "Do not take this as a verdict either way." in page_text
    assert f">{DEMO}\n{UNKNOWN}</textarea>" in page.content.decode()


def test_a_service_that_goes_down_part_way_leaves_the_rest_without_a_verdict(
    visitor, settings, monkeypatch
):
    settings.PORTAL_INTAKE_CALLS_AT_ONCE = 1
    real = lookup.verdict
    answered = []

    def down_after_one(short_code: str, **options):
        if answered:
            raise Unavailable()
        answered.append(short_code)
        return real(short_code, **options)

    monkeypatch.setattr(lookup, "verdict", down_after_one)
    _, page = check(visitor, f"{DEMO}\n{UNKNOWN}")
    assert rows(page) == [(DEMO, "valid"), (UNKNOWN, "unavailable")]


def test_a_portal_without_a_look_up_account_says_so(visitor, settings):
    settings.ASSURANCE_LOOKUP_USERNAME = ""
    with upstream_calls() as calls:
        _, page = check(visitor, DEMO)
    assert calls == []
    assert rows(page) == [(DEMO, "unavailable")]
    assert "Passports cannot be checked on this portal: it has no account for look-ups." in text(
        page
    )


# --- the page around it ---------------------------------------------------------------------------


def test_the_page_may_use_the_camera_and_no_other_page_may(visitor):
    policy = visitor.get("/p/check")["Permissions-Policy"]
    assert "camera=(self)" in policy and "microphone=()" in policy
    assert "camera=()" in visitor.get("/p/")["Permissions-Policy"]


def test_the_page_needs_its_stylesheets_and_its_script_alone(visitor):
    html = visitor.get("/p/check").content.decode()
    assert re.findall(r'<link rel="stylesheet" href="([^"]+)"', html) == [
        "/static/css/lookup.css", "/static/css/cards.css"
    ]  # fmt: skip
    assert re.findall(r"<script[^>]*>", html) == [
        '<script src="/static/js/language.js" defer>',
        '<script src="/jsi18n/" defer>',  # the script's words, in the page's language
        '<script type="module" src="/static/js/intake.js">',
    ]
    for module in ("intake.js", "scanner.js"):  # the scanner, which intake.js imports
        assert visitor.get(f"/static/js/{module}").status_code == 200


def test_the_buttons_that_need_javascript_are_hidden_without_it(visitor):
    _, page = check(visitor, DEMO)
    html = page.content.decode()
    assert re.search(r"<button[^>]*data-print hidden>", html)
    assert re.search(r"<button[^>]*data-scan-start hidden>", html)
    assert re.search(r"<div[^>]*data-scan-panel hidden>", html)


def test_the_look_up_and_sign_in_lead_to_it_and_the_navigation_too(partner):
    anyone = Client()
    link = '<a href="/p/check">Check a day\'s loads</a>'
    look_up = anyone.get("/p/").content.decode()
    assert '<a href="/p/check">Check many passports at once</a>' in look_up
    assert link in look_up
    sign_in = anyone.get("/accounts/sign-in/").content.decode()
    assert '<a href="/p/check">Check a day\'s loads at intake</a>' in sign_in
    assert link in sign_in
    home = partner.get("/").content.decode()
    assert link in home and "<strong>Check a day's loads</strong>" in home
    page = anyone.get("/p/check").content.decode()
    assert '<a href="/p/check" aria-current="page">Check a day\'s loads</a>' in page


def test_the_states_read_in_words_and_symbols():
    assert [(s.symbol, s.words) for s in State] == [
        ("✓", "Valid"), ("✗", "Not valid"), ("?", "No passport"), ("?", "Not a short code"),
        ("…", "Not checked yet"), ("!", "Cannot check just now"),
    ]  # fmt: skip


def test_a_verdict_kept_by_intake_is_kept_no_longer_for_its_details(visitor):
    with upstream_calls() as calls:
        check(visitor, DEMO)
        with time_machine.travel(timezone.now() + timedelta(seconds=40)):
            assert "Store or bin name Bay 3" in text(visitor.get(f"/p/{DEMO}"))
        assert lookups(calls) == 1
        with time_machine.travel(timezone.now() + timedelta(seconds=62)):
            assert "Checked by the portal just now" in text(visitor.get(f"/p/{DEMO}"))
    assert lookups(calls) == 2
