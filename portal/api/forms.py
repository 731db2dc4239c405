"""The form that makes a token, on a user's page and on a site's: its name, its scopes (a site's
only the intake's), and how long it holds (at most a year)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from portal.api.models import SITE_SCOPES, Scope
from portal.api.tokens import LONGEST_DAYS
from portal.lib.forms import Form
from portal.lib.printable import printable

LASTING = [(7, _("7 days")), (30, _("30 days")), (90, _("90 days")), (LONGEST_DAYS, _("A year"))]


class TokenForm(Form):
    name = forms.CharField(
        label=_("Name"), max_length=100, validators=[printable],
        help_text=_("What it is for, to tell it apart: Farm records, Weighbridge."),
        error_messages={"required": _("Name the token: what it is for.")},
    )  # fmt: skip
    scopes = forms.MultipleChoiceField(
        label=_("What it may do"), widget=forms.CheckboxSelectMultiple, choices=Scope.choices,
        error_messages={"required": _("Choose at least one thing it may do.")},
    )  # fmt: skip
    days = forms.TypedChoiceField(
        label=_("Expires after"), choices=LASTING, coerce=int, initial=90,
        help_text=_("At most a year: make another before it ends."),
    )  # fmt: skip

    def __init__(self, *args: Any, for_a_site: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if for_a_site:
            self.fields["scopes"].choices = [(s.value, s.label) for s in SITE_SCOPES]
            self.fields["scopes"].initial = [s.value for s in SITE_SCOPES]

    @property
    def expires(self) -> datetime:
        return timezone.now() + timedelta(days=self.cleaned_data["days"])
