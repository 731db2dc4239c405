from django.core.management.base import BaseCommand, CommandError

from sandbox import generate


class Command(BaseCommand):
    help = (
        "Adds the benchmark data: a live scheme 'Benchmark Standards' with many standard points "
        "and many passports of 'Benchmark Farms Ltd'. What already exists is left as it is."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--points",
            type=int,
            default=generate.DEFAULT_POINTS,
            help="standard points in the scheme (default %(default)s)",
        )
        parser.add_argument(
            "--passports",
            type=int,
            default=generate.DEFAULT_PASSPORTS,
            help="passports of the benchmark membership (default %(default)s)",
        )

    def handle(self, *args, points: int, passports: int, **options) -> None:
        try:
            created = generate.generate(points=points, passports=passports)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if created:
            self.stdout.write("Created " + ", ".join(created) + ".")
        else:
            self.stdout.write("The benchmark data is already there.")
