"""`python manage.py grant_staff USERNAME [--superuser] [--revoke]`: staff rights for an account.

Portal users sign in through the Assurance service, so staff are made by name: the account's
username on the service (as it shows in the admin's user list after a first sign-in). Staff are
put in the group "Portal staff" (portal/accounts/staff.py): the dashboard, and the admin to read
the portal's records, retry and cancel jobs and end users' sessions. A superuser also changes
rights.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from portal.accounts import staff
from portal.accounts.session import portal_user


class Command(BaseCommand):
    help = "Gives an Assurance account staff rights in the portal (or takes them away)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="the account's username on the Assurance service")
        parser.add_argument("--superuser", action="store_true", help="every permission too")
        parser.add_argument("--revoke", action="store_true", help="take staff rights away")

    def handle(self, *args: Any, **options: Any) -> None:
        user = portal_user(options["username"])
        if options["revoke"]:
            staff.revoke(user)
        else:
            staff.grant(user, superuser=options["superuser"])
        state = "now staff" if user.is_staff else "no longer staff"
        extra = " with every permission" if user.is_superuser else ""
        self.stdout.write(f"{user.get_username()} is {state}{extra}.")
