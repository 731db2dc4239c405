"""The signed-in user, read from the cache rather than the database on every request."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

USER_CACHE_SECONDS = 5 * 60  # a bound on staleness should a change bypass the signals below


def _key(user_id: object) -> str:
    return f"accounts:user:{user_id}"


class CachedUserBackend(ModelBackend):
    """Django's model backend, whose `get_user` (called on every signed-in request) keeps the
    user in the shared cache. Any save or deletion of the user drops the cached copy, so that a
    user made inactive, or no longer staff, is seen so on their next request."""

    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        user = cache.get(_key(user_id))
        if user is None:
            user = super().get_user(user_id)
            if user is None:
                return None
            cache.set(_key(user.pk), user, USER_CACHE_SECONDS)
        return user if self.user_can_authenticate(user) else None


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts.forget_cached_user_saved")
@receiver(post_delete, sender=get_user_model(), dispatch_uid="accounts.forget_cached_user_gone")
def forget_cached_user(sender: type, instance: AbstractBaseUser, **kwargs: object) -> None:
    key = _key(instance.pk)
    cache.delete(key)
    # Again once the change is committed: a request between the two may have cached the row
    # as it was before (the admin saves inside a transaction).
    transaction.on_commit(lambda: cache.delete(key))
