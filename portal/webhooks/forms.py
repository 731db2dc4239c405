"""The webhooks pages' forms: an endpoint (its owner, address, events and description), and
"Send again all that failed since" a day."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from portal.lib.printable import printable
from portal.outbox import addresses, endpoints
from portal.outbox.models import URL_LONGEST, EventType
from portal.webhooks.access import Choice

CHOSEN_TYPES = [(t.value, f"{t.value}: {t.label}") for t in EventType if t != EventType.PING]


class EndpointForm(forms.Form):
    owner = forms.ChoiceField(label="Whose events")
    url = forms.CharField(
        label="Address", max_length=URL_LONGEST, strip=True,
        help_text="An https:// address of your software that takes the events (POST, JSON).",
        widget=forms.URLInput(attrs={"maxlength": URL_LONGEST, "autocomplete": "off"}),
    )  # fmt: skip
    event_types = forms.MultipleChoiceField(
        label="Events", choices=CHOSEN_TYPES, widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one kind of event to be sent."},
    )  # fmt: skip
    description = forms.CharField(
        label="Description (optional)", max_length=200, required=False, strip=True,
        validators=[printable], help_text="What takes these events: Farm records, say.",
    )  # fmt: skip

    def __init__(self, *args: object, owners: list[Choice], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.owners = {choice.key: choice for choice in owners}
        self.fields["owner"].choices = [(c.key, c.name) for c in owners]
        self.fields["url"].error_messages["max_length"] = (
            f"An address may be at most {URL_LONGEST:,} characters long."
        )

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
                self.add_error("owner", f"{self.chosen_owner.name} has {most} endpoints enabled, "
                                        "the most it may: disable one first.")  # fmt: skip
        return cleaned

    @property
    def chosen_owner(self) -> Choice:
        return self.owners[self.cleaned_data["owner"]]


class FailedSinceForm(forms.Form):
    since = forms.DateField(
        label="Failed since", widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Every event since the start of this day whose delivery failed is sent again.",
    )  # fmt: skip

    def clean_since(self) -> object:
        since = self.cleaned_data["since"]
        today = timezone.localdate()
        if since > today:
            raise ValidationError("Choose today or a day before.")
        if since < today - timedelta(days=settings.PORTAL_WEBHOOK_EVENT_DAYS):
            raise ValidationError(
                f"Events are kept {settings.PORTAL_WEBHOOK_EVENT_DAYS} days: choose a later day."
            )
        return since
