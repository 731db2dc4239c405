"""Intake sites in the admin: staff make them, name their clerks and keep their specifications
(the tokens their software sends loads with are the API's: portal/api/admin.py). Loads and their
histories are shown, never changed here: clerks record them."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from portal.intake import quality
from portal.intake.models import IntakeSite, Load, LoadEntry, Specification


class SpecificationForm(forms.ModelForm):
    """A specification of one of the crop's parameters, chosen from the crop's (grouped by crop,
    so that the list works without JavaScript); any other is refused, as it would match no
    load's result."""

    parameter = forms.ChoiceField(
        label=gettext_lazy("Parameter"),
        choices=[("", "---------")] + [
            (quality.CROP_NAMES[crop], [(p.key, p.label) for p in parameters])
            for crop, parameters in quality.PARAMETERS.items()
        ],
        help_text=gettext_lazy("One of the crop's quality parameters, as the clerks' form records "
                               "them."),
    )  # fmt: skip

    class Meta:
        model = Specification
        fields = ["crop", "parameter", "lowest", "highest"]

    def clean(self) -> dict[str, object]:
        cleaned = super().clean()
        crop, key = cleaned.get("crop"), cleaned.get("parameter")
        if crop and key and quality.parameter(crop, key) is None:
            measured = ", ".join(str(p.label) for p in quality.parameters_of(crop))
            self.add_error(
                "parameter",
                _("This parameter is not measured for %(crop)s: choose one of %(measured)s.")
                % {"crop": str(quality.CROP_NAMES[crop]).lower(), "measured": measured},
            )
        return cleaned


class SpecificationInline(admin.TabularInline):
    model = Specification
    form = SpecificationForm
    extra = 1
    # Each record and correction keeps the specification it was judged against.
    verbose_name_plural = gettext_lazy(
        "Specifications: loads recorded or corrected from now on are judged against them"
    )


@admin.register(IntakeSite)
class IntakeSiteAdmin(admin.ModelAdmin):
    list_display = ["name", "buyer_business", "code"]
    search_fields = ["name", "buyer_business", "code"]
    filter_horizontal = ["clerks"]
    inlines = [SpecificationInline]


class EntryInline(admin.TabularInline):
    model = LoadEntry
    fields = ["kind", "at", "by", "words", "figures", "specification", "verdict", "certificate"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Load)
class LoadAdmin(admin.ModelAdmin):
    list_display = ["ticket", "site", "passport", "net_kg", "decision", "created"]
    list_filter = ["decision", "site"]
    search_fields = ["ticket", "passport__short_code"]
    list_select_related = ["site", "passport"]
    list_per_page = 50
    inlines = [EntryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
