"""The keys that sign passports' QR codes (ES256: ECDSA on P-256), kept in a directory of
their own: `keys.json`, each key's id, its public half and its times, and beside it each
private key that may still sign, `<id>.pem` (PKCS #8, readable by its owner alone).

A key signs from its `from` time until the next key's; it verifies until its `until` time,
which a roll-over sets to the moment the last code it signed expires (the next key's `from`
plus the days a signed code lasts). The current key has no `until`. The public halves of the
keys still verifying are published as a JWK set (RFC 7517), with `from` and `until` as
NumericDates (seconds since 1970), so that anyone's software can verify a code.

Plain Python, no Django: `make run` and the tests make keys with it too.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cwt import COSEKey

KEYS_FILE = "keys.json"
KID_LENGTH = 4  # characters of base32: each one in every code, so few; ids are checked unique
COORDINATE_BYTES = 32  # of x and y on P-256


class KeyDirectoryError(Exception):
    """A key directory that cannot be read or written, said in words."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    """One key: its id, its public point, the moment it signs from and the moment it verifies
    until (None: no end yet), and its private key while that is kept."""

    kid: str
    x: bytes
    y: bytes
    signs_from: datetime
    verifies_until: datetime | None = None
    private_key: ec.EllipticCurvePrivateKey | None = field(default=None, repr=False)

    @property
    def public_jwk(self) -> dict[str, str]:
        return {"kty": "EC", "crv": "P-256", "x": _b64url(self.x), "y": _b64url(self.y),
                "kid": self.kid}  # fmt: skip

    def published_jwk(self) -> dict[str, object]:
        """As the JWK set publishes it: the public key, its use, and its times."""
        jwk: dict[str, object] = {**self.public_jwk, "alg": "ES256", "use": "sig",
                                  "from": int(self.signs_from.timestamp())}  # fmt: skip
        if self.verifies_until is not None:
            jwk["until"] = int(self.verifies_until.timestamp())
        return jwk

    def verifies_at(self, moment: datetime) -> bool:
        return self.verifies_until is None or moment < self.verifies_until

    @property
    def verifier(self) -> COSEKey:
        return _cose_key(self.kid, self.x, self.y, None)

    @property
    def signer(self) -> COSEKey:
        if self.private_key is None:
            raise KeyDirectoryError(f"The private key of {self.kid} is not here.")
        return _cose_key(self.kid, self.x, self.y, self.private_key)


@dataclass(frozen=True, slots=True)
class KeySet:
    """The keys of a directory, oldest first."""

    keys: tuple[SigningKey, ...] = ()

    def signing_key(self, moment: datetime) -> SigningKey | None:
        """The key that signs at `moment` (the latest to have begun), if its private key is
        here; None otherwise: an older key must not sign after its successor has begun."""
        begun = [key for key in self.keys if key.signs_from <= moment]
        if not begun or begun[-1].private_key is None:
            return None
        return begun[-1]

    def by_kid(self, kid: str) -> SigningKey | None:
        return next((key for key in self.keys if key.kid == kid), None)

    def published(self, moment: datetime) -> list[SigningKey]:
        """The keys that still verify at `moment`: what the JWK set lists."""
        return [key for key in self.keys if key.verifies_at(moment)]

    def jwks(self, moment: datetime) -> dict[str, list]:
        return {"keys": [key.published_jwk() for key in self.published(moment)]}


def read_key_set(directory: str | Path) -> KeySet:
    """The key set of `directory`; empty if it has no keys yet. Read again only once its
    `keys.json` has changed (the roll-over command replaces it whole)."""
    listing = Path(directory) / KEYS_FILE
    try:
        stat = listing.stat()
    except FileNotFoundError:
        return KeySet()
    return _read(str(listing), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _read(listing: str, _mtime_ns: int, _size: int) -> KeySet:
    path = Path(listing)
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["keys"]
        keys = [_key_of(entry, path.parent) for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise KeyDirectoryError(f"{path} cannot be read: {error}") from error
    return KeySet(tuple(sorted(keys, key=lambda key: key.signs_from)))


def _key_of(entry: dict, directory: Path) -> SigningKey:
    kid = str(entry["kid"])
    x, y = _from_b64url(entry["x"]), _from_b64url(entry["y"])
    private = directory / f"{kid}.pem"
    private_key = None
    if private.exists():
        loaded = serialization.load_pem_private_key(private.read_bytes(), password=None)
        if not isinstance(loaded, ec.EllipticCurvePrivateKey):
            raise ValueError(f"{private.name} is not an elliptic-curve key")
        numbers = loaded.public_key().public_numbers()
        if (_coordinate(numbers.x), _coordinate(numbers.y)) != (x, y):
            raise ValueError(f"{private.name} is not the private key of {kid}")
        private_key = loaded
    until = entry.get("until")
    return SigningKey(kid, x, y, _moment(entry["from"]), until and _moment(until), private_key)


def add_key(directory: str | Path, signs_from: datetime, signed_code_days: int) -> SigningKey:
    """A new key in `directory` (made if need be) that signs from `signs_from`; the keys
    before it verify until `signs_from` plus `signed_code_days` at the latest, when the last
    code they may sign expires. Returns the new key."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    existing = read_key_set(folder).keys
    if any(key.signs_from >= signs_from for key in existing):
        raise KeyDirectoryError(
            "A key already signs from that time or later: a new key must begin after the rest."
        )
    private_key, kid = _new_private_key({key.kid for key in existing})
    numbers = private_key.public_key().public_numbers()
    begins = signs_from.astimezone(UTC).replace(microsecond=0)
    new = SigningKey(kid, _coordinate(numbers.x), _coordinate(numbers.y), begins, None, private_key)
    last_code_expires = new.signs_from + timedelta(days=signed_code_days)
    keys = [_ended(key, last_code_expires) for key in existing] + [new]
    _write_private_key(folder / f"{kid}.pem", private_key)
    _write_listing(folder / KEYS_FILE, keys)
    return new


def forget_retired_private_keys(directory: str | Path, moment: datetime) -> list[str]:
    """Deletes the private key of every key whose successor signs by `moment`: it will never
    sign again, and a key that is gone cannot leak. Its public half stays listed, and
    published while it verifies. Returns the ids of the keys whose private key went."""
    keys = read_key_set(directory).keys
    retired = [key for key, successor in itertools.pairwise(keys)
               if successor.signs_from <= moment and key.private_key is not None]  # fmt: skip
    for key in retired:
        (Path(directory) / f"{key.kid}.pem").unlink(missing_ok=True)
    if retired:  # read again: the listing is unchanged, but the keys are not
        _read.cache_clear()
    return [key.kid for key in retired]


def _ended(key: SigningKey, last_code_expires: datetime) -> SigningKey:
    """`key` as a successor leaves it: verifying until the last code it may sign expires (or
    as it was, if it had already ended sooner)."""
    if key.verifies_until is not None and key.verifies_until <= last_code_expires:
        return key
    return replace(key, verifies_until=last_code_expires)


def _new_private_key(taken: set[str]) -> tuple[ec.EllipticCurvePrivateKey, str]:
    """A new P-256 key and its id: the first characters of its JWK thumbprint (RFC 7638) in
    base32, one that no other key of the set has."""
    while True:
        private_key = ec.generate_private_key(ec.SECP256R1())
        numbers = private_key.public_key().public_numbers()
        kid = thumbprint(_coordinate(numbers.x), _coordinate(numbers.y))[:KID_LENGTH]
        if kid not in taken:
            return private_key, kid


def thumbprint(x: bytes, y: bytes) -> str:
    """The key's JWK thumbprint (RFC 7638), SHA-256, in base32 without padding."""
    members = json.dumps({"crv": "P-256", "kty": "EC", "x": _b64url(x), "y": _b64url(y)},
                         separators=(",", ":"), sort_keys=True)  # fmt: skip
    return base64.b32encode(hashlib.sha256(members.encode()).digest()).decode().rstrip("=")


def _write_private_key(path: Path, private_key: ec.EllipticCurvePrivateKey) -> None:
    pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(pem)


def _write_listing(path: Path, keys: list[SigningKey]) -> None:
    """`keys.json`, replaced whole (written beside it, then renamed over it), so that a portal
    reading it meanwhile reads the old or the new, never half."""
    listing = {"keys": [_entry(key) for key in keys]}
    text = json.dumps(listing, indent=2) + "\n"
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8",
                                     prefix=".keys-", suffix=".json") as file:  # fmt: skip
        file.write(text)
    os.chmod(file.name, 0o644)
    os.replace(file.name, path)


def _entry(key: SigningKey) -> dict[str, str | None]:
    return {
        "kid": key.kid,
        "x": _b64url(key.x),
        "y": _b64url(key.y),
        "from": _iso(key.signs_from),
        "until": key.verifies_until and _iso(key.verifies_until),
    }


@lru_cache(maxsize=64)
def _cose_key(kid: str, x: bytes, y: bytes, private_key: object) -> COSEKey:
    jwk = {"kty": "EC", "crv": "P-256", "x": _b64url(x), "y": _b64url(y), "kid": kid,
           "alg": "ES256"}  # fmt: skip
    if isinstance(private_key, ec.EllipticCurvePrivateKey):
        d = private_key.private_numbers().private_value.to_bytes(COORDINATE_BYTES, "big")
        jwk["d"] = _b64url(d)
    return COSEKey.from_jwk(jwk)


def _coordinate(value: int) -> bytes:
    return value.to_bytes(COORDINATE_BYTES, "big")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _from_b64url(text: str) -> bytes:
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(raw) != COORDINATE_BYTES:
        raise ValueError("a coordinate is not 32 bytes")
    return raw


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return moment.astimezone(UTC)
