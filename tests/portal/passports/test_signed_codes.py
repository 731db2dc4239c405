"""Passports' signed codes without the web: signed and read back, refused when any bit of them
changes, expired, signed by a key not in the set, by a key rolled over, by a key out of its
time; their keys published as a JWK set that a verifier of the test's own (the `cryptography`
package and cbor2 alone) reads; and what goes in them, and what never does."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import cbor2
import pytest
import segno
import time_machine
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.test import RequestFactory

from portal.assurance import records
from portal.lib import signed_codes
from portal.lib.signed_codes import State
from portal.lib.signing_keys import (
    KeyDirectoryError,
    add_key,
    forget_retired_private_keys,
    read_key_set,
)
from portal.passports import signing
from tests.portal.passports.helpers import with_s_flipped

NOW = datetime(2026, 9, 3, 9, 30, tzinfo=UTC)
DAYS = 21

PASSPORT = records.CropPassport(
    short_code="7KXM4QHT2W",
    membership_guid="5D0F6C1E-0000-4000-8000-000000000001",
    business_name="Hollowfield Farms Ltd",
    collection_address="Hollowfield Farm, Long Lane, Sudbury CO10 1AB",
    crop_type="Wheat",
    variety="Extase",
    loading_date=datetime(2026, 9, 2, 7, 30, tzinfo=UTC),
    harvest_year="2026",
    haulier_company_name="Stourline Haulage",
    vehicle_registration="AE24 KTV",
    trailer_number="TR-118",
    certifier_name="Meridian Farm Certification Ltd",
    membership_number="CCSB-204817",
    check_date=datetime(2026, 9, 3, tzinfo=UTC),
    status="Valid",
    expiry_date=datetime(2027, 3, 31, tzinfo=UTC),
)
NEVER_IN_A_CODE = ("Hollowfield Farm, Long Lane", "Stourline Haulage", "AE24 KTV", "TR-118")


def signed_payload(passport=PASSPORT, host="testserver", settings_days=DAYS) -> str:
    """What follows /V/ in the passport's signed address, signed now."""
    request = RequestFactory().get("/", HTTP_HOST=host)
    found = signing.signed_qr(request, passport)
    assert found is not None
    prefix = f"HTTP://{host.upper()}/V/"
    assert found.address.startswith(prefix)
    return found.address.removeprefix(prefix)


def read_now(payload: str) -> signed_codes.Reading:
    return signing.check(payload).reading


def as_bytes(payload: str) -> bytes:
    return base64.b32decode(payload + "=" * (-len(payload) % 8))


def as_text(message: bytes) -> str:
    return base64.b32encode(message).decode().rstrip("=")


@pytest.fixture(autouse=True)
def at_now(settings):
    settings.ALLOWED_HOSTS = ["*"]  # the portal under any name
    with time_machine.travel(NOW, tick=False):
        yield


# --- signed and read back ----------------------------------------------------------------------


def test_a_passport_signed_is_read_back_genuine_with_its_essentials():
    checked = signing.check(signed_payload())
    assert checked.state is State.GENUINE
    assert checked.short_code == "7KXM4-QHT2W"
    assert checked.issuer == "testserver"
    assert checked.reading.issued_at == NOW
    assert checked.reading.expires == NOW + timedelta(days=DAYS)
    rows = {row.label: row.value for row in checked.rows}
    assert rows == {
        "Passport short code": "7KXM4-QHT2W",
        "Business name": "Hollowfield Farms Ltd",
        "Crop type": "Wheat",
        "Variety": "Extase",
        "Harvest year": "2026",
        "Loading date": "2 September 2026",
        "Membership number": "CCSB-204817",
        "Status": "Valid",
        "Claim checked on": "3 September 2026",
        "Certificate expiry date": "31 March 2027",
        "Certifier": "",  # left out to fit: see below
    }
    assert checked.summary == (
        "Genuine: signed by the portal on 3 September 2026; the claim was valid when checked "
        "then; this signed copy expires on 24 September 2026."
    )
    assert checked.matches(PASSPORT)


def test_the_payload_is_a_cbor_map_of_cwt_claims_and_the_essentials_and_nothing_private():
    message = cbor2.loads(as_bytes(signed_payload()))
    assert message.tag == 18  # COSE_Sign1
    protected, unprotected, payload, signature = message.value
    assert cbor2.loads(protected) == {1: -7, 4: read_key_set_kid().encode()}  # ES256, its key
    assert unprotected == {}
    assert len(signature) == 64
    claims = cbor2.loads(payload)
    assert claims[1] == "testserver"
    assert claims[6] == int(NOW.timestamp())
    assert claims[4] == int(NOW.timestamp()) + DAYS * 86400
    assert claims[-1] == "7KXM4QHT2W"
    assert claims[-6] == (datetime(2026, 9, 2) - datetime(1970, 1, 1)).days
    assert claims[-5] == 2026
    assert claims[-12] == signing.record_digest(PASSPORT)[:8]
    for private in NEVER_IN_A_CODE:
        assert private.encode() not in payload
    assert not {str(value) for value in claims.values()} & {
        PASSPORT.collection_address, PASSPORT.haulier_company_name,
        PASSPORT.vehicle_registration, PASSPORT.trailer_number,
    }  # fmt: skip


def read_key_set_kid() -> str:
    from django.conf import settings

    [key] = read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys
    return key.kid


def test_the_digest_is_of_the_whole_record_in_deterministic_cbor():
    import hashlib

    from portal.assurance import codec

    mapping = codec.to_mapping(PASSPORT)
    assert mapping["CollectionAddress"]  # the whole record: what the code leaves out too
    expected = hashlib.sha256(cbor2.dumps(mapping, canonical=True)).digest()
    assert signing.record_digest(PASSPORT) == expected
    other = records.CropPassport(**{**_fields(PASSPORT), "trailer_number": "TR-119"})
    assert signing.record_digest(other) != expected
    assert not signing.check(signed_payload()).matches(other)


def _fields(passport: records.CropPassport) -> dict:
    return {name: getattr(passport, name) for name in passport.__struct_fields__}


# --- what fits ---------------------------------------------------------------------------------


def test_the_capacity_is_segnos_own_for_version_13_at_level_q():
    fits = segno.make("A" * signing.QR_CAPACITY, error="q", boost_error=False)
    assert fits.version == 13
    assert segno.make("A" * (signing.QR_CAPACITY + 1), error="q").version == 14


@pytest.mark.parametrize("host", ["testserver", "127.0.0.1:8000", "passports.example.org"])
def test_the_signed_address_fits_a_qr_code_of_version_13_at_level_q(host):
    request = RequestFactory().get("/", HTTP_HOST=host)
    found = signing.signed_qr(request, PASSPORT)
    assert found is not None
    assert len(found.address) <= signing.QR_CAPACITY
    code = segno.make(found.address, error="q", boost_error=False)
    assert (code.version, code.mode) <= (13, "alphanumeric")
    assert code.mode == "alphanumeric"
    assert f'viewBox="0 0 {code.symbol_size()[0]} ' in found.svg


def test_what_does_not_fit_gives_way_certifier_first_then_membership_then_variety():
    checked = signing.check(signed_payload(host="passports.example.org"))
    assert checked.is_genuine
    left_out = [row.label for row in checked.rows if row.left_out]
    assert left_out == ["Variety", "Certifier", "Membership number"]
    shown = {row.label: row.value for row in checked.rows if not row.left_out}
    assert shown["Business name"] == "Hollowfield Farms Ltd"
    assert shown["Crop type"] == "Wheat"
    online = checked.rows_known(PASSPORT)  # the record it was signed for, looked up
    assert not [row for row in online if row.left_out or row.shortened]
    whole = {row.label: row.value for row in online}
    assert (whole["Variety"], whole["Certifier"]) == (PASSPORT.variety, PASSPORT.certifier_name)
    changed = records.CropPassport(**{**_fields(PASSPORT), "variety": "Skyfall"})
    assert checked.rows_known(changed) == checked.rows  # a record changed since: as signed


def test_a_long_business_name_is_cut_to_what_fits_and_said_to_be():
    long_name = "The Hollowfield and Wenham Grange Farming Partnership of Suffolk Ltd"
    passport = records.CropPassport(**{**_fields(PASSPORT), "business_name": long_name})
    checked = signing.check(signed_payload(passport))
    [business] = [row for row in checked.rows if row.label == "Business name"]
    assert business.shortened
    assert long_name.startswith(business.value)
    assert len(business.value) >= 20
    assert checked.matches(passport)  # the digest is still of the whole record


def test_a_portal_address_too_long_for_any_code_falls_back_and_says_why(caplog):
    host = "passports." + "very-long-name." * 20 + "example.org"
    request = RequestFactory().get("/", HTTP_HOST=host)
    assert signing.signed_qr(request, PASSPORT) is None
    assert "A passport's code is not signed" in caplog.text


# --- refused -----------------------------------------------------------------------------------


def test_every_bit_changed_anywhere_in_the_message_is_refused():
    message = as_bytes(signed_payload())
    for position in range(len(message)):
        for bit in range(8):
            changed = bytearray(message)
            changed[position] ^= 1 << bit
            reading = read_now(as_text(bytes(changed)))
            assert reading.state in REFUSED, (position, bit, reading.state)
            assert not reading.claims, (position, bit)


REFUSED = (State.ALTERED, State.UNKNOWN_KEY, State.MALFORMED)


def test_every_character_changed_in_the_text_is_refused():
    payload = signed_payload()
    for position, character in enumerate(payload):
        other = "A" if character != "A" else "B"
        changed = payload[:position] + other + payload[position + 1 :]
        assert read_now(changed).state in REFUSED, position
    assert read_now(payload + "A").state is State.MALFORMED
    assert read_now(payload[:-1]).state is State.MALFORMED


def test_a_code_with_its_signatures_s_flipped_is_refused():
    """(r, n - s) is as good a signature as (r, s) to ECDSA: taken, it would be a second
    "genuine" code of the same passport, made by anyone."""
    payload = signed_payload()
    flipped = with_s_flipped(payload)
    assert flipped != payload
    reading = read_now(flipped)
    assert reading.state is State.ALTERED and not reading.claims


def test_every_code_the_portal_signs_has_a_low_s():
    for _ in range(64):  # an ECDSA signature's s is high one time in two
        signature = cbor2.loads(as_bytes(signed_payload())).value[3]
        assert int.from_bytes(signature[32:]) <= signed_codes.P256_ORDER // 2


def test_the_same_code_in_lower_case_is_read_as_written():
    assert read_now(signed_payload().lower()).state is State.GENUINE


@pytest.mark.parametrize(
    "payload",
    ["", "A", "AAAAAAAA", "0189", "MFRGG===", "é" * 10, "A" * 5000, "GQ" * 40, "2" * 300,
     as_text(cbor2.dumps(cbor2.CBORTag(18, [b"", {}, b"", b""]))),
     as_text(cbor2.dumps(cbor2.CBORTag(18, [cbor2.dumps({1: -7}), {}, b"x", bytes(64)]))),
     as_text(cbor2.dumps([1] * 300)), as_text(b"\x81" * 300)],
)  # fmt: skip
def test_what_is_not_a_code_is_malformed(payload):
    assert read_now(payload).state is State.MALFORMED


def test_a_code_with_the_key_id_unprotected_is_malformed():
    message = cbor2.loads(as_bytes(signed_payload()))
    protected, _, payload, signature = message.value
    kid = cbor2.loads(protected)[4]
    moved = cbor2.CBORTag(18, [cbor2.dumps({1: -7}), {4: kid}, payload, signature])
    assert read_now(as_text(cbor2.dumps(moved))).state is State.MALFORMED


def test_a_code_expires_after_its_days(settings):
    payload = signed_payload()
    with time_machine.travel(NOW + timedelta(days=DAYS) - timedelta(seconds=1), tick=False):
        assert read_now(payload).state is State.GENUINE
    with time_machine.travel(NOW + timedelta(days=DAYS), tick=False):
        reading = read_now(payload)
        assert reading.state is State.EXPIRED
        assert signing.check(payload).short_code == "7KXM4-QHT2W"


def test_the_days_a_code_holds_are_a_setting(settings):
    settings.PORTAL_SIGNED_PASSPORT_DAYS = 3
    payload = signed_payload()
    with time_machine.travel(NOW + timedelta(days=3), tick=False):
        assert read_now(payload).state is State.EXPIRED


def test_a_code_signed_by_a_key_not_in_the_set_is_refused(tmp_path):
    stranger = add_key(tmp_path / "elsewhere", NOW - timedelta(days=1), DAYS)
    claims = {1: "testserver", 6: int(NOW.timestamp()), 4: int(NOW.timestamp()) + 60, -1: "X"}
    assert read_now(signed_codes.sign(claims, stranger)).state is State.UNKNOWN_KEY


def test_a_code_signed_by_another_key_under_the_sets_key_id_is_altered(tmp_path, settings):
    [ours] = read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys
    stranger = add_key(tmp_path / "elsewhere", NOW - timedelta(days=1), DAYS)
    from dataclasses import replace

    impostor = replace(stranger, kid=ours.kid)
    claims = {1: "testserver", 6: int(NOW.timestamp()), 4: int(NOW.timestamp()) + 60}
    assert read_now(signed_codes.sign(claims, impostor)).state is State.ALTERED


# --- keys rolled over --------------------------------------------------------------------------


def test_a_key_rolled_over_still_verifies_what_it_signed_until_that_expires(settings):
    keys_dir = settings.PORTAL_PASSPORT_KEYS_DIR
    [old] = read_key_set(keys_dir).keys
    signed_by_the_old = signed_payload()

    new = add_key(keys_dir, NOW + timedelta(hours=1), DAYS)
    [old_now, _] = read_key_set(keys_dir).keys
    assert old_now.verifies_until == new.signs_from + timedelta(days=DAYS)

    with time_machine.travel(NOW + timedelta(hours=2), tick=False):
        assert forget_retired_private_keys(keys_dir, datetime.now(UTC)) == [old.kid]
        assert read_key_set(keys_dir).signing_key(datetime.now(UTC)).kid == new.kid
        signed_by_the_new = signed_payload()
        assert signing.check(signed_by_the_new).reading.key.kid == new.kid
        reading = read_now(signed_by_the_old)
        assert reading.state is State.GENUINE
        assert reading.key.kid == old.kid
        published = [key["kid"] for key in signing.published_keys()["keys"]]
        assert published == [old.kid, new.kid]

    after = new.signs_from + timedelta(days=DAYS)
    with time_machine.travel(after, tick=False):
        assert [key["kid"] for key in signing.published_keys()["keys"]] == [new.kid]
        assert read_now(signed_by_the_new).state is State.GENUINE


def test_a_rolled_over_key_that_signs_after_its_successor_began_is_refused(settings):
    keys_dir = settings.PORTAL_PASSPORT_KEYS_DIR
    [old] = read_key_set(keys_dir).keys
    new = add_key(keys_dir, NOW + timedelta(hours=1), DAYS)
    late = new.signs_from + timedelta(days=1)  # the old key, stolen, signs after it retired
    claims = {1: "testserver", 6: int(late.timestamp()),
              4: int(late.timestamp()) + DAYS * 86400, -1: "7KXM4QHT2W"}  # fmt: skip
    with time_machine.travel(late, tick=False):
        assert read_now(signed_codes.sign(claims, old)).state is State.KEY_NOT_IN_USE


def test_a_code_dated_before_its_key_began_is_refused(settings):
    [key] = read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys
    early = key.signs_from - timedelta(days=1)
    claims = {1: "testserver", 6: int(early.timestamp()), 4: int(NOW.timestamp()) + 60}
    assert read_now(signed_codes.sign(claims, key)).state is State.KEY_NOT_IN_USE


def test_a_new_key_cannot_begin_before_the_last(settings):
    with pytest.raises(KeyDirectoryError):
        add_key(settings.PORTAL_PASSPORT_KEYS_DIR, datetime(2019, 1, 1, tzinfo=UTC), DAYS)


def test_a_key_whose_successor_has_not_begun_keeps_signing(settings):
    keys_dir = settings.PORTAL_PASSPORT_KEYS_DIR
    [old] = read_key_set(keys_dir).keys
    add_key(keys_dir, NOW + timedelta(days=7), DAYS)
    assert forget_retired_private_keys(keys_dir, NOW) == []
    assert read_key_set(keys_dir).signing_key(NOW).kid == old.kid


def test_the_private_key_is_readable_by_its_owner_alone(settings, tmp_path):
    key = add_key(tmp_path / "keys", NOW, DAYS)
    assert (tmp_path / "keys" / f"{key.kid}.pem").stat().st_mode & 0o777 == 0o600
    assert "PRIVATE" not in (tmp_path / "keys" / "keys.json").read_text()


# --- the JWK set, read by a verifier of the test's own ------------------------------------------


def independent_verify(jwks: dict, payload: str) -> dict:
    """The claims of `payload`, verified with the JWK set by `cryptography` and cbor2 alone,
    as a buyer's software would (RFC 9052, 4.4): raises InvalidSignature if it is not."""
    tag = cbor2.loads(as_bytes(payload))
    assert tag.tag == 18
    protected, _unprotected, payload_bytes, signature = tag.value
    kid = cbor2.loads(protected)[4].decode()
    [jwk] = [key for key in jwks["keys"] if key["kid"] == kid]
    assert (jwk["kty"], jwk["crv"], jwk["alg"]) == ("EC", "P-256", "ES256")

    def number(member: str) -> int:
        return int.from_bytes(base64.urlsafe_b64decode(jwk[member] + "=="), "big")

    point = ec.EllipticCurvePublicNumbers(number("x"), number("y"), ec.SECP256R1())
    public_key = point.public_key()
    to_be_signed = cbor2.dumps(["Signature1", protected, b"", payload_bytes])
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                               int.from_bytes(signature[32:], "big"))  # fmt: skip
    public_key.verify(der, to_be_signed, ec.ECDSA(hashes.SHA256()))
    claims = cbor2.loads(payload_bytes)
    assert jwk["from"] <= claims[6] and ("until" not in jwk or claims[4] <= jwk["until"])
    return claims


def test_the_published_key_set_verifies_a_code_outside_the_portal():
    jwks = json.loads(json.dumps(signing.published_keys()))
    payload = signed_payload()
    claims = independent_verify(jwks, payload)
    assert claims[-1] == "7KXM4QHT2W"
    message = bytearray(as_bytes(payload))
    message[-1] ^= 1
    with pytest.raises(InvalidSignature):
        independent_verify(jwks, as_text(bytes(message)))


def test_the_key_set_lists_each_keys_public_half_and_times_only(settings):
    [key] = signing.published_keys()["keys"]
    assert set(key) == {"kty", "crv", "x", "y", "kid", "alg", "use", "from"}
    assert key["from"] == int(datetime(2020, 1, 1, tzinfo=UTC).timestamp())
    add_key(settings.PORTAL_PASSPORT_KEYS_DIR, NOW, DAYS)
    old, new = signing.published_keys()["keys"]
    assert old["until"] == int((NOW + timedelta(days=DAYS)).timestamp())
    assert "until" not in new and "d" not in new
