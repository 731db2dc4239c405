"""An endpoint over HTTPS, as in production: the portal connects to the address it checked
(here handed to it as the resolution of `hooks.test`: 127.0.0.1) and checks the certificate
against the endpoint's host name, not the address. A certificate of a test authority of its
own, trusted through SSL_CERT_FILE; nothing leaves loopback."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pytest_httpserver import HTTPServer

from portal.outbox import addresses, delivering, events
from portal.outbox.models import Attempt, Delivery, EventType
from scripts.servers import LOOPBACK
from tests.demo import HOLLOWFIELD
from tests.portal.outbox.builders import an_endpoint, verified

pytestmark = pytest.mark.django_db


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(subject: str, key, issuer: str, issuer_key, *, authority: bool, names=()):
    now = datetime.datetime.now(datetime.UTC)
    built = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=authority, path_length=None), critical=True)
    )
    built = built.add_extension(
        x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
    ).add_extension(
        x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False
    )
    if authority:
        built = built.add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                          content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, encipher_only=False,
                          decipher_only=False),
            critical=True,
        )  # fmt: skip
    if names:
        built = built.add_extension(x509.SubjectAlternativeName(list(names)), critical=False)
    return built.sign(issuer_key, hashes.SHA256())


def _pem(thing) -> bytes:
    return thing.public_bytes(serialization.Encoding.PEM)


@pytest.fixture
def https_receiver(tmp_path: Path, monkeypatch) -> Iterator[HTTPServer]:
    """A receiver on 127.0.0.1 over TLS, whose certificate names hooks.test, from an authority
    this process trusts; `hooks.test` resolves to 127.0.0.1."""
    authority_key, server_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    authority = _certificate("Test authority", authority_key, "Test authority", authority_key,
                             authority=True)  # fmt: skip
    server = _certificate("hooks.test", server_key, "Test authority", authority_key,
                          authority=False, names=[x509.DNSName("hooks.test")])  # fmt: skip
    (tmp_path / "authority.pem").write_bytes(_pem(authority))
    (tmp_path / "server.pem").write_bytes(_pem(server))
    (tmp_path / "server.key").write_bytes(server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem", tmp_path / "server.key")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "authority.pem"))
    monkeypatch.setattr(addresses, "resolve",
                        lambda host, port: [ipaddress.ip_address(LOOPBACK)])  # fmt: skip
    receiver = HTTPServer(host=LOOPBACK, port=0, ssl_context=context)
    receiver.start()
    yield receiver
    receiver.clear()
    receiver.stop()


def test_it_connects_to_the_address_checked_and_checks_the_hosts_certificate(https_receiver):
    https_receiver.expect_request("/in", method="POST").respond_with_data("")
    _, secret = an_endpoint(f"https://hooks.test:{https_receiver.port}/in")
    event = events.emit(EventType.PING, {}, membership_guid=HOLLOWFIELD)
    delivering.attempt([event.deliveries.get().pk])
    assert Delivery.objects.get().state == "delivered", Attempt.objects.get().trouble
    (request, _) = https_receiver.log[0]
    assert request.headers["Host"] == f"hooks.test:{https_receiver.port}"
    verified(secret, request)


def test_a_certificate_of_another_name_is_a_failure(https_receiver):
    https_receiver.expect_request("/in", method="POST").respond_with_data("")
    an_endpoint(f"https://other.test:{https_receiver.port}/in")
    event = events.emit(EventType.PING, {}, membership_guid=HOLLOWFIELD)
    delivering.attempt([event.deliveries.get().pk])
    assert "TLS" in Attempt.objects.get().trouble
    assert https_receiver.log == []
