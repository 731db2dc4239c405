from django.apps import AppConfig
from django.db.models.signals import post_save
from django.utils.translation import gettext_lazy as _


class IntakeConfig(AppConfig):
    name = "portal.intake"
    label = "intake"
    verbose_name = _("Intake results")

    def ready(self) -> None:
        from portal.intake import (  # noqa: F401
            announcing,
            clerkship,
            exporting,
            listing_results,
            notifying,
            receivers,
        )
        from portal.intake.loads import many_recorded
        from portal.intake.models import LoadEntry
        from portal.passports import listing, manifests

        # Each load recorded or corrected is mailed to its passport's maker.
        post_save.connect(notifying.entry_added, sender=LoadEntry,
                          dispatch_uid="intake.mail_the_maker")  # fmt: skip
        many_recorded.connect(notifying.entries_recorded, dispatch_uid="intake.mail_the_makers")
        # Each entry added is a webhook event for the site and the passport's business.
        post_save.connect(announcing.entry_added, sender=LoadEntry,
                          dispatch_uid="intake.webhook_events")  # fmt: skip
        many_recorded.connect(announcing.entries_recorded, dispatch_uid="intake.webhook_events")
        # The figures of each passport's latest load go in the business's exports.
        manifests.columns_added.connect(exporting.columns, dispatch_uid="intake.export_figures")
        # The result of each passport's latest load in the business's list, and its filter.
        listing.results_offered.connect(listing_results.results, dispatch_uid="intake.list_results")
