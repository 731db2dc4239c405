"""The passports the portal has recorded, and the mailings of them, in Django's admin: to read
and find (they are the service's records and the mail's history, not to be edited here)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy

from portal.assurance.passport_fields import FIELDS
from portal.lib.admin import ReadOnlyAdmin
from portal.passports.models import Mailing, Passport


@admin.register(Passport)
class PassportAdmin(ReadOnlyAdmin):
    list_display = ("short_code", "business_name", "crop_type", "loaded", "made_by", "origin",
                    "created")  # fmt: skip
    list_filter = ("origin", "crop_type", "harvest_year", "created")
    search_fields = ("short_code", "business_name", "membership_guid")
    list_select_related = ("made_by",)
    date_hierarchy = "created"
    list_per_page = 50  # as the business's list

    @admin.display(description=FIELDS["loading_date"].label, ordering="loading_date")
    def loaded(self, passport: Passport) -> str:
        """The loading date, a calendar day as every page writes it (not a moment)."""
        return FIELDS["loading_date"].shown(passport.loading_date)


@admin.register(Mailing)
class MailingAdmin(ReadOnlyAdmin):
    list_display = ("created", "sender", "recipient", "passport_count", "sent")
    list_filter = ("created", "sent")
    search_fields = ("recipient", "sender__username", "message_id")
    list_select_related = ("sender",)
    date_hierarchy = "created"
    exclude = ("passports", "sender_email")
    readonly_fields = ("codes", "replies_to")

    @admin.display(description=gettext_lazy("Replies to (the sender's e-mail address)"))
    def replies_to(self, mailing: Mailing) -> str:
        return mailing.sender_email

    @admin.display(description=gettext_lazy("Passports"))
    def passport_count(self, mailing: Mailing) -> int:
        return mailing.passports.count()

    @admin.display(description=gettext_lazy("Short codes"))
    def codes(self, mailing: Mailing) -> str:
        return ", ".join(p.short_code for p in mailing.passports_in_order())
