"""The Celery app of the worker the tests start (`celery -A tests.portal.jobs.worker_app
worker`): the portal's own, with the tests' job kind (tests/portal/jobs/kinds.py) found as the
portal's kinds are, once Django is set up."""

from portal.celery import app

app.autodiscover_tasks(["tests.portal.jobs"], related_name="kinds")

__all__ = ["app"]
