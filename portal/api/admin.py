"""API tokens in the admin: staff see every token, make one for a site (or a user), shown once on
the page after (rendered there and then, never kept in a cookie or the session), and revoke
them. A token is never changed nor removed: revoked (the action), it opens nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from portal.api import tokens
from portal.api.forms import LASTING
from portal.api.models import SITE_SCOPES, Scope, Token


class MakeTokenForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        label=gettext_lazy("Scopes"), choices=Scope.choices, widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("A site's token may only read and record loads."),
    )  # fmt: skip
    days = forms.TypedChoiceField(label=gettext_lazy("Expires after"), choices=LASTING, coerce=int,
                                  initial=90)  # fmt: skip

    class Meta:
        model = Token
        fields = ["site", "user", "name", "scopes"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if bool(cleaned.get("site")) == bool(cleaned.get("user")):
            raise forms.ValidationError(_("Choose a site or a user, one of them."))
        if cleaned.get("site") and set(cleaned.get("scopes") or ()) - set(SITE_SCOPES):
            self.add_error("scopes", _("A site's token may only read and record loads."))
        return cleaned


@admin.register(Token)
class TokenAdmin(admin.ModelAdmin):
    list_display = ["name", "site", "user", "created", "expires", "last_used", "revoked"]
    list_filter = [("site", admin.EmptyFieldListFilter), ("revoked", admin.EmptyFieldListFilter)]
    search_fields = ["name", "site__name", "site__code", "user__username"]
    list_select_related = ["site", "user"]
    readonly_fields = ["site", "user", "name", "scopes", "created", "expires", "last_used",
                       "revoked", "made_by"]  # fmt: skip
    actions = ["revoke"]

    def get_form(self, request: HttpRequest, obj: Token | None = None, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = MakeTokenForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Token | None = None) -> list[str]:
        return self.readonly_fields if obj is not None else []

    def get_fields(self, request: HttpRequest, obj: Token | None = None) -> list[str]:
        return self.readonly_fields if obj is not None else ["site", "user", "name", "scopes",
                                                             "days"]  # fmt: skip

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Token, form: Any, change: bool) -> None:
        if not change:
            obj.expires = timezone.now() + timedelta(days=form.cleaned_data["days"])
            obj.made_by = request.user.get_username()
            request.api_token = tokens.issue(obj, request)  # for response_add, this request's

    def response_add(
        self, request: HttpRequest, obj: Token, post_url_continue: str | None = None
    ) -> HttpResponse:
        messages.success(request, _("The token %(name)s: %(token)s")
                         % {"name": obj.name, "token": request.api_token})  # fmt: skip
        context = {**self.admin_site.each_context(request), "token": obj, "opts": self.opts,
                   "title": _("Token made: %(name)s") % {"name": obj.name}}  # fmt: skip
        return TemplateResponse(request, "admin/api/token/made.html", context)

    @admin.action(description=gettext_lazy("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[Token]) -> None:
        revoked = tokens.revoke(queryset, request)
        said = ngettext("%(count)s token(s) revoked: they open nothing now.",
                        "%(count)s token(s) revoked: they open nothing now.", revoked)  # fmt: skip
        self.message_user(request, said % {"count": revoked}, messages.SUCCESS)
