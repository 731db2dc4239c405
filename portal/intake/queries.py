"""A grower's query of a load's result, and the intake's reply: the grower says why (and may
attach the laboratory's certificate, a PDF); a clerk of the site answers it, stands by the result,
or corrects it (portal.intake.loads.correct). Each is an entry of the load's history of its own;
nothing is edited in place.

A query is open from the grower's entry until the next answer, stand-by or correction: one
query open at a time, so that the grower asks again once they have an answer, and two clerks
never both answer one query. A certificate is checked to be a PDF by what is in it (it begins
with `%PDF-`), not by its name, and kept in the default storage under a name no one can guess."""

from __future__ import annotations

import io
import secrets
from collections.abc import Iterable
from typing import Any

import pypdf
from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.intake.models import Load, LoadEntry
from portal.lib.forms import Form
from portal.lib.printable import printable_lines

CERTIFICATE_MOST_BYTES = 5 * 1024 * 1024
WORDS_MOST = 2_000
# The kinds of entry that close an open query.
REPLIES = (LoadEntry.Kind.ANSWERED, LoadEntry.Kind.STOOD_BY, LoadEntry.Kind.CORRECTED)
# Bytes from the end of a file within which a PDF has its end marker.
PDF_ENDS = 1024


class NotOpen(Exception):
    """The load has no query open to answer (answered by another clerk meanwhile)."""


class AlreadyOpen(Exception):
    """The load's result is queried already, and not yet answered."""


def open_query(history: Iterable[LoadEntry]) -> LoadEntry | None:
    """The query still open in a load's `history` (its entries in order), if any."""
    query = None
    for entry in history:
        if entry.kind == LoadEntry.Kind.QUERIED:
            query = entry
        elif entry.kind in REPLIES:
            query = None
    return query


def open_query_of(load: Load) -> LoadEntry | None:
    """The load's open query, read from the database."""
    latest = (load.entries.filter(kind__in=(LoadEntry.Kind.QUERIED, *REPLIES))
              .order_by("-at", "-pk").first())  # fmt: skip
    return latest if latest is not None and latest.kind == LoadEntry.Kind.QUERIED else None


def ask(load: Load, *, by: str, words: str, certificate: UploadedFile | None) -> LoadEntry:
    """The grower's query of the load's result, with the certificate (checked already) kept.
    Raises AlreadyOpen while an earlier query waits for its answer."""
    stored = _store(certificate) if certificate is not None else ""
    try:
        with transaction.atomic():
            _lock(load)
            if open_query_of(load) is not None:
                raise AlreadyOpen(f"{load} is queried already.")
            return LoadEntry.objects.create(load=load, kind=LoadEntry.Kind.QUERIED, by=by,
                                            words=words, certificate=stored)  # fmt: skip
    except BaseException:
        if stored:
            _storage().delete(stored)
        raise


def reply(load: Load, *, by: str, words: str, stand_by: bool) -> LoadEntry:
    """A clerk's answer to the load's open query, or their word that the result stands.
    Raises NotOpen when no query is open."""
    kind = LoadEntry.Kind.STOOD_BY if stand_by else LoadEntry.Kind.ANSWERED
    with transaction.atomic():
        _lock(load)
        if open_query_of(load) is None:
            raise NotOpen(f"{load} has no query open.")
        return LoadEntry.objects.create(load=load, kind=kind, by=by, words=words)


def _lock(load: Load) -> None:
    """Holds the load's row until the transaction ends: one reply (or query) at a time."""
    Load.objects.select_for_update().filter(pk=load.pk).first()


def _storage() -> Any:
    return LoadEntry._meta.get_field("certificate").storage


def _store(certificate: UploadedFile) -> str:
    """Keeps the certificate under a name no one can guess (never the grower's own); its name
    in the storage."""
    field = LoadEntry._meta.get_field("certificate")
    name = field.generate_filename(None, f"{secrets.token_urlsafe(24)}.pdf")
    certificate.seek(0)
    return _storage().save(name, certificate, max_length=field.max_length)


# --- the forms ------------------------------------------------------------------------------------


def certificate_problem(certificate: UploadedFile) -> str | None:
    """What is wrong with a certificate, in the grower's words; None for a PDF that opens. By
    its content: its name and the browser's content type say nothing of it."""
    if certificate.size > CERTIFICATE_MOST_BYTES:
        return too_large_message()
    content = certificate.read()
    if not content.startswith(b"%PDF-"):  # nothing of another kind before it
        return gettext(
            "This file is not a PDF, whatever its name says: attach the certificate as a PDF."
        )
    if b"%%EOF" not in content[-PDF_ENDS:]:
        return gettext(
            "This PDF is cut short: attach the whole file (download it again if need be)."
        )
    return _unreadable(content)


def _unreadable(content: bytes) -> str | None:
    try:
        reader = pypdf.PdfReader(io.BytesIO(content))
        if reader.is_encrypted and not reader.decrypt(""):
            return gettext(
                "This PDF is locked with a password: attach a copy that opens without one."
            )
        if len(reader.pages) == 0:
            return gettext("This PDF has no pages: attach the certificate itself.")
    # A damaged file fails in any of pypdf's ways, not only its own errors.
    except Exception:
        return gettext(
            "This PDF is damaged and does not open: attach a good copy of the certificate."
        )
    return None


def too_large_message() -> str:
    most = CERTIFICATE_MOST_BYTES // (1024 * 1024)
    return gettext(
        "The certificate is larger than %(most)s MB: attach a smaller PDF (scanned at a lower "
        "resolution, or only its pages of results)."
    ) % {"most": most}


def _words_help() -> str:
    return gettext("At most %(most)s characters.") % {"most": f"{WORDS_MOST:,}"}


def _query_help() -> str:
    return gettext(
        "What you think is wrong, and what your own tests found. At most %(most)s characters."
    ) % {"most": f"{WORDS_MOST:,}"}


def _certificate_help() -> str:
    return gettext("A PDF of at most %(most)s MB.") % {
        "most": CERTIFICATE_MOST_BYTES // (1024 * 1024)
    }


WORDS_HELP = lazy(_words_help, str)()


class QueryForm(Form):
    """The grower's query: why, and the laboratory's certificate if they have one.
    `too_large`: the certificate was refused as it arrived, larger than allowed; `unread`: the
    whole sending was, too large to read, words and all."""

    words = forms.CharField(
        label=_("Why you query this result"), max_length=WORDS_MOST,
        help_text=lazy(_query_help, str)(),
        error_messages={"required": _("Say why you query this result.")},
        widget=forms.Textarea(attrs={"rows": 4}), validators=[printable_lines],
    )  # fmt: skip
    certificate = forms.FileField(
        label=_("Laboratory certificate (if you have one)"), required=False,
        help_text=lazy(_certificate_help, str)(),
        error_messages={"empty": _("This file is empty: attach the certificate's PDF.")},
        widget=forms.FileInput(attrs={"accept": "application/pdf,.pdf"}),
    )  # fmt: skip

    def __init__(
        self, load: Load, *args: Any, too_large: bool = False, unread: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, auto_id=ids_of(load, "query"), **kwargs)
        self.too_large = too_large or unread
        if unread:
            self.fields["words"].error_messages["required"] = gettext(
                "Write your query again: with so large a file, nothing you sent was read."
            )

    def clean_certificate(self) -> UploadedFile | None:
        if self.too_large:
            raise forms.ValidationError(too_large_message())
        certificate = self.cleaned_data.get("certificate")
        if certificate and (problem := certificate_problem(certificate)):
            raise forms.ValidationError(problem)
        return certificate or None


ACTIONS = {"answer": False, "stand-by": True}  # the button pressed: whether it stands by


class AnswerForm(Form):
    """A clerk's reply to a query: an answer, or why the result stands. Words are required for
    both: the grower asked why, and a stand-by without a reason tells them nothing."""

    words = forms.CharField(
        label=_("Your answer"), max_length=WORDS_MOST, help_text=WORDS_HELP,
        error_messages={"required": _("Write your answer, or why the result stands.")},
        widget=forms.Textarea(attrs={"rows": 4}), validators=[printable_lines],
    )  # fmt: skip
    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS], required=False, error_messages={
        "invalid_choice": _("Press Answer or Stand by the result.")})  # fmt: skip

    def __init__(self, load: Load, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, auto_id=ids_of(load, "answer"), **kwargs)

    @property
    def stands_by(self) -> bool:
        """Stand by was pressed (anything else, or Enter in the box, answers)."""
        return ACTIONS.get(self.cleaned_data.get("action") or "answer", False)


def ids_of(load: Load, form: str) -> str:
    """Ids of a form's fields of their own, for a page with several loads' forms."""
    return f"{form}-{load.pk}-%s"
