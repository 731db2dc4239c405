"""Background jobs: one model, one base task for every kind (tasks.py, the worker's side),
starting, cancelling and resuming them (actions.py, the web's side), one progress fragment."""
