from django.core.management.base import BaseCommand

from sandbox.demo import loader


class Command(BaseCommand):
    help = "Loads the sandbox's demo data; what already exists is left as it is."

    def handle(self, *args, **options) -> None:
        loaded = loader.load()
        if loaded:
            self.stdout.write("Loaded " + ", ".join(loaded) + ".")
        else:
            self.stdout.write("The demo data is already loaded.")
