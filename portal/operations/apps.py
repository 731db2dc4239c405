from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "portal.operations"
    label = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        from portal.assurance.service import call_reported
        from portal.operations import metrics, recording

        call_reported.connect(metrics.upstream_call_reported, dispatch_uid="operations.upstream")
        # And for the staff dashboard, by minute in the database (portal/operations/recording.py).
        call_reported.connect(recording.call_reported, dispatch_uid="operations.recorded")
