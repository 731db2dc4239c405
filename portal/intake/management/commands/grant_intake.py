"""`python manage.py grant_intake USERNAME SITE [--revoke]`: makes an account a clerk of an
intake site (by the site's code, or its name), who records and sees the loads that arrive there.

Users sign in through the Assurance service, so clerks are named by their username on it, as
`grant_staff` names staff; the site is made by staff in the admin first."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from portal.accounts.session import portal_user
from portal.intake.models import IntakeSite


class Command(BaseCommand):
    help = "Makes an Assurance account a clerk of an intake site (or no longer one)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="the account's username on the Assurance service")
        parser.add_argument("site", help="the intake site's code (or its name)")
        parser.add_argument("--revoke", action="store_true", help="no longer a clerk of it")

    def handle(self, *args: Any, **options: Any) -> None:
        site = _site(options["site"])
        user = portal_user(options["username"])
        if options["revoke"]:
            site.clerks.remove(user)
            self.stdout.write(f"{user.get_username()} is no longer a clerk of {site}.")
        else:
            site.clerks.add(user)
            self.stdout.write(f"{user.get_username()} is now a clerk of {site}.")


def _site(named: str) -> IntakeSite:
    found = list(IntakeSite.objects.filter(Q(code=named) | Q(name=named))[:2])
    if len(found) != 1:
        known = ", ".join(IntakeSite.objects.values_list("code", flat=True)) or "none yet"
        raise CommandError(f"No intake site is called {named!r} (sites by code: {known}).")
    return found[0]
