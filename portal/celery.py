"""The Celery app: jobs run on workers, configured from the Django settings (CELERY_*). Each
worker writes a heartbeat for /readyz (portal/jobs/heartbeat.py), and its records carry the id
of the request that sent the job, in the portal's log format (portal/logs.py)."""

import os

from celery import Celery, signals

from portal import logs
from portal.jobs import heartbeat

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

signals.worker_ready.connect(heartbeat.start, weak=False)
signals.worker_shutting_down.connect(heartbeat.stop, weak=False)
signals.before_task_publish.connect(logs.send_request_id, weak=False)
signals.task_prerun.connect(logs.take_request_id, weak=False)
signals.task_postrun.connect(logs.drop_request_id, weak=False)
signals.after_setup_logger.connect(logs.format_celery_handlers, weak=False)
signals.after_setup_task_logger.connect(logs.format_celery_handlers, weak=False)
