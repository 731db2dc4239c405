"""The mail the portal sent (passports by e-mail, portal.passports.mailing), as `make run`'s own
mail server kept it (a Maildir named by PORTAL_DEVELOPMENT_MAILBOX, set only where DEBUG or
PORTAL_DEVELOPMENT is on): a list of the mails, each with its headers, its text, its HTML part
and its attachments. For development only: nothing here is reachable in production, where
the setting is empty. Staff only, as the dashboard is (anyone else signed in gets 403, and
someone signed out the sign-in page): the mail holds every business's passports, their
recipients and codes."""

from __future__ import annotations

import base64
import mailbox
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import parsedate_to_datetime

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from portal.accounts.decorators import staff_only


@dataclass(frozen=True, slots=True)
class Kept:
    key: str
    message: EmailMessage

    @property
    def sent(self) -> object:
        try:
            return parsedate_to_datetime(self.message["Date"])
        except (TypeError, ValueError):
            return None

    @property
    def headers(self) -> list[tuple[str, str]]:
        names = ("From", "To", "Reply-To", "Subject", "Date", "Message-ID")
        return [(name, str(self.message[name])) for name in names if self.message[name]]

    @property
    def attachments(self) -> list[EmailMessage]:
        return list(self.message.iter_attachments())

    @property
    def attached(self) -> list[tuple[str, str]]:
        """Each attachment's file name and type (a template would read a part's headers)."""
        return [(part.get_filename() or "(unnamed)", part.get_content_type())
                for part in self.attachments]  # fmt: skip

    @property
    def text(self) -> str:
        body = self.message.get_body(("plain",))
        return body.get_content() if body else ""

    @property
    def has_html(self) -> bool:
        return self.message.get_body(("html",)) is not None


@require_safe
@staff_only
def mails(request: HttpRequest) -> HttpResponse:
    kept = sorted(_each(), key=lambda one: one.key, reverse=True)  # a key begins with its time
    return render(request, "passports/development/mail.html", {"mails": kept})


@require_safe
@staff_only
def mail(request: HttpRequest, key: str) -> HttpResponse:
    return render(request, "passports/development/one_mail.html", {"mail": _one(key)})


@require_safe
@staff_only
def html_part(request: HttpRequest, key: str) -> HttpResponse:
    """The mail's HTML as the recipient's mail reader would show it, its inline images (by
    Content-ID) in place; sandboxed, loading nothing from anywhere."""
    kept = _one(key)
    body = kept.message.get_body(("html",))
    if body is None:
        raise Http404("This mail has no HTML part.")
    html = body.get_content()
    for part in kept.attachments:
        content_id = (part["Content-ID"] or "").strip("<>")
        if content_id:
            data = base64.b64encode(part.get_content()).decode()
            html = html.replace(
                f"cid:{content_id}", f"data:{part.get_content_type()};base64,{data}"
            )
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = (
        "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    )
    return response


@require_safe
@staff_only
def attachment(request: HttpRequest, key: str, number: int) -> HttpResponse:
    attachments = _one(key).attachments
    if not 0 <= number < len(attachments):
        raise Http404("This mail has no such attachment.")
    part = attachments[number]
    response = HttpResponse(part.get_content(), content_type=part.get_content_type())
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=False, filename=part.get_filename() or f"attachment-{number}"
    )
    return response


def _box() -> mailbox.Maildir:
    if not settings.PORTAL_DEVELOPMENT_MAILBOX:
        raise Http404("No mail server of make run's keeps mail here.")
    return mailbox.Maildir(settings.PORTAL_DEVELOPMENT_MAILBOX, create=True)


def _each() -> list[Kept]:
    box = _box()
    return [Kept(key, _parsed(box, key)) for key in box.iterkeys()]


def _one(key: str) -> Kept:
    box = _box()
    try:
        return Kept(key, _parsed(box, key))
    except (KeyError, ValueError):
        raise Http404("No mail has this key.") from None


def _parsed(box: mailbox.Maildir, key: str) -> EmailMessage:
    return message_from_bytes(box.get_bytes(key), policy=policy.default)  # type: ignore[return-value]
