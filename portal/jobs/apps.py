from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules
from django.utils.translation import gettext_lazy as _


class JobsConfig(AppConfig):
    name = "portal.jobs"
    label = "jobs"
    verbose_name = _("Jobs")

    def ready(self) -> None:
        from portal.jobs.collectors import JobsCollector
        from portal.operations import collectors

        # Every app's kinds of job (its tasks module) in Celery's registry in every process,
        # not only in workers: a page finds a job's task by its kind (Job.task).
        autodiscover_modules("tasks")
        # The jobs and the queue, read afresh at each scrape of /metrics.
        collectors.read_at_scrape(JobsCollector())
