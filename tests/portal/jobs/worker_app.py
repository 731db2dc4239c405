"""The Celery app of the worker the tests start (`celery -A tests.portal.jobs.worker_app
worker`): the portal's own, with the tests' job kind registered."""

from portal.celery import app
from portal.jobs.work import KINDS
from tests.portal.jobs.kinds import KIND, scheme_references

KINDS[KIND] = scheme_references

__all__ = ["app"]
