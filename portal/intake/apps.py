from django.apps import AppConfig
from django.db.models.signals import post_save


class IntakeConfig(AppConfig):
    name = "portal.intake"
    label = "intake"
    verbose_name = "Intake results"

    def ready(self) -> None:
        from portal.intake import notifying
        from portal.intake.models import LoadEntry

        # Each load recorded or corrected is mailed to its passport's maker.
        post_save.connect(notifying.entry_added, sender=LoadEntry,
                          dispatch_uid="intake.mail_the_maker")  # fmt: skip
