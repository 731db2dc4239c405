"""Many passports packed into one file for an export's job: a ZIP of their PDFs (stored as they
are: a PDF is compressed already), each named by its short code, with their records as
`passports.csv` and `passports.xlsx`; or one PDF of them all in order, for printing.

The PDFs are taken in order as they come (a few are asked for at once: portal.lib.bounded); the
ZIP is written to a file of its own as they come, never held whole in memory. A cancelled job
stops at the next passport.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import pypdf
from django.utils import timezone
from django.utils.translation import ngettext

from portal.jobs.tasks import Progress
from portal.passports import manifests
from portal.passports.models import Passport

type Fetched = Iterator[tuple[Passport, bytes | None]]


@dataclass
class Packed:
    name: str
    content_type: str
    file: IO[bytes]
    without_pdf: list[str] = field(default_factory=list)  # short codes


def zip_of(
    fetched: Fetched, progress: Progress, count: int, manifest: manifests.Manifest
) -> Packed:
    """A ZIP of the PDFs and both manifests of the passports (their rows read once for each).
    Its steps: each passport, then the manifests."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the job's file: closed once it is kept)
    packed = Packed(f"passports-{timezone.localdate():%Y-%m-%d}.zip", "application/zip", out)
    with zipfile.ZipFile(out, "w", allowZip64=True) as archive:
        for done, (passport, pdf) in enumerate(fetched, 1):
            if pdf is None:
                packed.without_pdf.append(passport.short_code)
            else:
                archive.writestr(_member(f"{passport.short_code}.pdf"), pdf)
            progress(done, count + 1)
        with archive.open(_member("passports.csv", zipfile.ZIP_DEFLATED), "w") as member:
            text = io.TextIOWrapper(member, encoding="utf-8-sig", newline="")
            manifests.write_csv(text, manifest)
            text.flush()
            text.detach()
        with tempfile.TemporaryFile() as xlsx:
            manifests.write_xlsx(xlsx, manifest)
            xlsx.seek(0)
            with archive.open(_member("passports.xlsx"), "w") as member:
                shutil.copyfileobj(xlsx, member)
    out.seek(0)
    return packed


def one_pdf(fetched: Fetched, progress: Progress, count: int) -> Packed:
    """One PDF of every passport's PDF in order, for printing."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the job's file: closed once it is kept)
    packed = Packed(f"passports-{timezone.localdate():%Y-%m-%d}.pdf", "application/pdf", out)
    writer = pypdf.PdfWriter()
    for done, (passport, pdf) in enumerate(fetched, 1):
        if pdf is None:
            packed.without_pdf.append(passport.short_code)
        else:
            writer.append(io.BytesIO(pdf))
        progress(done, count + 1)
    writer.write(out)
    out.seek(0)
    return packed


def left_out(not_theirs: int, without_pdf: list[str]) -> str:
    """What the job's page says of the passports the file lacks, or ""."""
    notes = []
    if not_theirs:
        notes.append(ngettext(
            "%(count)s passport was left out: you are no longer a registered contact of their "
            "membership.",
            "%(count)s passports were left out: you are no longer a registered contact of their "
            "membership.",
            not_theirs,
        ) % {"count": f"{not_theirs:,}"})  # fmt: skip
    if without_pdf:
        codes = ", ".join(without_pdf[:5]) + (", …" if len(without_pdf) > 5 else "")
        notes.append(ngettext(
            "%(count)s passport was without a PDF (%(codes)s): the Assurance service gives none "
            "while a membership's assurance claim is not valid.",
            "%(count)s passports were without a PDF (%(codes)s): the Assurance service gives none "
            "while a membership's assurance claim is not valid.",
            len(without_pdf),
        ) % {"count": f"{len(without_pdf):,}", "codes": codes})  # fmt: skip
    return " ".join(notes)


def _member(name: str, compression: int = zipfile.ZIP_STORED) -> zipfile.ZipInfo:
    member = zipfile.ZipInfo(name, date_time=timezone.localtime().timetuple()[:6])
    member.compress_type = compression
    return member
