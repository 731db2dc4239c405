"""What a user keeps on their account's page (`/accounts/you/`): the e-mail address for replies to
the passports they send, which is also the one the portal writes to them at; and whether they
are e-mailed the intake results of the passports they made (on until they turn it off); and
the language of their pages and mail (portal/accounts/language.py), none until they choose.

The rest of the portal asks here, never the row itself: `reply_address` for the passport mail
form's default, `intake_mail_address` for the intake results' mail (portal.intake.notifying),
`mail_address` for the portal's other mail to the user (portal.api.reminders).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.accounts.models import Preferences
from portal.lib.forms import ModelForm


def of(user: AbstractBaseUser) -> Preferences:
    """The user's preferences: their row, or the defaults (unsaved) until they save the page."""
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def kept_address(user: AbstractBaseUser) -> str:
    """The address the user gave on their account's page, or "" if they gave none."""
    return Preferences.objects.filter(user=user).values_list("email", flat=True).first() or ""


def mail_address(user: AbstractBaseUser) -> str:
    """Where the portal writes to the user: the address they gave on their account's page, or
    their account's; "" if it knows neither."""
    return kept_address(user) or user.email or ""


def language(user: AbstractBaseUser) -> str:
    """The language the user chose, or "" if they have not chosen one."""
    return Preferences.objects.filter(user=user).values_list("language", flat=True).first() or ""


def intake_mail_address(user: AbstractBaseUser) -> str:
    """Where the intake results of the passports the user made are mailed: "" when they turned
    it off, or the portal knows no address of theirs."""
    chosen = of(user)
    if not chosen.intake_mail:
        return ""
    return chosen.email or user.email or ""


class PreferencesForm(ModelForm):
    """The account's page: an address (or none, for the account's own), the intake mail, and a
    language (until one is chosen, the page's)."""

    language = forms.ChoiceField(
        label=_("Language of your pages and e-mails"), choices=settings.LANGUAGES,
        widget=forms.RadioSelect, required=False,
        error_messages={"invalid_choice": _("Choose English or Cymraeg.")},
    )  # fmt: skip

    def clean_language(self) -> str:
        """The language chosen; none sent (software posting the form): the one kept."""
        return self.cleaned_data["language"] or self.instance.language

    class Meta:
        model = Preferences
        fields = ["email", "intake_mail", "language"]
        labels = {
            "email": _("Your e-mail address"),
            "intake_mail": _("E-mail me the intake results of passports I made"),
        }
        error_messages = {
            "email": {
                "invalid": _(
                    "Enter an e-mail address in the form name@example.com, or leave it empty to "
                    "use your account's."
                ),
                "max_length": _(
                    "An e-mail address has at most 254 characters: check what you typed."
                ),
            },
        }
        widgets = {"email": forms.EmailInput(attrs={"autocomplete": "email"})}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        account = self.instance.user.email
        if account:
            self.fields["email"].help_text = gettext(
                "Replies to the passports you send by e-mail go here, and the portal writes to "
                "you here. Leave it empty to use your account's address, %(address)s."
            ) % {"address": account}
        else:
            self.fields["email"].help_text = gettext(
                "Replies to the passports you send by e-mail go here, and the portal writes to "
                "you here. Your account has no address the portal knows of."
            )
        self.fields["intake_mail"].help_text = gettext(
            "When a buyer's intake records or corrects the weight, quality or decision of a "
            "load of a passport you made: the short code, site, decision and net weight, with "
            "a link to the passport."
        )
        if not self.instance.language:
            self.initial["language"] = translation.get_language()
