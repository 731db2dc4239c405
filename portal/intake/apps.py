from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "portal.intake"
    label = "intake"
    verbose_name = "Intake results"

    def ready(self) -> None:
        from portal.intake import clerkship, receivers  # noqa: F401  (connect their receivers)
