"""The passports' pages, in each language (their look-up and checks: check_urls.py)."""

from django.urls import path

from portal.passports.views import (
    batch,
    create,
    development_mail,
    mail,
    passport,
    passports,
)

app_name = "passports"

urlpatterns = [
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
