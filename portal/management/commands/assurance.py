"""`python manage.py assurance ...`: call any operation of the Assurance service.

For operators checking a deployment against the configured service (ASSURANCE_BASE_URL):

    python manage.py assurance schemes --username grower
    python manage.py assurance section <scheme GUID> ST --preview
    python manage.py assurance passport 7KXM4QHT2W --pdf passport.pdf

Records are printed as the interface's JSON. The password comes from --password, from
ASSURANCE_PASSWORD, or is asked for; tokens are never printed. The command prints its answer or
its error and nothing else: the portal's log lines (each call, timed) only with -v 2.
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.assurance import codec, records
from portal.assurance.client import AssuranceClient, BearerToken
from portal.assurance.errors import AssuranceError
from portal.assurance.service import build_client


class Command(BaseCommand):
    help = "Calls an operation of the Assurance service and prints what it answers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base-url", help="the service (default: ASSURANCE_BASE_URL)")
        parser.add_argument("--format", choices=["json", "xml"], help="the wire format")
        parser.add_argument("--username", default=os.environ.get("ASSURANCE_USERNAME"))
        parser.add_argument("--password", help="default: ASSURANCE_PASSWORD, else asked for")
        operations = parser.add_subparsers(dest="operation", required=True, metavar="operation")

        login = operations.add_parser("login", help="check the credentials")
        login.add_argument("--session", action="store_true", help="ask for a session cookie")

        schemes = operations.add_parser("schemes", help="list the schemes")
        schemes.add_argument("--preview", action="store_true")

        sections = operations.add_parser("sections", help="list the sections of a scheme")
        sections.add_argument("scheme", help="the scheme's GUID")
        sections.add_argument("--preview", action="store_true")
        sections.add_argument("--sector", help="SectorPrefixFilter")

        section = operations.add_parser("section", help="a section's standard points")
        section.add_argument("scheme", help="the scheme's GUID")
        section.add_argument("section", help="the section's two-letter prefix or its GUID")
        section.add_argument("--preview", action="store_true")
        section.add_argument("--sector", help="SectorPrefixFilter")

        operations.add_parser("authorisation", help="the memberships, sites and stores")

        create = operations.add_parser("create-passport", help="create a passport")
        create.add_argument("--membership", required=True, help="MembershipGUID")
        create.add_argument("--site", required=True, help="SiteGUID")
        create.add_argument("--store", help="StoreGUID")
        create.add_argument(
            "--set", action="append", default=[], metavar="Field=value",
            help="any other field of the request, e.g. --set CropType=Wheat",
        )  # fmt: skip
        create.add_argument("--pdf", type=Path, help="write the PDF to this file")

        passport = operations.add_parser("passport", help="a passport by its short code")
        passport.add_argument("short_code")
        passport.add_argument("--pdf", type=Path, help="write the PDF to this file")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            client = build_client(options["base_url"], options["format"])
        except ValueError as error:
            raise CommandError(str(error)) from None
        try:
            with _logs_shown(options["verbosity"] >= 2):
                self._run(client, options)
        except AssuranceError as error:
            several = len(error.errors) > 1
            details = "".join(f"\n  {e.code}: {e.message}" for e in error.errors if several)
            raise CommandError(f"{type(error).__name__}: {error}{details}") from None
        finally:
            client.close()

    def _run(self, client: AssuranceClient, options: dict[str, Any]) -> None:
        operation = options["operation"]
        username, password = self._credentials(options)
        if operation == "login":
            if options["session"]:
                client.login_session(username, password)
                self.stdout.write("Signed in: the service set a session cookie.")
            else:
                authorization = client.login(username, password)
                self.stdout.write(
                    f"Signed in to realm {authorization.realm!r}; the token is valid until "
                    f"{authorization.expires:%Y-%m-%d %H:%M} UTC."
                )
            return
        # Values are checked before any call, so a typing mistake costs no sign-in.
        request = self._passport_request(options) if operation == "create-passport" else None
        token = BearerToken(client.login(username, password).token)
        if operation == "schemes":
            self._print(client.schemes(token, preview=options["preview"]))
        elif operation == "sections":
            self._print(client.sections(token, options["scheme"], preview=options["preview"],
                                        sector=options["sector"]))  # fmt: skip
        elif operation == "section":
            self._print(client.section_data(
                token, options["scheme"], options["section"], preview=options["preview"],
                sector=options["sector"],
            ))  # fmt: skip
        elif operation == "authorisation":
            self._print(client.authorisation(token))
        elif operation == "create-passport":
            if options["pdf"]:
                self._write_pdf(options["pdf"], client.create_passport_pdf(token, request))
            else:
                self._print(client.create_passport(token, request))
        elif operation == "passport":
            if options["pdf"]:
                self._write_pdf(options["pdf"], client.passport_pdf(token, options["short_code"]))
            else:
                self._print(client.passport(token, options["short_code"]))

    def _credentials(self, options: dict[str, Any]) -> tuple[str, str]:
        username = options["username"]
        if not username:
            raise CommandError("Give --username (or set ASSURANCE_USERNAME).")
        password = options["password"] or os.environ.get("ASSURANCE_PASSWORD")
        if not password and sys.stdin.isatty():
            password = getpass.getpass(f"Password for {username}: ")
        if not password:
            raise CommandError("Give --password, set ASSURANCE_PASSWORD, or type it when asked.")
        return username, password

    def _passport_request(self, options: dict[str, Any]) -> records.PassportRequest:
        fields: dict[str, str] = {
            "MembershipGUID": options["membership"],
            "SiteGUID": options["site"],
        }
        if options["store"]:
            fields["StoreGUID"] = options["store"]
        for assignment in options["set"]:
            name, separator, value = assignment.partition("=")
            if not separator or not name.strip():
                raise CommandError(f"--set takes Field=value, not {assignment!r}.")
            fields[name.strip()] = value
        try:
            return codec.decode(json.dumps(fields), records.PassportRequest, codec.Format.JSON)
        except codec.WireFormatError as error:
            raise CommandError(f"Some values are of the wrong type: {error}") from None

    def _print(self, record: Any) -> None:
        self.stdout.write(json.dumps(codec.to_mapping(record), indent=2, ensure_ascii=False))

    def _write_pdf(self, path: Path, content: bytes) -> None:
        try:
            path.write_bytes(content)
        except OSError as error:
            raise CommandError(f"Cannot write {path}: {error.strerror}.") from None
        self.stdout.write(f"Wrote {len(content):,} bytes of PDF to {path}.")


@contextmanager
def _logs_shown(shown: bool) -> Iterator[None]:
    """The log's lines (the calls, a call not recorded for the dashboard) left out of the
    command's output unless `shown`."""
    if shown:
        yield
        return
    before = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(before)
