"""Intake sites in the admin: staff make them, name their clerks and keep their specifications,
and make and revoke the tokens their software sends loads with (each token shown once, when it
is made: only its hash is kept). Loads and their histories are shown, never changed here: clerks
record them."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from portal.intake import door, quality
from portal.intake.models import IntakeSite, Load, LoadEntry, SiteToken, Specification


class SpecificationForm(forms.ModelForm):
    """A specification of one of the crop's parameters, chosen from the crop's (grouped by crop,
    so that the list works without JavaScript); any other is refused, as it would match no
    load's result."""

    parameter = forms.ChoiceField(
        choices=[("", "---------")] + [
            (crop.capitalize(), [(p.key, p.label) for p in parameters])
            for crop, parameters in quality.PARAMETERS.items()
        ],
        help_text="One of the crop's quality parameters, as the clerks' form records them.",
    )  # fmt: skip

    class Meta:
        model = Specification
        fields = ["crop", "parameter", "lowest", "highest"]

    def clean(self) -> dict[str, object]:
        cleaned = super().clean()
        crop, key = cleaned.get("crop"), cleaned.get("parameter")
        if crop and key and quality.parameter(crop, key) is None:
            measured = ", ".join(p.label for p in quality.parameters_of(crop))
            self.add_error("parameter", f"This parameter is not measured for {crop}: choose one "
                                        f"of {measured}.")  # fmt: skip
        return cleaned


class SpecificationInline(admin.TabularInline):
    model = Specification
    form = SpecificationForm
    extra = 1
    # Each record and correction keeps the specification it was judged against.
    verbose_name_plural = (
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


@admin.register(SiteToken)
class SiteTokenAdmin(admin.ModelAdmin):
    """A token is made here with its site and a name; the page after shows it, once, in a
    message (rendered there and then, never kept in a cookie or the session). A token is never
    changed nor removed: revoked (the action), it opens nothing."""

    list_display = ["name", "site", "created", "last_used", "revoked"]
    list_filter = ["site", ("revoked", admin.EmptyFieldListFilter)]
    search_fields = ["name", "site__name", "site__code"]
    list_select_related = ["site"]
    fields = ["site", "name", "created", "last_used", "revoked"]
    readonly_fields = ["created", "last_used", "revoked"]
    actions = ["revoke"]

    def get_readonly_fields(self, request: HttpRequest, obj: SiteToken | None = None) -> list[str]:
        return self.fields if obj is not None else self.readonly_fields

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: SiteToken, form: object, change: bool) -> None:
        if not change:
            request.intake_token = door.issue(obj, request)  # for response_add, this request's

    def response_add(
        self, request: HttpRequest, obj: SiteToken, post_url_continue: str | None = None
    ) -> HttpResponse:
        messages.success(request, f"The token of {obj}: {request.intake_token}")
        context = {**self.admin_site.each_context(request), "token": obj, "opts": self.opts,
                   "title": f"Token made: {obj.name}"}  # fmt: skip
        return TemplateResponse(request, "admin/intake/sitetoken/made.html", context)

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[SiteToken]) -> None:
        revoked = door.revoke(queryset, request)
        self.message_user(request, f"{revoked} token(s) revoked: they open nothing now.",
                          messages.SUCCESS)  # fmt: skip
