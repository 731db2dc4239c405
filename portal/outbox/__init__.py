"""The outbox of signed webhooks: endpoints, the events written in the transaction of the change
that caused them, a delivery row per endpoint, and the worker's sending (docs/webhooks.md)."""
