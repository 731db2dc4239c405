"""What the staff dashboard reads of the Assurance service, recorded as the portal calls it: the
calls of each minute by operation (how many, how many failed, and how many fell in each band of
time taken), and the last errors. Kept PORTAL_METRICS_DAYS, pruned by the periodic sweep, so the
dashboard's work does not grow with the calls ever made."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class ServiceCalls(models.Model):
    """The calls of one minute, of one operation, made by one writer (a thread of a process):
    no two writers ever wait on one row, and the dashboard adds them up. Once an hour is two
    hours old, the sweep folds its rows into one an operation (`minute` the hour's start, the
    writer "hourly": recording.fold). A column for each band of time a call took, as
    portal/operations/call_bands.py names them (at most 50 ms, ..., slower)."""

    minute = models.DateTimeField(_("minute"))
    operation = models.CharField(_("operation"), max_length=40)
    writer = models.CharField(_("writer"), max_length=40)
    calls = models.PositiveIntegerField(_("calls"), default=0)
    errors = models.PositiveIntegerField(_("errors"), default=0)
    under_50 = models.PositiveIntegerField(_("at most 50 ms"), default=0)
    under_100 = models.PositiveIntegerField(_("at most 100 ms"), default=0)
    under_250 = models.PositiveIntegerField(_("at most 250 ms"), default=0)
    under_500 = models.PositiveIntegerField(_("at most 500 ms"), default=0)
    under_1000 = models.PositiveIntegerField(_("at most 1,000 ms"), default=0)
    under_2500 = models.PositiveIntegerField(_("at most 2,500 ms"), default=0)
    under_5000 = models.PositiveIntegerField(_("at most 5,000 ms"), default=0)
    slower = models.PositiveIntegerField(_("slower than 5,000 ms"), default=0)

    class Meta:
        verbose_name = _("service calls of a minute")
        verbose_name_plural = _("service calls")
        constraints = [
            models.UniqueConstraint(
                fields=["minute", "operation", "writer"], name="one_row_a_minute_a_writer"
            )
        ]
        indexes = [models.Index(fields=["-minute"])]

    def __str__(self) -> str:
        return f"{self.operation} at {self.minute:%Y-%m-%d %H:%M}: {self.calls} calls"


class ServiceError(models.Model):
    at = models.DateTimeField(_("at"), db_index=True)
    operation = models.CharField(_("operation"), max_length=40)
    status = models.PositiveSmallIntegerField(_("status"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=60)

    class Meta:
        verbose_name = _("service error")
        verbose_name_plural = _("service errors")
        ordering = ["-at"]

    def __str__(self) -> str:
        return f"{self.operation} at {self.at:%Y-%m-%d %H:%M:%S}: {self.outcome}"


class PeriodicRun(models.Model):
    """When a periodic task that Celery beat sends last finished (the sweep: periodic.py). In the
    database, which every portal process reads cheaply and which outlives a Redis restarted
    empty; one row a task, written at its end."""

    task = models.CharField(_("task"), max_length=60, primary_key=True)
    finished = models.DateTimeField(_("finished"))

    class Meta:
        verbose_name = _("periodic run")
        verbose_name_plural = _("periodic runs")

    def __str__(self) -> str:
        return f"{self.task} finished at {self.finished:%Y-%m-%d %H:%M:%S}"
