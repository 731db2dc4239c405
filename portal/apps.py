from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = "Assurance portal"

    def ready(self) -> None:
        from portal import celery  # noqa: F401 (configures the app tasks are sent with)
