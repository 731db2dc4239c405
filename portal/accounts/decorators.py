"""Who may open a view, said once for the views that share the rule."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse


def staff_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The view for the portal's staff: someone signed out is sent to sign in, anyone else
    signed in is answered 403."""

    @wraps(view)
    @login_required
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied("This page is for the portal's staff.")
        return view(request, *args, **kwargs)

    return checked
