"""Signed codes: a CBOR map of claims signed as a COSE_Sign1 message (RFC 9052) with ES256, the
key's id in the protected header, written in base32 (RFC 4648, upper case, no padding) so that
a QR code holds it in its alphanumeric mode. The COSE work is the `cwt` library's; what is
here is the one shape of message the portal makes, and the strict reading of one that a
stranger hands in: anything but that shape, written exactly so, is refused.

Plain Python, no Django. portal.passports.signing says what a passport's claims are.
"""

from __future__ import annotations

import base64
import binascii
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import cbor2
from cwt import COSE

from portal.lib.signing_keys import KeySet, SigningKey

ES256 = -7  # COSE's algorithm id (RFC 9053)
ALG, KID = 1, 4  # COSE header parameters
ISSUER, EXPIRES, ISSUED_AT = 1, 4, 6  # CWT's claim keys (RFC 8392), as NumericDates
COSE_SIGN1_TAG = 18
SIGNATURE_BYTES = 64  # ES256's r and s, 32 bytes each
LONGEST_TEXT = 2000  # characters of a code read at all: far beyond any QR code's
CLOCK_SKEW = timedelta(minutes=5)  # a code signed this far ahead of the reader's clock is read
# ECDSA's (r, s) and (r, n - s) verify alike, n being P-256's group order: the portal writes the
# one whose s is at most half the order, and takes no other, so that one passport's claims
# signed once have one code (a stranger cannot make a second "genuine" code of it).
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
HALF_ORDER = P256_ORDER // 2

_cose = COSE.new()


class State(enum.StrEnum):
    """What reading a code found."""

    GENUINE = "genuine"  # signed by a key of the set, in its time, and not expired
    EXPIRED = "expired"  # genuine, but past its expiry
    ALTERED = "altered"  # its signature does not match what it says
    UNKNOWN_KEY = "unknown-key"  # signed by a key the set does not have
    KEY_NOT_IN_USE = "key-not-in-use"  # a key of the set, at a time it did not sign then
    MALFORMED = "malformed"  # not a code of this shape at all

    @property
    def is_genuine(self) -> bool:
        return self is State.GENUINE


@dataclass(frozen=True, slots=True)
class Reading:
    """A code read: its state, and, once its signature has been checked, its claims and the
    key that signed it (empty and None before that)."""

    state: State
    claims: Mapping[int | str, object] = field(default_factory=dict)
    key: SigningKey | None = None

    @property
    def issued_at(self) -> datetime | None:
        return _moment(self.claims.get(ISSUED_AT))

    @property
    def expires(self) -> datetime | None:
        return _moment(self.claims.get(EXPIRES))

    @property
    def issuer(self) -> str | None:
        issuer = self.claims.get(ISSUER)
        return issuer if isinstance(issuer, str) else None


def sign(claims: Mapping[int | str, object], key: SigningKey) -> str:
    """The claims signed with `key`, as base32 text. `claims` must carry ISSUED_AT and
    EXPIRES as whole seconds."""
    message = _cose.encode_and_sign(cbor2.dumps(dict(claims)), key.signer,
                                    protected=_protected(key.kid))  # fmt: skip
    return to_base32(_with_low_s(message))


def has_low_s(signature: bytes) -> bool:
    """Whether an ES256 signature (r then s, 32 bytes each) has the s the portal writes."""
    return int.from_bytes(signature[32:]) <= HALF_ORDER


def _with_low_s(message: bytes) -> bytes:
    """The COSE_Sign1 message with its signature's s made low (n - s for a high s): the same
    signature of the same claims, written the one way the portal writes and reads it."""
    tagged = cbor2.loads(message)
    protected, unprotected, payload, signature = tagged.value
    if has_low_s(signature):
        return message
    low = (P256_ORDER - int.from_bytes(signature[32:])).to_bytes(32)
    return cbor2.dumps(cbor2.CBORTag(COSE_SIGN1_TAG, [protected, unprotected, payload,
                                                      signature[:32] + low]))  # fmt: skip


def signed_length(claims: Mapping[int | str, object], kid: str) -> int:
    """Characters of base32 that `sign` would write for these claims, found without signing
    (an ES256 signature is always 64 bytes)."""
    message = cbor2.dumps(cbor2.CBORTag(COSE_SIGN1_TAG, [
        cbor2.dumps(_protected(kid)), {}, cbor2.dumps(dict(claims)), bytes(SIGNATURE_BYTES),
    ]))  # fmt: skip
    return len(to_base32(message))


def read(text: str, keys: KeySet, now: datetime) -> Reading:
    """The code `text` read with `keys` at `now`. Never raises on what a stranger sends."""
    message = from_base32(text)
    if message is None:
        return Reading(State.MALFORMED)
    parts = _parts(message)
    if parts is None:
        return Reading(State.MALFORMED)
    kid, payload, signature = parts
    key = keys.by_kid(kid)
    if key is None:
        return Reading(State.UNKNOWN_KEY)
    if not has_low_s(signature):  # a genuine code's twin, made by someone else
        return Reading(State.ALTERED)
    try:
        _cose.decode(message, key.verifier)
    except Exception:  # cwt's VerifyError, or anything else it refuses: not this signature
        return Reading(State.ALTERED)
    claims = _claims(payload)
    if claims is None:
        return Reading(State.MALFORMED)
    return Reading(_state_in_time(claims, key, now), claims, key)


def _protected(kid: str) -> dict[int, object]:
    return {ALG: ES256, KID: kid.encode()}


def _parts(message: bytes) -> tuple[str, bytes, bytes] | None:
    """The key id, the payload and the signature of a COSE_Sign1 message of the one shape the
    portal signs: tagged, its protected header the algorithm ES256 and a key id and nothing
    else, its unprotected header empty, a payload, a signature of 64 bytes; written exactly
    as the portal writes it (so that no other encoding of the same thing, nor anything after
    it, passes). None for anything else."""
    try:
        decoded = cbor2.loads(message)
        written_so = cbor2.dumps(decoded) == message
    except Exception:  # whatever a stranger's bytes make cbor2 raise
        return None
    if not (written_so and isinstance(decoded, cbor2.CBORTag) and decoded.tag == COSE_SIGN1_TAG):
        return None
    value = decoded.value
    if not (isinstance(value, list) and len(value) == 4 and value[1] == {}):
        return None
    if not all(isinstance(part, bytes) for part in (value[0], value[2], value[3])):
        return None
    if len(value[3]) != SIGNATURE_BYTES:
        return None
    try:
        protected = cbor2.loads(value[0])
    except Exception:
        return None
    if not isinstance(protected, dict) or set(protected) != {ALG, KID}:
        return None
    kid = protected[KID]
    if protected[ALG] != ES256 or not isinstance(kid, bytes) or not kid.isascii():
        return None
    return kid.decode("ascii"), value[2], value[3]


def _claims(payload: bytes) -> dict[int | str, object] | None:
    try:
        claims = cbor2.loads(payload)
    except Exception:
        return None
    if not isinstance(claims, dict) or not isinstance(claims.get(ISSUER), str):
        return None
    if not all(_is_numeric_date(claims.get(name)) for name in (ISSUED_AT, EXPIRES)):
        return None
    return claims


def _state_in_time(claims: Mapping, key: SigningKey, now: datetime) -> State:
    issued_at, expires = _moment(claims[ISSUED_AT]), _moment(claims[EXPIRES])
    assert issued_at is not None and expires is not None  # checked by _claims
    if issued_at > now + CLOCK_SKEW or issued_at < key.signs_from - CLOCK_SKEW:
        return State.KEY_NOT_IN_USE
    if key.verifies_until is not None and expires > key.verifies_until:
        return State.KEY_NOT_IN_USE
    if now >= expires:
        return State.EXPIRED
    return State.GENUINE


def _is_numeric_date(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**40


def _moment(value: object) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if _is_numeric_date(value) else None


def to_base32(message: bytes) -> str:
    return base64.b32encode(message).decode("ascii").rstrip("=")


def from_base32(text: str) -> bytes | None:
    """The bytes of base32 `text` (either case, no padding), or None if it is not base32
    written as `to_base32` writes it: a changed last character that leaves the bytes alone
    (its unused bits) is refused too."""
    if not text or len(text) > LONGEST_TEXT or not text.isascii():
        return None
    upper = text.upper()
    try:
        message = base64.b32decode(upper + "=" * (-len(upper) % 8))
    except (binascii.Error, ValueError):
        return None
    return message if to_base32(message) == upper else None
