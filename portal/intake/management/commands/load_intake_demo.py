"""`python manage.py load_intake_demo SHORT-CODE --added-by USERNAME --clerk USERNAME`: the demo
of intake results (portal/intake/demo.py) on the sandbox's demo passport, which `make run`
loads once the sandbox answers, naming the passport and accounts of the sandbox's demo data.

The passport is asked of the service through the portal's look-up account, as the look-up asks
it. The demo's site, clerk and load are for the sandbox alone: the command refuses unless the
portal's service is on this machine (ASSURANCE_BASE_URL on a loopback address, as `make run`
and the tests start the sandbox), or `--any-service` says the service elsewhere is a sandbox
too (Docker Compose's demo profile). Nothing is made unless the passport is found."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.assurance.errors import AssuranceError
from portal.intake import demo
from portal.passports import codes
from portal.passports.lookup import Verdict, verdict


class Command(BaseCommand):
    help = "Loads the demo of intake results on the sandbox's demo passport (what is missing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("short_code", help="the demo passport's short code")
        parser.add_argument("--added-by", required=True,
                            help="the account the passport is added by (a contact of its "
                                 "membership)")  # fmt: skip
        parser.add_argument("--clerk", required=True, help="the account made the site's clerk")
        parser.add_argument("--webhook-url", default="",
                            help="make run's receiver of webhooks: the business's demo "
                                 "endpoint is made (or moved) there")  # fmt: skip
        parser.add_argument("--any-service", action="store_true",
                            help="load it even though the service is not on this machine (a "
                                 "sandbox elsewhere; never the real service)")  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["any_service"] and not on_this_machine(settings.ASSURANCE_BASE_URL):
            raise CommandError(
                f"The portal's Assurance service, {settings.ASSURANCE_BASE_URL}, is not on this "
                "machine: the intake demo is for the local sandbox only. Add --any-service if "
                "that service is a sandbox too."
            )
        short_code = codes.normalise(options["short_code"])
        if short_code is None:
            raise CommandError(f"{options['short_code']!r} cannot be a passport's short code.")
        found = _looked_up(short_code)
        loaded = demo.load(found, added_by=options["added_by"], clerk=options["clerk"],
                           webhook_url=options["webhook_url"])  # fmt: skip
        if loaded:
            self.stdout.write("Loaded the intake demo: " + "; ".join(loaded) + ".")
        else:
            self.stdout.write("The intake demo is already loaded.")


def on_this_machine(url: str) -> bool:
    """Whether `url`'s host is this machine: localhost, or a loopback address."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name
        return False


def _looked_up(short_code: str) -> Verdict:
    """The look-up's verdict on the passport, with the passport."""
    try:
        found = verdict(short_code, with_details=False)
    except AssuranceError as error:
        raise CommandError(f"The service could not be asked for passport {short_code}: "
                           f"{error}") from error  # fmt: skip
    if found is None:
        raise CommandError(f"The service has no passport {short_code}: is it the sandbox, with "
                           "its demo data?")  # fmt: skip
    if found.passport is None:
        raise CommandError(f"The service shows passport {short_code} to no one: its claim is "
                           "not valid now.")  # fmt: skip
    return found
