"""`python manage.py new_passport_key [--in-days N] [--if-none]`: makes a new key that signs
passports' codes, in PORTAL_PASSPORT_KEYS_DIR, and lists the keys.

The new key signs from now (or N days on: it is published at once, so that checkers that keep
the key set have it before the first code it signs); the key before it signs until then, and
verifies until the last code it signed has expired (PORTAL_SIGNED_PASSPORT_DAYS later). The
private key of a key whose successor has begun is deleted: it will never sign again.
`--if-none` makes a key only if none signs now (what `make run` asks for).
"""

from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.lib.signing_keys import (
    KeyDirectoryError,
    SigningKey,
    add_key,
    forget_retired_private_keys,
    read_key_set,
)


class Command(BaseCommand):
    help = "Makes a new key that signs passports' codes (and lists the keys)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--in-days", type=int, default=0, metavar="N",
            help="sign from N days on (published now); by default, at once",
        )  # fmt: skip
        parser.add_argument("--if-none", action="store_true", help="only if no key signs now")

    def handle(self, *args: Any, **options: Any) -> None:
        directory = settings.PORTAL_PASSPORT_KEYS_DIR
        now = datetime.now(UTC)
        if options["in_days"] < 0:
            raise CommandError("--in-days cannot be less than 0.")
        try:
            if not (options["if_none"] and read_key_set(directory).signing_key(now)):
                begins = now + timedelta(days=options["in_days"])
                new = add_key(directory, begins, settings.PORTAL_SIGNED_PASSPORT_DAYS)
                self.stdout.write(f"Made key {new.kid}: it signs from {_written(begins)}.")
            for kid in forget_retired_private_keys(directory, now):
                self.stdout.write(f"Deleted the private key of {kid}: it signs no more.")
            keys = read_key_set(directory)
        except KeyDirectoryError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Keys in {directory}:")
        for key in keys.keys:
            self.stdout.write(f"  {_described(key, now)}")


def _described(key: SigningKey, now: datetime) -> str:
    until = f"verifies until {_written(key.verifies_until)}" if key.verifies_until else "current"
    published = "published" if key.verifies_at(now) else "no longer published"
    private = "private key here" if key.private_key else "no private key"
    return f"{key.kid}: signs from {_written(key.signs_from)}, {until}; {published}; {private}"


def _written(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if moment else ""
