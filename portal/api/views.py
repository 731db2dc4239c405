"""The pages of API tokens: "Your account → API tokens" (`/accounts/you/tokens/`), where a user
makes their own, and a site's tokens (`/intake/sites/<code>/tokens/`), made and revoked by its
clerks. A token made is shown on the page that answers the form, once: never kept, never sent
again. Revoked tokens stay listed, marked so. Anyone else's tokens are not found."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from portal.api import tokens
from portal.api.forms import TokenForm
from portal.api.models import Token
from portal.intake import clerking
from portal.intake.models import IntakeSite


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def yours(request: HttpRequest) -> HttpResponse:
    listed = tokens.of_user(request.user)
    form = TokenForm(request.POST if request.method == "POST" else None)
    return _page(request, request.user, listed, form, reverse("tokens:yours"))


@require_POST
@login_required
def revoke_yours(request: HttpRequest, pk: int) -> HttpResponseRedirect:
    return _revoked(request, tokens.of_user(request.user), pk, reverse("tokens:yours"))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def site(request: HttpRequest, site: str) -> HttpResponse:
    found = clerking.site_of_clerk(request.user, site)
    form = TokenForm(request.POST if request.method == "POST" else None, for_a_site=True)
    return _page(request, found, tokens.of_site(found), form, reverse("tokens:site", args=[site]))


@require_POST
@login_required
def revoke_site_token(request: HttpRequest, site: str, pk: int) -> HttpResponseRedirect:
    found = clerking.site_of_clerk(request.user, site)
    return _revoked(request, tokens.of_site(found), pk, reverse("tokens:site", args=[site]))


def _page(
    request: HttpRequest, owner: object, listed: object, form: TokenForm, address: str
) -> HttpResponse:
    """The page of `owner`'s tokens; for a form sent and valid, the token made and shown."""
    made = None
    if form.is_bound and form.is_valid():
        chosen = form.cleaned_data
        token, secret = tokens.make(owner, name=chosen["name"], scopes=chosen["scopes"],
                                    expires=form.expires, request=request,
                                    made_by=request.user.get_username())  # fmt: skip
        made = {"token": token, "secret": secret}
        form = TokenForm(for_a_site=isinstance(owner, IntakeSite))
    context = {"owner": owner, "site": owner if isinstance(owner, IntakeSite) else None,
               "tokens": listed.select_related("site", "user"), "form": form, "made": made,
               "address": address}  # fmt: skip
    status = 201 if made else 400 if form.errors else 200
    return render(request, "api/tokens.html", context, status=status)


def _revoked(request: HttpRequest, listed: object, pk: int, back: str) -> HttpResponseRedirect:
    token = listed.filter(pk=pk).first()
    if token is None:
        raise Http404("No such token.")
    if tokens.revoke(Token.objects.filter(pk=token.pk), request):
        messages.success(
            request,
            _("The token %(name)s is revoked: it opens nothing now.") % {"name": token.name},
        )
    else:
        messages.info(request, _("The token %(name)s was revoked already.") % {"name": token.name})
    return HttpResponseRedirect(back, status=303)
