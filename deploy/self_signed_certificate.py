"""A self-signed certificate for nginx, for a demonstration or a first start before the real
one (Let's Encrypt's, say) is in place. Writes fullchain.pem and privkey.pem into a folder,
unless they are there already.

    python deploy/self_signed_certificate.py FOLDER [HOST NAME ...]   # localhost by default
"""

from __future__ import annotations

import datetime
import ipaddress
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def write(folder: Path, names: list[str]) -> bool:
    """Writes the pair into `folder` for `names`; False if a certificate is there already."""
    certificate_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    if certificate_path.exists() and key_path.exists():
        return False
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])])
    now = datetime.datetime.now(datetime.UTC)
    alternatives: list[x509.GeneralName] = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return True


def main(arguments: list[str]) -> int:
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    folder, names = Path(arguments[0]), arguments[1:] or ["localhost"]
    if write(folder, names):
        print(f"A self-signed certificate for {', '.join(names)} is in {folder}.")
    else:
        print(f"{folder} has a certificate already; left as it is.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
