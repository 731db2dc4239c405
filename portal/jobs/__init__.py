"""Background jobs: one model, one Celery task, one progress fragment for every slow task."""
