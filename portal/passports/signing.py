"""A passport's signed code: the essentials of the passport, signed by the portal, in the QR
code of its page, so that it can be checked where there is no signal (issue 28).

The QR code holds `HTTPS://<HOST>/V/<CODE>`, the portal's own address in upper case, where
<CODE> is a COSE_Sign1 message in base32 (portal.lib.signed_codes) whose payload is a CBOR map:
CWT's issuer (the portal's host), issued-at and expiry (PORTAL_SIGNED_PASSPORT_DAYS later), and
the passport's essentials under small negative keys (ESSENTIALS): short code, business name,
crop, variety, harvest year, loading date, certifier, membership number, the claim's status,
when it was checked and the certificate's expiry, with days as whole days since 1970-01-01,
and a digest of the whole record (`record_digest`). Never people's names, the collection
address, the haulier, the vehicle or the trailer: whoever scans a code reads all of it.

Everything must fit a QR code of version 13 at error-correction level Q: when it does not,
the essentials of GIVEN_UP_FIRST give way in turn (the certifier first), each cut or left out
no more than it must be and listed under SHORTENED; the digest still covers the whole record.
docs/signed-passports.md describes the format for other software.

The QR code of a passport's page is kept in the shared cache for an hour (SIGNED_QR_SECONDS):
drawing a QR code this size takes tens of milliseconds, and a code signed an hour ago is as
good as one signed now.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum

import cbor2
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy

from portal.assurance import codec, records
from portal.assurance.passport_fields import FIELDS, day_written
from portal.lib import signed_codes
from portal.lib.signing_keys import KeySet, SigningKey, read_key_set
from portal.passports import codes
from portal.passports.qr import QrTooLarge, qr_svg

logger = logging.getLogger(__name__)

LARGEST_QR_VERSION = 13
# Characters of the alphanumeric mode that a QR code of version 13 holds at level Q (tests
# check it against segno's own count).
QR_CAPACITY = 352
# What the alphanumeric mode can hold: an address with anything else does not fit it.
QR_ALPHANUMERIC = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
PATH = "/V/"
SIGNED_QR_SECONDS = 60 * 60
# Of SHA-256: 64 bits, a sixth of the room a business's name has. Enough: a record is the
# service's, which no stranger can make at will, let alone 2**64 times over.
DIGEST_BYTES = 8
EPOCH = date(1970, 1, 1)


class Kind(StrEnum):
    TEXT = "text"
    CODE = "code"  # the short code, without its hyphen
    DAY = "day"  # a calendar day (its day in UTC), as whole days since 1970-01-01
    YEAR = "year"  # a whole number if it is one, the text otherwise


@dataclass(frozen=True, slots=True)
class Essential:
    """A field of the passport (its name in the record and in passport_fields) carried in the
    signed code under `claim`."""

    claim: int
    name: str
    kind: Kind = Kind.TEXT

    @property
    def label(self) -> str:
        return str(FIELDS[self.name].label)  # in the language in use


ESSENTIALS = (
    Essential(-1, "short_code", Kind.CODE),
    Essential(-2, "business_name"),
    Essential(-3, "crop_type"),
    Essential(-4, "variety"),
    Essential(-5, "harvest_year", Kind.YEAR),
    Essential(-6, "loading_date", Kind.DAY),
    Essential(-7, "certifier_name"),
    Essential(-8, "membership_number"),
    Essential(-9, "status"),
    Essential(-10, "check_date", Kind.DAY),
    Essential(-11, "expiry_date", Kind.DAY),
)
BY_NAME = {essential.name: essential for essential in ESSENTIALS}
DIGEST = -12  # the first DIGEST_BYTES of record_digest
SHORTENED = -13  # the claims of the essentials cut or left out to fit, when any were
# What gives way when the essentials do not fit, first to last, each cut (no shorter than
# the length given) or left out (None: an identifier is whole or absent): the certifier's
# name, which the status vouches for, before what identifies the load.
GIVEN_UP_FIRST = (
    ("certifier_name", 8),
    ("membership_number", None),
    ("variety", 4),
    ("business_name", 1),
    ("crop_type", 1),
)


class SignedCodeTooLong(Exception):
    """The passport's signed code cannot fit a QR code of version 13 at level Q, even with its
    free text left out (a portal's address far longer than any real one)."""


@dataclass(frozen=True, slots=True)
class SignedQr:
    """A passport's signed address and its QR code, as the page shows them, and when the
    signed copy expires."""

    address: str
    svg: SafeString
    expires: datetime


def record_digest(passport: records.CropPassport) -> bytes:
    """SHA-256 of the passport's whole record as the interface names it (codec.to_mapping:
    date-times as the interface writes them, fields without a value left out), in CBOR's
    deterministic encoding (RFC 8949, 4.2.1)."""
    return hashlib.sha256(cbor2.dumps(codec.to_mapping(passport), canonical=True)).digest()


def signed_qr(request: HttpRequest, passport: records.CropPassport) -> SignedQr | None:
    """The passport's signed address and QR code for this portal's address, kept or made now;
    None when codes are not signed here (PORTAL_SIGNED_PASSPORTS off), or cannot be (no key
    signs now, or the portal's address leaves no room), which is logged."""
    if not settings.PORTAL_SIGNED_PASSPORTS:
        return None
    now = datetime.now(UTC)
    try:
        key = signing_key(now)
    except Exception as error:  # a key directory that cannot be read: said, and no signing
        _say_once("unreadable", f"Passports' codes are not signed: {error}")
        return None
    if key is None:
        where = settings.PORTAL_PASSPORT_KEYS_DIR
        _say_once("no-key", f"Passports' codes are not signed: no key signs now in {where} "
                            "(manage.py new_passport_key makes one).")  # fmt: skip
        return None
    try:
        kept_as = _kept_as(_prefix(request), key.kid, passport)
        kept = cache.get(kept_as)
        if isinstance(kept, SignedQr):
            return kept
        address = signed_address(request, passport, key, now)
        svg = qr_svg(address, str(_QR_LABEL), error="q", largest_version=LARGEST_QR_VERSION)
        made = SignedQr(address, svg, datetime.fromtimestamp(_expiry(now), UTC))
    except (SignedCodeTooLong, QrTooLarge) as error:
        _say_once("too-long", f"A passport's code is not signed: {error}")
        return None
    cache.set(kept_as, made, SIGNED_QR_SECONDS)
    return made


_QR_LABEL = gettext_lazy("QR code of the passport's signed copy, which a phone's camera checks")


def signed_address(
    request: HttpRequest, passport: records.CropPassport, key: SigningKey, now: datetime
) -> str:
    """The passport's signed address on this portal, signed by `key` at `now`: its essentials
    fitted to a QR code of version 13 at level Q. Raises SignedCodeTooLong."""
    prefix = _prefix(request)
    claims = _fitted(_claims(request, passport, now), key.kid, QR_CAPACITY - len(prefix))
    return prefix + signed_codes.sign(claims, key)


def _prefix(request: HttpRequest) -> str:
    """`HTTPS://<HOST>/V/`: the portal's own address, as the request names it, in upper case."""
    prefix = f"{request.scheme}://{request.get_host()}{PATH}".upper()
    if not set(prefix) <= QR_ALPHANUMERIC:
        raise SignedCodeTooLong(f"{prefix} does not fit the QR code's alphanumeric mode")
    return prefix


def signing_key(now: datetime) -> SigningKey | None:
    """The key that signs passports' codes at `now`, if one does."""
    return _keys().signing_key(now)


def _keys() -> KeySet:
    return read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR)


def _kept_as(prefix: str, kid: str, passport: records.CropPassport) -> str:
    what = f"{prefix}|{kid}|{settings.PORTAL_SIGNED_PASSPORT_DAYS}|{record_digest(passport).hex()}"
    what += f"|{translation.get_language()}"  # the QR code's label is in the page's language
    # ":2": a SignedQr kept before it carried its expiry is not read back.
    return f"checks:signed-qr:2:{hashlib.sha256(what.encode()).hexdigest()[:32]}"


def _claims(
    request: HttpRequest, passport: records.CropPassport, now: datetime
) -> dict[int, object]:
    claims: dict[int, object] = {
        signed_codes.ISSUER: request.get_host().lower(),
        signed_codes.ISSUED_AT: int(now.timestamp()),
        signed_codes.EXPIRES: _expiry(now),
    }
    for essential in ESSENTIALS:
        value = _claim_value(essential, getattr(passport, essential.name))
        if value is not None:
            claims[essential.claim] = value
    claims[DIGEST] = record_digest(passport)[:DIGEST_BYTES]
    return claims


def _expiry(now: datetime) -> int:
    """When a code signed at `now` expires, as a NumericDate."""
    return int(now.timestamp()) + settings.PORTAL_SIGNED_PASSPORT_DAYS * 24 * 60 * 60


def _claim_value(essential: Essential, value: object) -> object:
    if value is None:
        return None
    if essential.kind is Kind.DAY:
        assert isinstance(value, date)
        return (_day_of(value) - EPOCH).days
    text = str(value).strip()
    if not text:
        return None
    if essential.kind is Kind.CODE:
        return (codes.normalise(text) or text).replace("-", "")
    if essential.kind is Kind.YEAR and text.isascii() and text.isdigit() and len(text) <= 6:
        return int(text)
    return text


def _day_of(value: date) -> date:
    """A date/time's day in UTC, as the passport writes it (passport_fields.day_written)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).date() if value.tzinfo else value.date()
    return value


def _fitted(claims: dict[int, object], kid: str, room: int) -> dict[int, object]:
    """`claims` as they fit `room` characters: whole if they do; otherwise with the essentials
    of GIVEN_UP_FIRST cut or left out, in that order, each no more than it must be, and listed
    under SHORTENED."""
    if room <= 0:
        raise SignedCodeTooLong("the portal's address leaves no room in the QR code")
    fitted = dict(claims)
    for name, shortest in GIVEN_UP_FIRST:
        if signed_codes.signed_length(fitted, kid) <= room:
            return fitted
        claim = BY_NAME[name].claim
        if claim in fitted:
            fitted = _given_up(fitted, claim, shortest, kid, room)
    if signed_codes.signed_length(fitted, kid) <= room:
        return fitted
    raise SignedCodeTooLong(f"{room} characters cannot hold it, even without its free text")


def _given_up(
    claims: dict[int, object], claim: int, shortest: int | None, kid: str, room: int
) -> dict[int, object]:
    """`claims` with the text of `claim` cut to the longest length, no shorter than
    `shortest`, at which all fits (None: it is never cut), or left out if none does."""
    text = str(claims[claim])
    given_up = {**claims, SHORTENED: [*_shortened(claims), claim]}
    if shortest is not None:
        low, high, best = shortest, len(text) - 1, None
        while low <= high:  # the longest cut that fits, by halves
            length = (low + high) // 2
            trial = {**given_up, claim: text[:length].rstrip()}
            if signed_codes.signed_length(trial, kid) <= room:
                best, low = trial, length + 1
            else:
                high = length - 1
        if best is not None:
            return best
    del given_up[claim]
    return given_up


def _shortened(claims: dict[int, object]) -> list[int]:
    shortened = claims.get(SHORTENED)
    return list(shortened) if isinstance(shortened, list) else []


def _say_once(what: str, message: str) -> None:
    """Logs `message` at most once in ten minutes across the portal's processes."""
    if cache.add(f"passports:signing-said:{what}", True, 10 * 60):
        logger.error(message)


# --- reading a code -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    value: str
    shortened: bool = False
    left_out: bool = False


@dataclass(frozen=True, slots=True)
class Checked:
    """A signed code as the check's page shows it: what reading it found and, for a code the
    portal signed, what it says."""

    reading: signed_codes.Reading

    @property
    def state(self) -> signed_codes.State:
        return self.reading.state

    @property
    def is_genuine(self) -> bool:
        return self.reading.state is signed_codes.State.GENUINE

    @property
    def is_signed_by_the_portal(self) -> bool:
        """Its signature is the portal's: genuine, or genuine but expired."""
        return self.state in (signed_codes.State.GENUINE, signed_codes.State.EXPIRED)

    @property
    def short_code(self) -> str | None:
        raw = self._claim(BY_NAME["short_code"])
        return codes.normalise(raw) if isinstance(raw, str) else None

    @property
    def issuer(self) -> str | None:
        return self.reading.issuer

    @property
    def signed_on(self) -> str:
        return _written(self.reading.issued_at)

    @property
    def expires_on(self) -> str:
        return _written(self.reading.expires)

    @property
    def status(self) -> str | None:
        status = self._claim(BY_NAME["status"])
        return status if isinstance(status, str) else None

    @property
    def claim_was_valid(self) -> bool:
        return self.status in records.VALID_STATUSES

    @property
    def checked_on(self) -> str:
        return self._day_written(BY_NAME["check_date"])

    @property
    def certificate_expired_on(self) -> str:
        """The certificate's expiry, if it has passed by today; "" if not (or not given)."""
        day = self._day(BY_NAME["expiry_date"])
        return day_written(day) if day is not None and day <= datetime.now(UTC).date() else ""

    @property
    def claim_holds(self) -> bool:
        """The claim was valid when checked, and its certificate has not expired since."""
        return self.claim_was_valid and not self.certificate_expired_on

    @property
    def summary(self) -> str:
        """What a genuine code says, in a sentence: who signed it and when, the claim then,
        and until when the signed copy holds. Its clauses, joined by semicolons, each stand
        whole in the catalogue (no word of one depends on another), as the offline checker's
        (static/js/checker.js) do."""
        parts = [gettext("Genuine: signed by the portal on %(date)s") % {"date": self.signed_on},
                 self._claim_then()]  # fmt: skip
        if self.certificate_expired_on:
            parts.append(gettext("the certificate expired on %(date)s")
                         % {"date": self.certificate_expired_on})  # fmt: skip
        parts.append(gettext("this signed copy expires on %(date)s") % {"date": self.expires_on})
        return "; ".join(parts) + "."

    def _claim_then(self) -> str:
        """The summary's clause on the claim when the service last checked it."""
        checked, status = self.checked_on, self.status
        values = {"date": checked, "status": status}
        if self.claim_was_valid:
            if checked == self.signed_on:
                return gettext("the claim was valid when checked then")
            if checked:
                return gettext("the claim was valid when checked on %(date)s") % values
            return gettext("the claim was valid when checked")
        if checked == self.signed_on:
            if status:
                return gettext("the claim was not valid when checked then: its status was "
                               "%(status)s") % values  # fmt: skip
            return gettext("the claim was not valid when checked then: it had no status")
        if checked:
            if status:
                return gettext("the claim was not valid when checked on %(date)s: its status "
                               "was %(status)s") % values  # fmt: skip
            return gettext("the claim was not valid when checked on %(date)s: it had no "
                           "status") % values  # fmt: skip
        if status:
            return (
                gettext("the claim was not valid when checked: its status was %(status)s") % values
            )
        return gettext("the claim was not valid when checked: it had no status")

    @property
    def digest(self) -> bytes | None:
        digest = self.reading.claims.get(DIGEST)
        return digest if isinstance(digest, bytes) else None

    def matches(self, passport: records.CropPassport) -> bool:
        """Whether `passport` is the whole record this code was signed for."""
        digest = self.digest
        return digest is not None and record_digest(passport)[: len(digest)] == digest

    @property
    def rows(self) -> list[Row]:
        """The essentials it carries, labelled as the passport labels them."""
        return self.rows_known(None)

    def rows_known(self, passport: records.CropPassport | None) -> list[Row]:
        """The essentials it carries, with those cut or left out to fit the code given whole
        from `passport` when it is the record this code was signed for (the service's record
        now, looked up online); offline, or with a record changed since, they stay marked."""
        whole = passport if passport is not None and self.matches(passport) else None
        shortened = self.reading.claims.get(SHORTENED)
        cut = set(shortened) if isinstance(shortened, list) else set()
        found = []
        for essential in ESSENTIALS:
            value = self._shown(essential)
            if essential.claim in cut and whole is not None:
                value, fitted = str(_claim_value(essential, getattr(whole, essential.name))), False
            else:
                fitted = essential.claim in cut
            if value or fitted:
                found.append(Row(essential.label, value, fitted and bool(value),
                                 fitted and not value))  # fmt: skip
        return found

    def _claim(self, essential: Essential) -> object:
        return self.reading.claims.get(essential.claim)

    def _day(self, essential: Essential) -> date | None:
        days = self._claim(essential)
        if not isinstance(days, int) or isinstance(days, bool) or not 0 <= days < 2_900_000:
            return None
        return EPOCH + timedelta(days=days)

    def _day_written(self, essential: Essential) -> str:
        day = self._day(essential)
        return day_written(day) if day is not None else ""

    def _shown(self, essential: Essential) -> str:
        if essential.kind is Kind.DAY:
            return self._day_written(essential)
        if essential.kind is Kind.CODE:
            return self.short_code or ""
        value = self._claim(essential)
        if isinstance(value, bool) or not isinstance(value, str | int):
            return ""
        return str(value)


def check(payload: str, now: datetime | None = None) -> Checked:
    """The signed code `payload` (what follows /V/) read with the portal's keys."""
    moment = now or datetime.now(UTC)
    try:
        keys = _keys()
    except Exception as error:
        logger.error("Signed codes cannot be checked: %s", error)
        keys = KeySet()
    return Checked(signed_codes.read(payload, keys, moment))


def published_keys(now: datetime | None = None) -> dict[str, list]:
    """The JWK set of the keys that verify now."""
    return _keys().jwks(now or datetime.now(UTC))


def _written(moment: datetime | None) -> str:
    return day_written(moment) if moment is not None else ""
