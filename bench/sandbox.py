"""The sandbox under load of realistic size: section data of 300 points, and the passport PDF.

    python -m bench.sandbox

Starts a sandbox of its own (a fresh SQLite database in a temporary directory, the demo data and
`generate_large_data` with its defaults, gunicorn on a free loopback port), then measures:

- section data for the benchmark's 300-point section BM.BX over HTTP, in JSON and in XML, with a
  bearer token from one login (target: median under 30 ms);
- a passport PDF over HTTP (for information), and in this process `render_passport_pdf(record)`
  against a bare WeasyPrint render of the same HTML (target: at most 1.3 times the bare render).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections import Counter
from contextlib import closing

from bench.common import (
    BENCH_POINTS,
    BENCH_PREFIX,
    REQUEST_TIMEOUT,
    SCHEME_GUID,
    Sandbox,
    Target,
    Timing,
    heading,
    machine_load,
    ms,
    print_table,
    print_targets,
    running_sandbox,
    size,
    time_calls,
)

SECTION_WARMUP, SECTION_REQUESTS = 5, 50
PDF_WARMUP, PDF_RENDERS = 2, 20

SECTION_MEDIAN_MS = 30.0
PDF_RATIO = 1.3

FORMATS = {"JSON": "application/json", "XML": "text/xml"}


class _Warnings(logging.Handler):
    """Counts a library's warnings instead of printing one per render."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        self.seen[record.getMessage()] += 1

    def summary(self) -> list[str]:
        return [f"{count} x {message}" for message, count in self.seen.most_common(3)]


_weasyprint_warnings = _Warnings()


def main() -> None:
    heading("bench.sandbox: section data and passport PDF")
    print(f"Machine before: {machine_load()}")
    with running_sandbox() as sandbox:
        _print_setup(sandbox)
        session = sandbox.session()
        session.headers["Authorization"] = f"Bearer {sandbox.token()}"
        section_path = f"/v1/standards/{SCHEME_GUID}/{BENCH_PREFIX}.eb"
        http_rows, targets = [], []
        for name, media_type in FORMATS.items():
            timing, n_bytes = _time_get(
                session,
                sandbox.endpoint(section_path),
                media_type,
                SECTION_REQUESTS,
                SECTION_WARMUP,
            )
            http_rows.append(_row(f"GET section {BENCH_PREFIX} ({name})", timing, n_bytes))
            targets.append(Target(f"section data {name}, median", timing.median, SECTION_MEDIAN_MS))

        _use_sandbox_database(sandbox)
        code = _benchmark_passport_code()
        pdf_http, pdf_bytes = _time_get(
            session,
            sandbox.endpoint(f"/v1/passports/{code}.eb"),
            "application/pdf",
            PDF_RENDERS,
            PDF_WARMUP,
        )
        http_rows.append(_row("GET passport PDF", pdf_http, pdf_bytes))

        # In this process, while the sandbox idles (it has no requests to answer meanwhile).
        pdf_rows, bare, ours = _pdf_renders(code)
    targets.append(
        Target(
            "render_passport_pdf / bare WeasyPrint, median",
            ours.median / bare.median,
            PDF_RATIO,
            unit="x",
            inclusive=True,
        )
    )

    print(f"\nOver HTTP (sequential, one keep-alive connection, bearer token, {FORMATS['JSON']}"
          f" and {FORMATS['XML']}):")  # fmt: skip
    print_table(["request", "n", "median", "p95", "min", "size"], http_rows)
    print("\nPassport PDF in-process:")
    print_table(["render", "n", "median", "p95", "min", "size"], pdf_rows)
    print(f"\nHTTP passport PDF median {ms(pdf_http.median)} (for information: render plus "
          f"request, authentication and the passport's query).")  # fmt: skip
    print(f"Machine after: {machine_load()}")
    if _weasyprint_warnings.seen:
        print("WeasyPrint warned in this process:", *_weasyprint_warnings.summary(), sep="\n  ")
    print()
    print_targets(targets)


def _print_setup(sandbox: Sandbox) -> None:
    steps = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in sandbox.setup_seconds.items())
    print(f"Sandbox at {sandbox.url} ({sandbox.workers} gunicorn workers, SQLite); set-up: {steps}")
    with closing(sqlite3.connect(f"file:{sandbox.database}?mode=ro", uri=True)) as db:
        points, passports = (
            db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
            for table in ("sandbox_standardpoint", "sandbox_passport")
        )
    print(f"Database: {points} standard points, {passports} passports")


def _row(name: str, timing: Timing, n_bytes: int | None) -> list[str]:
    return [
        name,
        str(timing.n),
        ms(timing.median),
        ms(timing.p95),
        ms(timing.minimum),
        size(n_bytes) if n_bytes is not None else "",
    ]


def _time_get(session, url: str, media_type: str, count: int, warmup: int) -> tuple[Timing, int]:
    """Times `count` GETs of `url` accepting `media_type`; checks the answer once."""
    sizes = []

    def get() -> None:
        response = session.get(url, headers={"Accept": media_type}, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise RuntimeError(f"GET {url} answered {response.status_code}: {response.text[:300]}")
        sizes.append(len(response.content))

    get()
    _check_answer(session, url, media_type)
    return time_calls(get, count, warmup), sizes[-1]


def _check_answer(session, url: str, media_type: str) -> None:
    response = session.get(url, headers={"Accept": media_type}, timeout=REQUEST_TIMEOUT)
    if media_type == "application/json":
        points = len(response.json()["StandardPoints"])
        if points != BENCH_POINTS:
            raise RuntimeError(f"section {BENCH_PREFIX} has {points} points, not {BENCH_POINTS}")
    elif media_type == "application/pdf" and not response.content.startswith(b"%PDF-"):
        raise RuntimeError("the passport did not come as a PDF")


# --- in this process ------------------------------------------------------------------------------


def _use_sandbox_database(sandbox: Sandbox) -> None:
    """Sets Django up in this process with the sandbox's settings and database."""
    os.environ["SANDBOX_DATABASE_URL"] = sandbox.database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "sandbox.settings"
    import django

    django.setup()
    weasyprint = logging.getLogger("weasyprint")
    weasyprint.propagate = False
    weasyprint.addHandler(_weasyprint_warnings)


def _benchmark_passport_code() -> str:
    from sandbox.generate import passport_code

    return passport_code(0)


def _pdf_renders(code: str) -> tuple[list[list[str]], Timing, Timing]:
    from weasyprint import HTML

    from sandbox.models import Passport
    from sandbox.pdf import BASE_URL, PackageURLFetcher, passport_html, render_passport_pdf

    passport = Passport.objects.select_related("membership", "site", "store").get(short_code=code)
    record = passport.to_record()
    page_html = passport_html(record)
    fetcher = PackageURLFetcher()

    def bare_render() -> bytes:
        return HTML(string=page_html, base_url=BASE_URL, url_fetcher=fetcher).write_pdf()

    bare_pdf, our_pdf = bare_render(), render_passport_pdf(record)
    bare = time_calls(bare_render, PDF_RENDERS, PDF_WARMUP)
    ours = time_calls(lambda: render_passport_pdf(record), PDF_RENDERS, PDF_WARMUP)
    rows = [
        _row("bare weasyprint.HTML(passport_html).write_pdf()", bare, len(bare_pdf)),
        _row("render_passport_pdf(record)", ours, len(our_pdf)),
    ]
    return rows, bare, ours


if __name__ == "__main__":
    main()
