from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PassportsConfig(AppConfig):
    name = "portal.passports"
    verbose_name = _("Passports")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from portal.operations import logs
        from portal.passports.listing import forget_offered
        from portal.passports.logs import masked_path
        from portal.passports.models import Passport

        # The portal's record of each request writes its path with the short code masked.
        logs.mask_paths_with(masked_path)
        post_save.connect(forget_offered, sender=Passport, dispatch_uid="passports.offered")
        post_delete.connect(forget_offered, sender=Passport, dispatch_uid="passports.offered")
