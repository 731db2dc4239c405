"""What the passport tests share: passports made at the sandbox (for unit and browser tests
alike), the sandbox's data changed for a test, the portal's clock within one window of the
look-ups' allowance, and the words of a page."""

from __future__ import annotations

import base64
import re
import sqlite3
import time
import zlib
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from html import unescape

import cbor2
import time_machine

from portal.assurance import records, service
from portal.assurance.client import BearerToken
from portal.lib import signed_codes
from portal.passports import codes
from tests.conftest import Sandbox
from tests.demo import HOLLOWFIELD, WENHAM, WENHAM_SITE


def grower_creates(request: records.PassportRequest) -> records.CropPassport:
    """A passport made at the sandbox by the grower, through the portal's client."""
    authorization = service.client().login("grower", "grower-demo-pass")
    return service.client().create_passport(BearerToken(authorization.token), request)


@contextmanager
def suspended_after_it_was_made(sandbox: Sandbox) -> Iterator[str]:
    """The short code of a passport made for the grower's valid Wenham Grange membership,
    which is then suspended in the sandbox's database (and given its status back afterwards:
    the sandbox is shared by the whole session). The portal's client must point at `sandbox`."""
    passport = grower_creates(
        records.PassportRequest(
            membership_guid=WENHAM,
            site_guid=WENHAM_SITE,
            crop_type="Barley",
            loading_date=datetime(2026, 8, 21, 7, 30, tzinfo=UTC),
        )
    )
    with suspended(sandbox, WENHAM):
        yield codes.normalise(passport.short_code)


@contextmanager
def suspended(sandbox: Sandbox, membership_guid: str) -> Iterator[None]:
    """The membership suspended in the sandbox's database for the block, and given its status
    back afterwards (the sandbox is shared by the whole session)."""
    with closing(sqlite3.connect(sandbox.database)) as db:
        (before,) = db.execute(
            "SELECT status FROM sandbox_membership WHERE guid = ?", [membership_guid]
        ).fetchone()
        with db:
            db.execute(
                "UPDATE sandbox_membership SET status = 'Suspended' WHERE guid = ?",
                [membership_guid],
            )
        try:
            yield
        finally:
            with db:
                db.execute(
                    "UPDATE sandbox_membership SET status = ? WHERE guid = ?",
                    [before, membership_guid],
                )


@contextmanager
def no_longer_a_contact(sandbox: Sandbox, membership_guid: str, username: str) -> Iterator[None]:
    """The account taken off the membership's contacts in the sandbox's database for the block,
    and put back afterwards (the sandbox is shared by the whole session)."""
    link = (
        "FROM sandbox_membership_contacts WHERE membership_id = "
        "(SELECT id FROM sandbox_membership WHERE guid = ?) AND account_id = "
        "(SELECT id FROM sandbox_account WHERE username = ?)"
    )
    with closing(sqlite3.connect(sandbox.database)) as db:
        (membership_id, account_id) = db.execute(
            f"SELECT membership_id, account_id {link}", [membership_guid, username]
        ).fetchone()
        with db:
            db.execute(f"DELETE {link}", [membership_guid, username])
        try:
            yield
        finally:
            with db:
                db.execute(
                    "INSERT INTO sandbox_membership_contacts (membership_id, account_id) "
                    "VALUES (?, ?)",
                    [membership_id, account_id],
                )


@contextmanager
def within_one_window(address: str) -> Iterator[None]:
    """The portal's clock moved to the first second of a window of the look-ups' allowance of
    `address`, and running on from there, so that a test's look-ups (in less than a minute)
    all fall in one. django-ratelimit's windows of a minute end at a second of the minute that
    is each address's own: its CRC-32, modulo 60."""
    now = int(time.time())
    end = now - now % 60 + zlib.crc32(address.encode()) % 60
    with time_machine.travel(end + 1, tick=True):
        yield


def text(response) -> str:
    """The page's words, tags removed and spaces folded."""
    return words(response.content.decode())


def words(html: str) -> str:
    """The words of some HTML, tags removed and spaces folded."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


HEADER_CELL = re.compile(r"<th(?:\s[^>]*)?>(.*?)</th>", re.S)
CELL = re.compile(r"<t[hd](?:\s[^>]*)?>(.*?)</t[hd]>", re.S)


def table_of(response, css_class: str) -> tuple[list[str], list[dict[str, str]]]:
    """The page's table of `css_class`: the labels its column headers give, and each row's
    values by label. A column may hold two fields, one line above the other, its header naming
    both on two lines (the crop type above the variety): each line is read under its own label,
    and a column's last label takes the rest of its lines."""
    table = re.search(rf'<table class="{css_class}[ "].*?</table>', response.content.decode(),
                      re.S)[0]  # fmt: skip
    head, body = table.split("</thead>")
    columns = [_lines(cell) for cell in HEADER_CELL.findall(head)]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        values = {}
        for labels, cell in zip(columns, CELL.findall(row), strict=True):
            lines = _lines(cell) + [""] * len(labels)
            values |= dict(zip(labels[:-1], lines, strict=False))
            values[labels[-1]] = " ".join(lines[len(labels) - 1 :]).strip()
        rows.append(values)
    return [label for labels in columns for label in labels], rows


def _lines(html: str) -> list[str]:
    return [words(line) for line in re.split(r"<br\s*/?>", html)]


def details_of(response) -> dict[str, str]:
    """A passport's fields as its page (or its look-up) shows them: each value by its label."""
    pairs = re.findall(r"<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>", response.content.decode(), re.S)
    return {words(label): words(value) for label, value in pairs}


def as_sent(record: dict) -> dict[str, str]:
    """A passport's record, as the service sent it (Passport.record, by the interface's names),
    in the words of a CSV file: numbers as written, dates as sent, nothing for a value left
    out."""
    return {name: "" if value is None else str(value) for name, value in record.items()}


def qr_text_of(svg: str, pixels_a_module: int = 3) -> str:
    """The text of the QR code segno drew as `svg` (portal.passports.qr), read by zxing-cpp
    from the code drawn again at `pixels_a_module`: its dark modules are the runs of segno's
    path, `M`/`m` moves and `h` runs of modules, half a module down."""
    import zxingcpp
    from PIL import Image, ImageDraw

    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg)[1])
    path = re.search(r'<path class="qrline"[^>]* d="([^"]+)"', svg)[1]
    image = Image.new("L", (size * pixels_a_module, size * pixels_a_module), 255)
    draw = ImageDraw.Draw(image)
    x = y = 0.0
    for command, numbers in re.findall(r"([Mmh])([-\d. ]+)", path):
        values = [float(n) for n in numbers.split()]
        if command == "M":
            x, y = values
        elif command == "m":
            x, y = x + values[0], y + values[1]
        else:
            top, left = int(y - 0.5) * pixels_a_module, int(x) * pixels_a_module
            right = int(x + values[0]) * pixels_a_module - 1
            draw.rectangle([left, top, right, top + pixels_a_module - 1], fill=0)
            x += values[0]
    # QR codes only: zxing-cpp otherwise now and then also finds a symbol of another kind in
    # a QR code's modules.
    [found] = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    return found.text


def signed_address(short_code: str) -> str:
    """The signed address (what a passport's QR code holds, and a scanner types) of a
    passport with this short code whose claim was valid, as the portal at testserver signs
    it now."""
    from django.test import RequestFactory

    from portal.passports import signing

    passport = records.CropPassport(short_code=short_code, status="Valid")
    return signing.signed_qr(RequestFactory().get("/"), passport).address


def with_s_flipped(code: str) -> str:
    """A signed code (what follows /V/) with its signature's s replaced by n - s: a signature
    of the same claims that ECDSA alone would take, written as the portal writes codes."""
    message = cbor2.loads(base64.b32decode(code.upper() + "=" * (-len(code) % 8)))
    protected, unprotected, payload, signature = message.value
    s = int.from_bytes(signature[32:])
    flipped = signature[:32] + (signed_codes.P256_ORDER - s).to_bytes(32)
    written = cbor2.dumps(cbor2.CBORTag(18, [protected, unprotected, payload, flipped]))
    return base64.b32encode(written).decode().rstrip("=")


def refused_at_the_third(sandbox: Sandbox, monkeypatch) -> list[records.PassportRequest]:
    """The service asked for a batch's third passport while the grower's Hollowfield membership
    is suspended: it refuses that one, and makes the others. The requests asked for, as they
    are asked."""
    real_create, asked = service.client().create_passport, []

    def the_third_asked_while_suspended(credentials, request):
        asked.append(request)
        if len(asked) != 3:
            return real_create(credentials, request)
        with suspended(sandbox, HOLLOWFIELD):
            return real_create(credentials, request)

    monkeypatch.setattr(service.client(), "create_passport", the_third_asked_while_suspended)
    return asked
