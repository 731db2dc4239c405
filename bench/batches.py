"""A batch of 50 passports against the same 50 made one by one through the create form, and
against the service's 50 create calls one after another.

    python -m bench batches

Starts what bench/passports.py starts (a sandbox, the portal under gunicorn and its Celery
worker, on PostgreSQL and Redis database 13), in a benchmark of its own so that each stays
within the time `make bench` gives one (600 s), and measures the batches as its docstring says:
the three in turn, 15 rounds. Targets (issue 37): the median of the rounds' ratios of the
batch's time at most 1.0 to the 50 through the form, and at most 1.6 to the create calls.
"""

from __future__ import annotations

from bench import passports


def main() -> None:
    passports.measured(batches=True)


if __name__ == "__main__":
    main()
