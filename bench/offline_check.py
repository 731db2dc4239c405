"""The passport checker's verification of a signed code on the phone, offline, in Chromium,
against a bare WebCrypto verification of the same codes.

    python -m bench offline_check

Starts, on loopback only, a portal under gunicorn (SQLite and its file cache, in a temporary
directory; no sandbox: checking a code needs no service) with a key made for the benchmark,
and signs CODES passports' codes with it in this process, as the portal signs them. Debian's
Chromium, through Playwright, opens the checker (/V/) once, waits for its service worker, goes
offline and opens a code's address, which the checker's page answers from what it kept.

In that page, for ROUNDS rounds, in turn and the order swapped every round: the checker's own
`passportChecker.readCode` (static/js/checker.js: its strict reading of base32, COSE and CBOR,
the signature, the times) on VERIFICATIONS codes, and a bare verifier written here, minimal:
base32 decoded, the COSE_Sign1 decoded by cborg, its Sig_structure encoded, and
crypto.subtle.verify; each key imported once beforehand, as the checker keeps its keys. Both
must find every code genuine. Target (issue 28): the checker's time a code at most 1.2 times
the bare one's (the medians of the rounds).
"""

from __future__ import annotations

import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

from bench.business import setup_django
from bench.common import Target, Timing, heading, machine_load, print_table, print_targets
from scripts import servers

CODES = 20
VERIFICATIONS = 200  # a round's, cycling through the codes
ROUNDS = 30
WARM_UP = 50
RATIO = 1.2
CHROMIUM = "/usr/bin/chromium"

# The bare verifier and the timing, run in the checker's page. Each round gives the
# milliseconds a code of each; every reading must be genuine.
MEASURE = """async ({codes, verifications, rounds, warmUp}) => {
  const { decode, encode } = await import("/static/vendor/cborg/cborg.js");
  const keySet = await (await fetch("/.well-known/passport-keys.json")).json();
  const now = Math.floor(Date.now() / 1000);
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const fromBase32 = (text) => {
    const bytes = new Uint8Array(Math.floor(text.length * 5 / 8));
    let bits = 0, value = 0, at = 0;
    for (const character of text) {
      value = ((value << 5) | ALPHABET.indexOf(character)) & 0xfff;
      bits += 5;
      if (bits >= 8) { bits -= 8; bytes[at++] = (value >> bits) & 0xff; }
    }
    return bytes;
  };
  const tags = []; tags[18] = (decodeSign1) => decodeSign1();
  const keys = new Map();
  for (const { kid, kty, crv, x, y } of keySet.keys) {
    keys.set(kid, await crypto.subtle.importKey("jwk", { kty, crv, x, y },
      { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]));
  }
  const bare = async (code) => {
    const message = decode(fromBase32(code), { useMaps: true, tags });
    const [protectedBytes, , payload, signature] = message;
    const kid = new TextDecoder().decode(decode(protectedBytes, { useMaps: true }).get(4));
    const signed = encode(["Signature1", protectedBytes, new Uint8Array(0), payload]);
    const holds = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, keys.get(kid),
                                             signature, signed);
    return holds && decode(payload, { useMaps: true });
  };
  const checker = (code) => window.passportChecker.readCode(code, keySet, now);
  const genuine = {
    bare: (found) => found instanceof Map,
    checker: (found) => found.state === "genuine",
  };
  const run = async (name, verify, count) => {
    const started = performance.now();
    for (let n = 0; n < count; n++) {
      if (!genuine[name](await verify(codes[n % codes.length]))) {
        throw new Error(`${name} did not find ${codes[n % codes.length]} genuine`);
      }
    }
    return (performance.now() - started) / count;
  };
  const verifiers = { checker, bare };
  for (const name of ["checker", "bare"]) { await run(name, verifiers[name], warmUp); }
  const found = { checker: [], bare: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? ["bare", "checker"] : ["checker", "bare"];
    for (const name of order) { found[name].push(await run(name, verifiers[name], verifications)); }
  }
  return found;
}"""

# Waits for the checker's worker to be ready and to control the page.
CONTROLLED = """async () => {
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((done) => navigator.serviceWorker.addEventListener("controllerchange", done));
  }
}"""


def main() -> None:
    heading("bench.offline_check: the checker's verification offline / a bare WebCrypto one")
    print(f"Machine before: {machine_load()}")
    with TemporaryDirectory(prefix="bench-offline-check-") as temporary:
        directory = Path(temporary)
        keys = directory / "passport-keys"
        settings = {"PORTAL_PASSPORT_KEYS_DIR": str(keys), "PORTAL_LOG_LEVEL": "WARNING",
                    "DATABASE_URL": f"sqlite:///{directory / 'portal.sqlite3'}"}  # fmt: skip
        setup_django(settings)
        from portal.lib.signing_keys import add_key

        add_key(keys, datetime.now(UTC) - timedelta(minutes=1), 21)
        portal = servers.start_portal(directory, **settings)
        try:
            codes = _signed_codes(portal.url)
            found = _measured(portal.url, codes)
        finally:
            portal.stop()
    checker, bare = Timing(tuple(found["checker"])), Timing(tuple(found["bare"]))
    print(f"\nA code verified in the checker's page, offline, in Chromium: {ROUNDS} rounds of "
          f"{VERIFICATIONS} ({CODES} codes in turn), the time a code:")  # fmt: skip
    print_table(["", "median", "p95", "min"],
                [[name, _us(t.median), _us(t.p95), _us(t.minimum)] for name, t in
                 (("the checker (passportChecker.readCode)", checker),
                  ("bare: base32, cborg, Sig_structure, WebCrypto", bare))])  # fmt: skip
    ratios = [c / b for c, b in zip(found["checker"], found["bare"], strict=True)]
    print(f"Ratios of the rounds, checker / bare: {', '.join(f'{r:.2f}' for r in ratios)}")
    print()
    what = f"checker / bare WebCrypto, time a code (median of {ROUNDS} rounds)"
    print_targets([Target(what, statistics.median(ratios), RATIO, "x", inclusive=True)])
    print(f"Machine after: {machine_load()}")


def _us(milliseconds: float) -> str:
    return f"{milliseconds * 1000:.0f} µs"


def _signed_codes(portal_url: str) -> list[str]:
    """CODES passports' signed codes, signed as the portal signs them for its own address."""
    from django.test import RequestFactory

    from portal.assurance import records
    from portal.passports import signing

    request = RequestFactory().get("/", HTTP_HOST=portal_url.removeprefix("http://"))
    now = datetime.now(UTC)
    key = signing.signing_key(now)
    codes = []
    for n in range(CODES):
        passport = records.CropPassport(
            short_code=f"7KXM4QH{n:03d}".replace("0", "2").replace("1", "3"),
            business_name="Hollowfield Farms Ltd", crop_type="Wheat", variety="Extase",
            harvest_year="2026", loading_date=datetime(2026, 8, 21, tzinfo=UTC),
            status="Valid", check_date=now, expiry_date=now + timedelta(days=300),
        )  # fmt: skip
        address = signing.signed_address(request, passport, key, now)
        codes.append(address.rsplit("/V/", 1)[1])
    return codes


def _measured(portal_url: str, codes: list[str]) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        try:
            context = browser.new_context(viewport={"width": 360, "height": 740})
            page = context.new_page()
            page.goto(f"{portal_url}/V/")
            page.evaluate(CONTROLLED)
            context.set_offline(True)
            page.goto(f"{portal_url}/V/{codes[0]}")
            page.locator(".verdict-valid").wait_for()  # checked offline by the checker
            return page.evaluate(MEASURE, {"codes": codes, "verifications": VERIFICATIONS,
                                           "rounds": ROUNDS, "warmUp": WARM_UP})  # fmt: skip
        finally:
            browser.close()


if __name__ == "__main__":
    main()
