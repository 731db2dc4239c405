"""Passports sent by e-mail, for the web's side: the form, the limits that keep the portal from
relaying for anyone, and the job that sends (the `passport-mail` kind, portal.passports.tasks).

One form sent is one Mailing, under the form's one-time key, and one job: the form sent twice,
or its job run again or retried, sends one mail. Only passports of the memberships the user is a
contact of now are sent (checked here, and again by the job).
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.accounts import preferences
from portal.accounts.language import LANGUAGES
from portal.jobs import actions
from portal.lib.forms import Form
from portal.lib.printable import printable_lines
from portal.passports import contacts, listing
from portal.passports.models import Mailing, Passport
from portal.passports.tasks import passport_mail

NOTE_LIMIT = 500


# The languages a mail can be written in, each named in its own language (as the switch names
# them): the recipient, not the sender, reads it.
MAIL_LANGUAGES = [(code, LANGUAGES[code].name) for code, _name in settings.LANGUAGES]


class MailForm(Form):
    recipient = forms.EmailField(
        label=_("Send to"), max_length=254,
        help_text=_("One e-mail address: the haulier's, or the buyer's intake office."),
    )  # fmt: skip
    reply_to = forms.EmailField(
        label=_("Your e-mail address"), max_length=254,
        help_text=_("Replies go here. The mail comes from the portal and names you as its "
                    "sender."),
    )  # fmt: skip
    language = forms.ChoiceField(
        label=_("Language of the e-mail"), choices=MAIL_LANGUAGES, required=False,
        widget=forms.RadioSelect, help_text=_("The language the recipient reads."),
        error_messages={"invalid_choice": _("Choose English or Cymraeg.")},
    )  # fmt: skip
    note = forms.CharField(
        label=_("Message (optional)"), required=False, max_length=NOTE_LIMIT, strip=True,
        validators=[printable_lines],
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": NOTE_LIMIT}),
    )  # fmt: skip
    key = forms.UUIDField(widget=forms.HiddenInput)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["note"].help_text = gettext("Plain text, at most %(limit)s characters.") % {
            "limit": NOTE_LIMIT
        }
        self.fields["note"].error_messages["max_length"] = gettext(
            "The message is longer than %(limit)s characters: shorten it."
        ) % {"limit": NOTE_LIMIT}
        self.fields["key"].error_messages["invalid"] = self.fields["key"].error_messages[
            "required"
        ] = gettext("This form has expired: send it again.")

    def clean_language(self) -> str:
        """The language chosen; the page's, for a form sent without one."""
        return self.cleaned_data["language"] or page_language()

    @classmethod
    def blank(cls, request: HttpRequest) -> MailForm:
        """A new form, with a key of its own and the address for replies: the one this user
        keeps on their account's page; without one, the one they gave last time (their
        account's, if any, when they have sent none)."""
        kept = preferences.kept_address(request.user)
        last = Mailing.objects.filter(sender=request.user).values_list("sender_email", flat=True)
        reply_to = kept or last.first() or request.user.email
        return cls(initial={"key": uuid.uuid4(), "reply_to": reply_to, "language": page_language()})


def page_language() -> str:
    """The language of the page the form is on, as the mail's languages name it."""
    language = translation.get_language()
    return language if language in LANGUAGES else settings.LANGUAGE_CODE


def chosen(request: HttpRequest, typed: list[str]) -> tuple[list[Passport], str]:
    """The passports of these codes (ticked in the list, a passport's, a batch's), oldest
    first, and why they cannot be sent ("" if they can): none named, too many, or some that are
    not the business's (or no passport's)."""
    if not typed:
        return [], gettext("Choose the passports to send: tick them in your business's list, "
                           "or send one from its own page.")  # fmt: skip
    ticked = listing.ticked(listing.visible(contacts.memberships(request)), typed)
    limit = settings.PORTAL_BATCH_LIMIT
    if ticked.codes > limit:
        return [], gettext(
            "At most %(limit)s passports go in one mail: tick fewer and send them in parts."
        ) % {"limit": limit}
    passports = list(ticked.passports)
    if len(passports) != ticked.codes:
        return passports, gettext("Some of these passports are not among your business's "
                                  "passports and are left out.")  # fmt: skip
    return passports, ""


def refusal(request: HttpRequest, recipient: str) -> str:
    """Why a mail to `recipient` cannot be asked for now, or ""."""
    now = timezone.now()
    per_user = settings.PORTAL_MAILS_PER_USER_PER_HOUR
    hour = Mailing.objects.filter(sender=request.user, created__gt=now - timedelta(hours=1))
    asked = list(hour.order_by("created").values_list("created", flat=True))
    if len(asked) >= per_user:
        # Sending is allowed again an hour after the one whose passing leaves room.
        again = timezone.localtime(asked[len(asked) - per_user] + timedelta(hours=1))
        return gettext("Nothing was sent: you have asked for %(count)s mails in the last hour, "
                       "the most one person may. You can send again after %(time)s.") % {
            "count": per_user, "time": f"{again:%H:%M}",
        }  # fmt: skip
    per_recipient = settings.PORTAL_MAILS_PER_RECIPIENT_PER_DAY
    to_recipient = Mailing.objects.filter(recipient__iexact=recipient,
                                          created__gt=now - timedelta(days=1))  # fmt: skip
    if to_recipient.count() >= per_recipient:
        return gettext("Nothing was sent: %(address)s has been sent %(count)s mails from this "
                       "portal in the last day, the most one address may be sent. Try again "
                       "tomorrow, or send the PDF yourself.") % {
            "address": recipient, "count": per_recipient,
        }  # fmt: skip
    return ""


def send(request: HttpRequest, passports: list[Passport], form: MailForm) -> Mailing | str:
    """The mailing of `passports` the form asks for, its job queued (or the one this form's key
    made already); or why it cannot be sent (a limit reached)."""
    data = form.cleaned_data
    with transaction.atomic():
        # One user's requests in turn, so that two at once cannot both pass the hour's limit.
        get_user_model().objects.select_for_update().filter(pk=request.user.pk).first()
        same = Mailing.objects.filter(key=data["key"]).first()
        if same is not None:
            return same if same.sender_id == request.user.pk else gettext("This form has expired.")
        refused = refusal(request, data["recipient"])
        if refused:
            return refused
        mailing = Mailing.objects.create(
            key=data["key"], sender=request.user, sender_email=data["reply_to"],
            recipient=data["recipient"], note=data["note"], language=data["language"],
        )  # fmt: skip
        mailing.passports.set(passports)
        mailing.job = actions.start_job(
            request, passport_mail, lambda: _title(passports, data["recipient"]),
            {"mailing": mailing.pk, "site": request.build_absolute_uri("/")},
            dedupe_key=f"{passport_mail.name}:{mailing.key}",
        )  # fmt: skip
        mailing.save(update_fields=["job"])
    return mailing


def _title(passports: list[Passport], recipient: str) -> str:
    if len(passports) == 1:
        title = gettext("Passport %(code)s by e-mail to %(address)s") % {
            "code": passports[0].short_code, "address": recipient,
        }  # fmt: skip
    else:
        title = gettext("%(count)s passports by e-mail to %(address)s") % {
            "count": len(passports), "address": recipient,
        }  # fmt: skip
    return title[:200]


def sent_of(passport: Passport) -> list[Mailing]:
    """The mailings of `passport`, newest first, with their jobs."""
    return list(passport.mailings.select_related("job", "sender"))
