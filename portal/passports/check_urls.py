"""The addresses anyone may use, signed in or not, which are printed on paper and in QR codes:
one address in every language, written in the person's choice (portal/accounts/language.py)."""

from django.urls import path
from django.views.generic import RedirectView

from portal.passports.views import checker, gate_check, lookup, signed

app_name = "checks"

urlpatterns = [
    # Anyone's, signed in or not: the look-up by short code, and many codes checked at the gate
    # (before the verdict's address, which takes any path).
    path("p/", lookup.look_up, name="lookup"),
    path("p/check", gate_check.check, name="check"),
    path("p/check/", RedirectView.as_view(pattern_name="checks:check")),
    path("p/check/<slug:check_id>", gate_check.checked, name="checked"),
    path("p/check/<slug:check_id>.csv", gate_check.checked_csv, name="checked-csv"),
    path("p/<path:code>", lookup.passport_verdict, name="verdict"),
    # A passport's signed code, as its QR code holds it (`HTTPS://<HOST>/V/<code>`), and the
    # public keys that verify it.
    # The offline checker: its page (the shell its worker answers /V/<code> with offline), what
    # installs it, and its service worker, whose scope is /V/.
    path("V/", checker.checker, name="checker"),
    path("V/manifest.webmanifest", checker.manifest, name="checker-manifest"),
    path("V/worker.js", checker.worker, name="checker-worker"),
    path("V/<path:payload>", signed.signed_check, name="signed"),
    path(".well-known/passport-keys.json", signed.passport_keys, name="keys"),
]  # fmt: skip
