"""Django's makemessages with the portal's catalogue's options (docs/welsh.md): Welsh, the
pages' and Python's strings (django) and the scripts' (djangojs), from the portal's own code
only, each entry with the files it comes from but not their lines (so that an edit elsewhere in
a file leaves the catalogue alone), nothing obsolete kept. `make messages` runs it; the tests
check that it leaves the committed catalogue unchanged."""

from typing import Any

from django.core.management.commands import makemessages

LANGUAGES = ["cy"]
NOT_OURS = ["node_modules", "var", "site", "build", "sandbox", "tests", "bench", "soak",
            "scripts", "docs", "deploy", "static/vendor", "locale"]  # fmt: skip


class Command(makemessages.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        options.update(locale=LANGUAGES, no_obsolete=True, add_location="file",
                       ignore_patterns=[*options["ignore_patterns"], *NOT_OURS])  # fmt: skip
        for domain in ("django", "djangojs"):
            super().handle(*args, **{**options, "domain": domain, "extensions": None})
