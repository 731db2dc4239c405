"""The Celery app of the worker the tests start (`celery -A tests.portal.jobs.worker_app
worker`): the portal's own, with the tests' job kind registered."""

from portal.celery import app
from tests.portal.jobs import kinds  # noqa: F401 (registers the tests' kind)

__all__ = ["app"]
