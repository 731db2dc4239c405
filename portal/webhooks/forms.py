"""The webhooks pages' forms: an endpoint (its owner, address, events and description), and
"Send again all that failed since" a day."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from portal.lib.forms import Form
from portal.lib.printable import printable
from portal.outbox import addresses, endpoints
from portal.outbox.models import URL_LONGEST, EventType
from portal.webhooks.access import Choice


def _chosen_types() -> list[tuple[str, str]]:
    """The kinds of event an endpoint may be sent, each with its words (in the page's
    language: the choices are read as the form is shown)."""
    return [(t.value, f"{t.value}: {t.label}") for t in EventType if t != EventType.PING]


class EndpointForm(Form):
    owner = forms.ChoiceField(label=_("Whose events"))
    url = forms.CharField(
        label=_("Address"), max_length=URL_LONGEST, strip=True,
        help_text=_("An https:// address of your software that takes the events (POST, JSON)."),
        widget=forms.URLInput(attrs={"maxlength": URL_LONGEST, "autocomplete": "off"}),
    )  # fmt: skip
    event_types = forms.MultipleChoiceField(
        label=_("Events"), choices=_chosen_types, widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Choose at least one kind of event to be sent.")},
    )  # fmt: skip
    description = forms.CharField(
        label=_("Description (optional)"), max_length=200, required=False, strip=True,
        validators=[printable], help_text=_("What takes these events: Farm records, say."),
    )  # fmt: skip

    def __init__(self, *args: object, owners: list[Choice], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.owners = {choice.key: choice for choice in owners}
        self.fields["owner"].choices = [(c.key, c.name) for c in owners]
        self.fields["url"].error_messages["max_length"] = gettext(
            "An address may be at most %(most)s characters long."
        ) % {"most": f"{URL_LONGEST:,}"}

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        try:
            addresses.target(url)
        except addresses.Refused as refused:
            raise ValidationError(str(refused)) from None
        return url

    def clean(self) -> dict:
        cleaned = super().clean()
        if "owner" in cleaned:
            most = settings.PORTAL_WEBHOOK_ENDPOINTS_PER_OWNER
            if endpoints.enabled_of(self.chosen_owner.owner) >= most:
                self.add_error("owner", gettext("%(owner)s has %(most)s endpoints enabled, the "
                                                "most it may: disable one first.")
                               % {"owner": self.chosen_owner.name, "most": most})  # fmt: skip
        return cleaned

    @property
    def chosen_owner(self) -> Choice:
        return self.owners[self.cleaned_data["owner"]]


class FailedSinceForm(Form):
    since = forms.DateField(
        label=_("Failed since"), widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Every event since the start of this day whose delivery failed is sent again."),
    )  # fmt: skip

    def clean_since(self) -> object:
        since = self.cleaned_data["since"]
        today = timezone.localdate()
        if since > today:
            raise ValidationError(gettext("Choose today or a day before."))
        if since < today - timedelta(days=settings.PORTAL_WEBHOOK_EVENT_DAYS):
            raise ValidationError(
                ngettext(
                    "Events are kept %(days)s day: choose a later day.",
                    "Events are kept %(days)s days: choose a later day.",
                    settings.PORTAL_WEBHOOK_EVENT_DAYS,
                )
                % {"days": settings.PORTAL_WEBHOOK_EVENT_DAYS}
            )
        return since
