"""The mail that carries passports (portal.passports.mailing), written on the worker: each
passport's PDF attached, its short code, a few of its fields by their printed labels (a passport
in brief, portal.passports.sheet), who made it and when, its look-up address and QR code in the
body, the business's name and who sent it; plain text and HTML, from the portal's address with
the sender's for replies. Its Message-ID is the mailing's own, so that a mail sent again is
known for the same. It is written in the language its sender chose on the form (its recipient,
a haulier or a buyer's office, has no account whose choice the portal knows)."""

from __future__ import annotations

import email.message
import io
from dataclasses import dataclass
from email.utils import make_msgid

import segno
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from portal.accounts.language import LANGUAGES
from portal.passports.models import Mailing, Passport
from portal.passports.sheet import Row, in_brief


@dataclass(frozen=True, slots=True)
class Carried:
    """A passport as the mail carries it: its PDF (None when the service gives none)."""

    passport: Passport
    pdf: bytes | None
    look_up: str
    qr_id: str  # the Content-ID of its QR code's image
    in_brief: list[Row]


def message_id(site: str) -> str:
    """A new Message-ID, in the portal's own domain."""
    domain = site.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or "localhost"
    return make_msgid("passports", domain=domain)


def mail_of(mailing: Mailing, fetched: list[tuple[Passport, bytes | None]], site: str) -> (
    EmailMultiAlternatives
):  # fmt: skip
    """The mail of `mailing`, carrying the `fetched` passports with their PDFs, written in the
    language its sender chose; `site` is the portal's address ("https://portal.example/"), for
    the look-up addresses."""
    with translation.override(mailing.language):
        return _mail_of(mailing, fetched, site)


def _mail_of(mailing: Mailing, fetched: list[tuple[Passport, bytes | None]], site: str) -> (
    EmailMultiAlternatives
):  # fmt: skip
    carried = [_carried(passport, pdf, site, position) for position, (passport, pdf)
               in enumerate(fetched)]  # fmt: skip
    businesses = sorted({c.passport.business_name for c in carried if c.passport.business_name})
    context = {
        "mailing": mailing, "carried": carried, "businesses": businesses,
        "sender": mailing.sender.get_username() if mailing.sender else "",
        "without_pdf": [c for c in carried if c.pdf is None],
        "mail_language": LANGUAGES.get(mailing.language, LANGUAGES["en-gb"]).tag,
    }  # fmt: skip
    mail = EmailMultiAlternatives(
        subject=_subject(carried, businesses),
        body=render_to_string("passports/mail/passports.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mailing.recipient],
        reply_to=[mailing.sender_email] if mailing.sender_email else [],
        headers={"Message-ID": mailing.message_id},
    )
    mail.attach_alternative(render_to_string("passports/mail/passports.html", context), "text/html")
    for one in carried:
        if one.pdf is not None:
            mail.attach(f"passport-{one.passport.short_code}.pdf", one.pdf, "application/pdf")
        mail.attach(_qr_image(one))
    return mail


def _carried(passport: Passport, pdf: bytes | None, site: str, position: int) -> Carried:
    look_up = site.rstrip("/") + reverse("checks:verdict", args=[passport.short_code])
    return Carried(passport, pdf, look_up, f"qr-{position}@passports", in_brief(passport))


def _subject(carried: list[Carried], businesses: list[str]) -> str:
    values = {"code": carried[0].passport.short_code, "count": len(carried),
              "businesses": ", ".join(businesses)}  # fmt: skip
    if len(carried) == 1:
        if businesses:
            return gettext("Crop passport %(code)s from %(businesses)s") % values
        return gettext("Crop passport %(code)s") % values
    if businesses:
        return gettext("%(count)s crop passports from %(businesses)s") % values
    return gettext("%(count)s crop passports") % values


def _qr_image(one: Carried) -> email.message.MIMEPart:
    """The passport's QR code as a PNG, shown in the HTML part by its Content-ID."""
    png = io.BytesIO()
    segno.make(one.look_up, error="m").save(png, kind="png", scale=4, border=4)
    part = email.message.MIMEPart()
    part.set_content(
        png.getvalue(), maintype="image", subtype="png", disposition="inline",
        filename=f"qr-{one.passport.short_code}.png", cid=f"<{one.qr_id}>",
    )  # fmt: skip
    return part
