from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OperationsConfig(AppConfig):
    name = "portal.operations"
    label = "operations"
    verbose_name = _("Operations")

    def ready(self) -> None:
        from portal.assurance.service import call_reported
        from portal.operations import metrics, recording

        call_reported.connect(metrics.upstream_call_reported, dispatch_uid="operations.upstream")
        # And for the staff dashboard, by minute in the database (portal/operations/recording.py).
        call_reported.connect(recording.call_reported, dispatch_uid="operations.recorded")
