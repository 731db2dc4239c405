"""A passport's page whose QR code carries its signed code against the same page with the plain
look-up address (PORTAL_SIGNED_PASSPORTS on and off), and what making a signed code costs.

    python -m bench signed_code

Starts, on loopback only, a sandbox of its own (its demo data and `generate_large_data`'s
passports of "Benchmark Farms Ltd", of which grower is a contact) and two portals under gunicorn
as `make run` starts them (2 workers x 4 threads each), one signing passports' codes with a key
made for the benchmark and one not, on one PostgreSQL database of the benchmark's own
(`bench_signed_code_<pid>_portal`, dropped afterwards) with Redis database 12 as their cache
(shared, as it would be: the signed portal keeps each page's signed QR code there for an hour).
grower signs in on the first; the session serves on both. The sandbox's passports are recorded
in the portal (as "added by code" records); one is measured.

The page is asked of each portal with `wrk` at 8 connections for 5 s, in turn, the order
swapped every round, for five rounds; every answer must be a 200 of at least the page's size.
Target (issue 28): the median of the rounds' ratios of the signed page's throughput to the
plain page's at least 0.9. Reported beside it, in this process: signing a passport's code, and
signing it and drawing its QR code (what a page's first view costs, before the cache has it).
"""

from __future__ import annotations

import re
import statistics
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta

from bench.business import recorded_from_the_sandbox, setup_django
from bench.common import (
    DEMO_PASSWORD,
    DEMO_USER,
    AtLeast,
    SignedIn,
    heading,
    loads_in_turn,
    machine_load,
    page_bench,
    print_loads,
    print_targets,
    print_timings,
    signed_in_portal,
    time_calls,
)
from portal.assurance.client import AssuranceClient, BearerToken

REDIS_URL = "redis://127.0.0.1:6379/12"
PASSPORTS = 20  # generate_large_data's; one is measured
CONNECTIONS, LOAD_SECONDS, LOAD_ROUNDS = 8, 5, 5
RATIO = 0.9
SIGNED = re.compile(r'<a href="HTTP://127\.0\.0\.1:\d+/V/[A-Z2-7]+">what it carries</a>')
PLAIN = re.compile(r'aria-label="QR code of the passport&#x27;s look-up address')
CALLS = 200


def main() -> None:
    heading("bench.signed_code: a passport's page with its signed code / with the plain one")
    with ExitStack() as stack:
        bench = page_bench(stack, "signed_code", REDIS_URL, PASSPORTS)
        directory, sandbox = bench.directory, bench.sandbox
        keys = directory / "passport-keys"
        settings = {**bench.settings, "PORTAL_PASSPORT_KEYS_DIR": str(keys)}
        setup_django({**settings, "DATABASE_URL": bench.database})
        from portal.lib.signing_keys import add_key

        add_key(keys, datetime.now(UTC) - timedelta(minutes=1), 21)
        signing = {**settings, "PORTAL_SIGNED_PASSPORTS": "true"}
        signed = signed_in_portal(stack, directory / "signed", bench.database, signing)
        not_signing = {**settings, "PORTAL_SIGNED_PASSPORTS": "false"}
        plain_portal = signed_in_portal(stack, directory / "plain", bench.database, not_signing)
        plain = SignedIn(plain_portal.url, signed.headers["Cookie"])  # one session, both portals
        client = AssuranceClient(sandbox.url)
        credentials = BearerToken(client.login(DEMO_USER, DEMO_PASSWORD).token)
        short_code = recorded_from_the_sandbox(sandbox, client, credentials)[0]
        path = f"/passports/{short_code}/"
        sizes = {"signed": signed.page(path, SIGNED), "plain": plain.page(path, PLAIN)}
        cookie = signed.headers["Cookie"]
        loads = loads_in_turn(("signed", signed.url + path, sizes["signed"]),
                              ("plain", plain.url + path, sizes["plain"]), cookie,
                              connections=CONNECTIONS, seconds=LOAD_SECONDS,
                              rounds=LOAD_ROUNDS)  # fmt: skip
        making = _making_a_signed_code(short_code)
    ratios = [page.throughput / baseline.throughput for page, baseline in loads]
    print(f"\nThe page with its signed code ({sizes['signed']:,} bytes) and with the plain one "
          f"({sizes['plain']:,} bytes), wrk at {CONNECTIONS} connections for {LOAD_SECONDS} s "
          f"each, in turn:")  # fmt: skip
    print_loads([load for pair in loads for load in pair])
    print(f"Ratios of throughput, signed / plain: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"\nMaking a signed code in this process, {CALLS} times:")
    print_timings(making)
    print()
    what = f"passport page with its signed code / plain, throughput (median of {LOAD_ROUNDS})"
    print_targets([AtLeast(what, statistics.median(ratios), RATIO, "x")])
    print(f"Machine after: {machine_load()}")


def _making_a_signed_code(short_code: str) -> list:
    """How long signing the passport's code takes, and signing it and drawing its QR code (a
    page's first view, before the cache has it), in this process."""
    from django.test import RequestFactory

    from portal.passports import signing
    from portal.passports.models import Passport
    from portal.passports.qr import qr_svg

    passport = Passport.objects.get(short_code=short_code).crop_passport
    request = RequestFactory().get("/", HTTP_HOST="127.0.0.1:8000")
    key = signing.signing_key(datetime.now(UTC))

    def sign() -> str:
        return signing.signed_address(request, passport, key, datetime.now(UTC))

    def sign_and_draw() -> object:
        return qr_svg(sign(), "QR code", error="q", largest_version=signing.LARGEST_QR_VERSION)

    return [
        ("sign the essentials", time_calls(sign, CALLS, warmup=5)),
        ("sign and draw its QR code", time_calls(sign_and_draw, CALLS // 10, warmup=2)),
    ]


if __name__ == "__main__":
    main()
