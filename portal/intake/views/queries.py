"""A grower's query of a load's result (`/intake/loads/<id>/query`), a clerk's answer or
stand-by (`/intake/loads/<id>/answer`), and a query's laboratory certificate
(`/intake/loads/<id>/certificate/<entry id>`). Each for those it is for only: the query for the
contacts of the passport's membership, the answer for the clerks of the load's site, the
certificate for both; anyone else (signed in or not) gets 404, as for a load that is not there.

The query's form is on the passport's page, in each load of "At intake"; with htmx it is sent
back there, in place, with what is wrong; without JavaScript the answer is a page of its own
with the form. The same for the clerk's form, in their load's page. The certificate's size is
held to its limit as the body arrives: a larger file is skipped, not kept, and a body far
larger is refused before it is read."""

from __future__ import annotations

from django.contrib import messages
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from portal.intake import access, changes, queries
from portal.intake.models import Load, LoadEntry
from portal.lib.htmx import wants_fragment

QUERY_PAGE = "intake/query.html"
QUERY_FORM = "intake/query_form.html"
ANSWER_PAGE = "intake/answer.html"
ANSWER_FORM = "intake/answer_form.html"
# A body this much larger than the certificate's limit is refused unread; one between the two
# is read, its certificate skipped as it arrives, and the words kept for the form.
BODY_MOST_BYTES = 2 * queries.CERTIFICATE_MOST_BYTES


class CertificateLimit(FileUploadHandler):
    """Passes the certificate on to Django's own handlers while it is within its limit; skips
    it (and any other file) once it is not, so that no more of it is kept."""

    def __init__(self, request: HttpRequest) -> None:
        super().__init__(request)
        self.too_large = False

    def new_file(self, field_name: str, *args: object, **kwargs: object) -> None:
        if field_name != "certificate":
            raise SkipFile
        super().new_file(field_name, *args, **kwargs)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > queries.CERTIFICATE_MOST_BYTES:
            self.too_large = True
            raise SkipFile
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def _load(load_id: int) -> Load:
    return get_object_or_404(Load.objects.select_related("site", "passport"), pk=load_id)


def _load_for_grower(request: HttpRequest, load_id: int) -> Load:
    load = _load(load_id)
    if not access.is_growers(request, load):
        raise Http404("No load is here.")
    return load


def _load_for_clerk(request: HttpRequest, load_id: int) -> Load:
    load = _load(load_id)
    if not access.is_clerk(request.user, load.site):
        raise Http404("No load is here.")
    return load


# --- the grower's query ---------------------------------------------------------------------------


@csrf_exempt  # the certificate's limit is set before the body is read; CSRF is checked after
@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def query(request: HttpRequest, load_id: int) -> HttpResponse:
    load = _load_for_grower(request, load_id)
    if request.method != "POST":
        return _query_page(request, load, queries.QueryForm(load))
    if int(request.META.get("CONTENT_LENGTH") or 0) > BODY_MOST_BYTES:
        form = queries.QueryForm(load, {}, unread=True)
        return _query_page(request, load, form, status=413)
    limit = CertificateLimit(request)
    request.upload_handlers.insert(0, limit)
    return _query_sent(request, load, limit)


@csrf_protect
def _query_sent(request: HttpRequest, load: Load, limit: CertificateLimit) -> HttpResponse:
    form = queries.QueryForm(load, request.POST, request.FILES, too_large=limit.too_large)
    if not form.is_valid():
        return _query_page(request, load, form, status=400)
    try:
        queries.ask(load, by=request.user.get_username(), words=form.cleaned_data["words"],
                    certificate=form.cleaned_data["certificate"])  # fmt: skip
    except queries.AlreadyOpen:
        messages.info(request, gettext("This result is queried already: the answer shows here."))
    else:
        messages.success(request, gettext(
            "Your query is sent to %(site)s. Their answer shows here, in the load's history."
        ) % {"site": load.site.name})  # fmt: skip
    return _back(request, _passport_page(load))


def _query_page(
    request: HttpRequest, load: Load, form: queries.QueryForm, status: int = 200
) -> HttpResponse:
    context = _with_history(load) | {"query_form": form, "passport_page": _passport_page(load)}
    template = QUERY_FORM if wants_fragment(request) else QUERY_PAGE
    return render(request, template, context, status=status)


def _with_history(load: Load) -> dict[str, object]:
    """The load, its history with what each correction changed, and its query still open."""
    history = list(load.entries.all())
    return {"load": load, "steps": changes.history(history, load.passport.crop_type),
            "open_query": queries.open_query(history)}  # fmt: skip


def _passport_page(load: Load) -> str:
    """The passport's page, at its top where the message shows (with htmx, an address with a
    #fragment of the page already open would scroll, not load it again)."""
    return reverse("passports:passport", args=[load.passport.short_code])


# --- the clerk's answer ---------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def answer(request: HttpRequest, load_id: int) -> HttpResponse:
    load = _load_for_clerk(request, load_id)
    if request.method != "POST":
        return _answer_page(request, load, None)
    form = queries.AnswerForm(load, request.POST)
    if not form.is_valid():
        return _answer_page(request, load, form, status=400)
    try:
        queries.reply(load, by=request.user.get_username(), words=form.cleaned_data["words"],
                      stand_by=form.stands_by)  # fmt: skip
    except queries.NotOpen:
        messages.info(request, gettext("This load has no query open: it was answered meanwhile."))
    else:
        messages.success(request, _replied(form.stands_by))
    return _back(request, reverse("intake:load", args=[load.pk]))


def _replied(stands_by: bool) -> str:
    if stands_by:
        return gettext("The grower sees that the result stands on the passport's page.")
    return gettext("The grower sees your answer on the passport's page.")


def _answer_page(
    request: HttpRequest, load: Load, form: queries.AnswerForm | None, status: int = 200
) -> HttpResponse:
    context = _with_history(load) | {"answer_form": form}
    template = ANSWER_FORM if wants_fragment(request) else ANSWER_PAGE
    return render(request, template, context, status=status)


# --- the certificate ------------------------------------------------------------------------------


@require_safe
def certificate(request: HttpRequest, load_id: int, entry_id: int) -> HttpResponse:
    """A query's certificate, as a download, to the grower and the site's clerks."""
    load = _load(load_id)
    if not (access.is_clerk(request.user, load.site) or access.is_growers(request, load)):
        raise Http404("No load is here.")
    entry = get_object_or_404(LoadEntry, pk=entry_id, load=load, kind=LoadEntry.Kind.QUERIED)
    if not entry.certificate:
        raise Http404("This query has no certificate.")
    try:
        opened = entry.certificate.open("rb")
    except FileNotFoundError:
        raise Http404("This certificate has gone.") from None
    name = f"certificate-{load.ticket.replace('/', '-')}-{entry.pk}.pdf"
    response = FileResponse(opened, as_attachment=True, filename=name,
                            content_type="application/pdf")  # fmt: skip
    response["X-Content-Type-Options"] = "nosniff"
    return response


# --- shared ---------------------------------------------------------------------------------------


def _back(request: HttpRequest, to: str) -> HttpResponse:
    if wants_fragment(request):
        return HttpResponseClientRedirect(to)
    return HttpResponseRedirect(to, status=303)
