"""Signing in with an Assurance account, and the signed-in user read from the cache rather than
the database on every request."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest

from portal.accounts import lockout, service_lockout
from portal.accounts.session import ACCOUNT, AUTHORIZATION, FAILURE, portal_user
from portal.assurance import records
from portal.assurance.client import BearerToken
from portal.assurance.errors import AuthenticationFailed, UnexpectedResponse
from portal.assurance.service import client
from portal.lib.client_address import client_address

USER_CACHE_SECONDS = 5 * 60  # a bound on staleness should a change bypass the signals below


class AssuranceBackend(ModelBackend):
    """Authenticates with the Assurance service (its login, kept from locking anyone out by
    portal.accounts.service_lockout), after django-axes's backend has let the attempt through.

    The service's token is left on the request (session.AUTHORIZATION) for the session to
    keep, with the account the service gave for it (session.ACCOUNT); a failure
    returns None, so that Django signals it and axes counts it, and leaves the service's answer
    on the request (session.FAILURE: a wrong password, or its warning).
    Anything else (the portal's limits, the service's lockout, the service out of reach) is
    raised.

    `get_user` (called on every signed-in request) keeps the user in the shared cache. Any save
    or deletion of the user drops the cached copy, so that a user made inactive, or no longer
    staff, is seen so on their next request."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: object,
    ) -> AbstractBaseUser | None:
        if request is None or username is None or password is None:
            return None
        known = lockout.known_password(request, {"username": username, "password": password})
        try:
            authorization = service_lockout.login(
                username, password, client_address=client_address(request), known=known
            )
        except AuthenticationFailed as failure:
            setattr(request, FAILURE, failure)
            setattr(request, lockout.KNOWN, False)  # counted: no longer a known password
            return None
        setattr(request, AUTHORIZATION, authorization)
        account = _account(BearerToken(authorization.token))
        setattr(request, ACCOUNT, account)
        return _mirror(username, account.username)

    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        user = cache.get(_key(user_id))
        if user is None:
            user = super().get_user(user_id)
            if user is None:
                return None
            cache.set(_key(user.pk), user, USER_CACHE_SECONDS)
        return user if self.user_can_authenticate(user) else None


def _account(token: BearerToken) -> records.Authorisation:
    """The account as the service says it: its own username (the user may have typed the
    e-mail address) and its memberships.

    Without the username the sign-in fails: naming the user by what they typed could make a
    second local user for one account.
    """
    authorisation: records.Authorisation = client().authorisation(token)
    if not authorisation.username:
        raise UnexpectedResponse("The service did not say the account's username.")
    return authorisation


def _mirror(entered: str, username: str) -> AbstractBaseUser:
    user = portal_user(username)
    changed = []
    if "@" in entered and user.email != entered:
        user.email = entered
        changed.append("email")
    if user.has_usable_password():
        user.set_unusable_password()
        changed.append("password")
    if changed:
        user.save(update_fields=changed)
    return user


def _key(user_id: object) -> str:
    return f"accounts:user:{user_id}"


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts.forget_cached_user_saved")
@receiver(post_delete, sender=get_user_model(), dispatch_uid="accounts.forget_cached_user_gone")
def forget_cached_user(sender: type, instance: AbstractBaseUser, **kwargs: object) -> None:
    key = _key(instance.pk)
    cache.delete(key)
    # Again once the change is committed: a request between the two may have cached the row
    # as it was before (the admin saves inside a transaction).
    transaction.on_commit(lambda: cache.delete(key))
