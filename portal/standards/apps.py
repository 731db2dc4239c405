from django.apps import AppConfig


class StandardsConfig(AppConfig):
    name = "portal.standards"
    label = "standards"
    verbose_name = "Standards"

    def ready(self) -> None:
        from portal.jobs.work import KINDS
        from portal.standards import jobs

        KINDS.update(jobs.KINDS)
