from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AuditConfig(AppConfig):
    name = "portal.audit"
    label = "audit"
    verbose_name = _("Audit trail")

    def ready(self) -> None:
        from portal.audit import receivers  # noqa: F401 (connects the signals it listens to)
