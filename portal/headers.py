"""Headers of the portal's own, beside Django's security headers: signed-in pages are never
kept by a browser's or a proxy's cache, and no page may use the browser features that the
portal does not use."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

# What a signed-in page sends unless its view says otherwise: no copy outside the one response
# (a shared computer's back button or disk cache, a proxy).
SIGNED_IN_CACHE_CONTROL = "private, no-store"

# Every feature off. Passports' QR codes are read by a phone's own camera app, which opens the
# look-up page; only the intake check's page (`/p/check`) reads them itself, and its view allows
# the camera (and autoplay, to show its picture) for that page alone (`permissions_policy`). A
# page that comes to need a feature allows it so, as `feature=(self)`.
DENIED_FEATURES = (
    "accelerometer",
    "autoplay",
    "camera",
    "display-capture",
    "fullscreen",
    "geolocation",
    "gyroscope",
    "hid",
    "idle-detection",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "publickey-credentials-get",
    "screen-wake-lock",
    "serial",
    "usb",
    "xr-spatial-tracking",
)


def permissions_policy(*allowed: str) -> str:
    """The Permissions-Policy with the `allowed` features on for the page's own origin."""
    return ", ".join(
        f"{feature}=(self)" if feature in allowed else f"{feature}=()"
        for feature in DENIED_FEATURES
    )


PERMISSIONS_POLICY = permissions_policy()


class HeadersMiddleware:
    """Adds Permissions-Policy to every response, and Cache-Control to signed-in ones."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if _signed_in(request):
            response.headers.setdefault("Cache-Control", SIGNED_IN_CACHE_CONTROL)
        return response


def _signed_in(request: HttpRequest) -> bool:
    # No user when a middleware before authentication answered (a static file, a redirect).
    user = getattr(request, "user", None)
    return bool(user and user.is_authenticated)
