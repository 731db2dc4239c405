from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "portal.intake"
    label = "intake"
    verbose_name = "Intake results"

    def ready(self) -> None:
        from portal.intake import clerkship  # noqa: F401 (connects its signal receivers)
