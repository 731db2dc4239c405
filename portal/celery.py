"""The Celery app: jobs run on workers, configured from the Django settings (CELERY_*). Each
worker writes a heartbeat for /readyz (portal/operations/heartbeat.py), and its records carry
the id of the request that sent the job, in the portal's log format (portal/operations/logs.py).
With PROMETHEUS_MULTIPROC_DIR set, each process of its pool writes its metrics under the slot of
its index in the pool, which its replacement takes over (portal/operations/processes.py)."""

import os

from celery import Celery, signals

from portal.operations import heartbeat, logs, processes

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

signals.worker_ready.connect(heartbeat.start, weak=False)
signals.worker_shutting_down.connect(heartbeat.stop, weak=False)
signals.celeryd_init.connect(processes.name_the_worker, weak=False)
signals.worker_process_init.connect(processes.claim_pool_slot, weak=False)
signals.worker_process_shutdown.connect(processes.release_pool_slot, weak=False)
signals.before_task_publish.connect(logs.send_request_id, weak=False)
signals.task_prerun.connect(logs.take_request_id, weak=False)
signals.task_postrun.connect(logs.drop_request_id, weak=False)
signals.after_setup_logger.connect(logs.format_celery_handlers, weak=False)
signals.after_setup_task_logger.connect(logs.format_celery_handlers, weak=False)
