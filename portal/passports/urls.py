from django.urls import path
from django.views.generic import RedirectView

from portal.passports.views import (
    batch,
    checker,
    create,
    development_mail,
    gate_check,
    lookup,
    mail,
    passport,
    passports,
    signed,
)

app_name = "passports"

urlpatterns = [
    # Anyone's, signed in or not: the look-up by short code, and many codes checked at the gate
    # (before the verdict's address, which takes any path).
    path("p/", lookup.look_up, name="lookup"),
    path("p/check", gate_check.check, name="check"),
    path("p/check/", RedirectView.as_view(pattern_name="passports:check")),
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
    # Contacts of a passport's membership only.
    path("passports/", passports.passport_list, name="list"),
    path("passports/add", passports.add, name="add"),
    path("passports/export", passports.export, name="export"),
    path("passports/send", mail.send, name="send"),
    path("passports/new", create.create, name="create"),
    path("passports/new/<uuid:submission>/", create.being_made, name="being-made"),
    path("passports/batch/<uuid:batch>/codes", batch.batch_codes, name="batch-codes"),
    path("passports/<str:code>/", passport.passport, name="passport"),
    path("passports/<str:code>/pdf", passport.pdf, name="pdf"),
    path("passports/<str:code>/pdf/state", passport.pdf_state, name="pdf-state"),
    # The mail `make run`'s own mail server kept (404 unless PORTAL_DEVELOPMENT_MAILBOX is set),
    # for staff.
    path("development/mail/", development_mail.mails, name="development-mail"),
    path("development/mail/<str:key>/", development_mail.mail, name="development-mail-one"),
    path("development/mail/<str:key>/html", development_mail.html_part,
         name="development-mail-html"),
    path("development/mail/<str:key>/<int:number>", development_mail.attachment,
         name="development-mail-attachment"),
]  # fmt: skip
