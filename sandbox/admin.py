"""The sandbox's admin: operators add schemes, suspend memberships, manage accounts."""

from django import forms
from django.contrib import admin

from sandbox import models


class AccountForm(forms.ModelForm):
    new_password = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Leave empty to keep the current password.",
    )

    class Meta:
        model = models.Account
        fields = ["username", "email", "is_active"]

    def clean(self):
        cleaned = super().clean()
        if not self.instance.pk and not cleaned.get("new_password"):
            self.add_error("new_password", "A new account needs a password.")
        return cleaned

    def save(self, commit=True):
        account = super().save(commit=False)
        if self.cleaned_data.get("new_password"):
            account.set_password(self.cleaned_data["new_password"])
        if commit:
            account.save()
        return account


@admin.register(models.Account)
class AccountAdmin(admin.ModelAdmin):
    form = AccountForm
    list_display = ["username", "email", "is_active", "created"]
    search_fields = ["username", "email"]


@admin.register(models.Credential)
class CredentialAdmin(admin.ModelAdmin):
    """Deleting a credential revokes it."""

    list_display = ["account", "kind", "created", "expires", "last_seen"]
    list_filter = ["kind"]
    readonly_fields = ["account", "kind", "digest", "created", "expires", "last_seen"]

    def has_add_permission(self, request):
        return False


@admin.register(models.LoginThrottle)
class LoginThrottleAdmin(admin.ModelAdmin):
    list_display = ["address", "failures", "locked_until"]


class ScopeInline(admin.TabularInline):
    model = models.Scope
    extra = 0


class AimInline(admin.TabularInline):
    model = models.Aim
    extra = 0


@admin.register(models.Edition)
class EditionAdmin(admin.ModelAdmin):
    list_display = ["scheme", "stage", "changed"]
    list_filter = ["stage"]
    inlines = [ScopeInline, AimInline]


class EditionInline(admin.TabularInline):
    model = models.Edition
    extra = 0
    readonly_fields = ["changed"]


@admin.register(models.Scheme)
class SchemeAdmin(admin.ModelAdmin):
    list_display = ["name", "guid"]
    search_fields = ["name", "guid"]
    inlines = [EditionInline]


@admin.register(models.Section)
class SectionAdmin(admin.ModelAdmin):
    list_display = ["__str__", "edition", "index", "content_changed"]
    list_filter = ["edition"]
    search_fields = ["name", "prefix", "guid"]


class AuditPointInline(admin.TabularInline):
    model = models.AuditPoint
    extra = 0


class AnswerInline(admin.TabularInline):
    model = models.Answer
    extra = 0


class LinkInline(admin.TabularInline):
    model = models.Link
    extra = 0


@admin.register(models.StandardPoint)
class StandardPointAdmin(admin.ModelAdmin):
    list_display = ["reference", "section", "revision_status", "score"]
    list_filter = ["section__edition", "revision_status"]
    search_fields = ["reference", "assessment_question"]
    list_select_related = ["section"]
    inlines = [AuditPointInline, AnswerInline, LinkInline]


class SiteInline(admin.StackedInline):
    model = models.Site
    extra = 0


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["business_name", "membership_number", "scheme_name", "status", "expiry_date"]
    list_filter = ["status", "scheme_name"]
    search_fields = ["business_name", "membership_number", "guid"]
    filter_horizontal = ["contacts"]
    inlines = [SiteInline]
    actions = ["suspend", "withdraw", "reinstate"]

    def _set_status(self, request, queryset, status: str) -> None:
        count = queryset.update(status=status)
        self.message_user(request, f"{count} membership(s) now {status}.")

    @admin.action(description="Suspend the selected memberships")
    def suspend(self, request, queryset):
        self._set_status(request, queryset, models.Membership.Status.SUSPENDED)

    @admin.action(description="Withdraw the selected memberships")
    def withdraw(self, request, queryset):
        self._set_status(request, queryset, models.Membership.Status.WITHDRAWN)

    @admin.action(description="Reinstate the selected memberships as valid")
    def reinstate(self, request, queryset):
        self._set_status(request, queryset, models.Membership.Status.VALID)


class StoreInline(admin.TabularInline):
    model = models.Store
    extra = 0


@admin.register(models.Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ["name", "membership", "postcode"]
    search_fields = ["name", "postcode", "guid"]
    inlines = [StoreInline]


@admin.register(models.Passport)
class PassportAdmin(admin.ModelAdmin):
    list_display = ["__str__", "business_name", "crop_type", "status", "created"]
    list_filter = ["status"]
    search_fields = ["short_code", "business_name"]
    raw_id_fields = ["membership", "site", "store", "created_by"]
