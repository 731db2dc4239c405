"""The endpoints of the Assurance interface (docs/developing/assurance-interface.md) and of
docs/interface.md."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from portal.assurance import codec, records
from sandbox import auth, clock, ids, standards
from sandbox.api import (
    ServiceError,
    data_error,
    endpoint,
    error_response,
    not_found,
    pdf_response,
    read_body,
    required_errors,
    wants_pdf,
    wire_response,
)
from sandbox.models import ClockOffset, LoginThrottle, Membership, Passport, Site, Store
from sandbox.pdf import render_passport_pdf

LOGIN_TYPES = ("session", "token")
MAX_TEXT = 200


# --- 4.1 authentication ---------------------------------------------------------------------------


@endpoint("POST", authenticated=False)
def login(request: HttpRequest) -> HttpResponse:
    credentials, errors = read_body(request, records.LoginRequest)
    errors += required_errors(
        {f: getattr(credentials, f) for f in ("type", "username", "password")}, errors
    )
    if credentials.type and credentials.type not in LOGIN_TYPES:
        errors.append(data_error("type", "FormatRule", "type must be session or token."))
    if errors:
        raise ServiceError(400, errors)
    account = auth.check_password(
        auth.client_address(request), credentials.username, credentials.password
    )
    if credentials.type == "token":
        return wire_response(request, auth.issue_token(account))
    response = wire_response(request, records.Authorization(realm=auth.REALM, token=""))
    response.set_cookie(
        auth.SESSION_COOKIE,
        auth.open_session(account),
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


# --- 4.2 to 4.6 standards -------------------------------------------------------------------------


@endpoint("GET")
def schemes(request: HttpRequest, stage: str) -> HttpResponse:
    return wire_response(request, standards.scheme_list(stage))


@endpoint("GET")
def sections(request: HttpRequest, stage: str, scheme_guid: str) -> HttpResponse:
    sector = request.GET.get("SectorPrefixFilter", "")
    return wire_response(request, standards.section_list(stage, scheme_guid, sector))


@endpoint("GET")
def section_data(request: HttpRequest, stage: str, scheme_guid: str, section: str) -> HttpResponse:
    sector = request.GET.get("SectorPrefixFilter", "")
    found = standards.find_section(stage, scheme_guid, section, sector)
    # Long sections are costly to build; each version is encoded once per format and process.
    key = f"section:{found.pk}:{found.content_changed.timestamp()}:{request.media_type}"
    encoded = cache.get(key)
    if encoded is None:
        response = wire_response(request, standards.section_data(found))
        cache.set(key, (response.content, response["Content-Type"]))
        return response
    return HttpResponse(encoded[0], content_type=encoded[1])


# --- authorisation --------------------------------------------------------------------------------


@endpoint("GET")
def authorisation(request: HttpRequest) -> HttpResponse:
    now = clock.now()
    memberships = request.account.memberships.prefetch_related("sites__stores")
    return wire_response(
        request,
        records.Authorisation(
            username=request.account.username,
            memberships=[membership.to_record(now) for membership in memberships],
        ),
    )


# --- 4.7 and 4.8 passports ------------------------------------------------------------------------


@endpoint("POST", pdf=True)
def create_passport(request: HttpRequest) -> HttpResponse:
    form = _valid_passport_request(request)
    membership = request.account.memberships.filter(guid=form.membership_guid).first()
    site = membership and Site.objects.filter(membership=membership, guid=form.site_guid).first()
    if membership is None or site is None:
        raise _not_a_contact()
    store = None
    if form.store_guid:
        store = Store.objects.filter(site__membership=membership, guid=form.store_guid).first()
        if store is None:
            raise _not_a_contact()
    now = clock.now()
    if not membership.is_valid_at(now):
        raise _status_not_valid(membership, now)
    passport = _create(form, membership, site, store, request.account, now)
    return _passport_response(request, passport)


@endpoint("GET", pdf=True)
def download_passport(request: HttpRequest, short_code: str) -> HttpResponse:
    code = ids.normalise_short_code(short_code)
    passport = code and (
        Passport.objects.select_related("membership", "site", "store")
        .filter(short_code=code)
        .first()
    )
    if not passport:
        raise not_found("No passport has this short code.")
    now = clock.now()
    if not passport.membership.is_valid_at(now):
        raise _status_not_valid(passport.membership, now)
    return _passport_response(request, passport)


def _valid_passport_request(request: HttpRequest) -> records.PassportRequest:
    form, errors = read_body(request, records.PassportRequest)
    errors += required_errors(
        {"MembershipGUID": form.membership_guid, "SiteGUID": form.site_guid}, errors
    )
    option = form.post_harvest_treatment_option
    if option is not None and option not in records.POST_HARVEST_TREATMENT_OPTIONS:
        errors.append(
            data_error(
                "PostHarvestTreatmentOption",
                "FormatRule",
                "PostHarvestTreatmentOption must be empty, A, B or C.",
            )
        )
    errors += _overlong_values(form)
    if errors:
        raise ServiceError(400, errors)
    return form


def _overlong_values(form: records.PassportRequest) -> list[records.ErrorItem]:
    return [
        data_error(wire, "FormatRule", f"{wire} must be at most {MAX_TEXT} characters.")
        for attr, wire in codec.text_fields(records.PassportRequest)
        if len(getattr(form, attr) or "") > MAX_TEXT
    ]


def _not_a_contact() -> ServiceError:
    return ServiceError.of(
        403,
        "OperationError:NotAContact",
        "You are not a registered contact of this membership, or the site or store is not "
        "one of its own.",
    )


def _status_not_valid(membership: Membership, now) -> ServiceError:
    return ServiceError.of(
        400,
        "OperationError:StatusNotValid",
        f"The assurance claim of this membership is not valid now (status "
        f"{membership.status_at(now)}).",
    )


def _create(form, membership, site, store, account, now) -> Passport:
    fields = {
        **Passport.given_in(form), **Passport.claim_as_checked(membership, site, store, now),
        "membership": membership, "site": site, "store": store, "created_by": account,
        "created": now,
    }  # fmt: skip
    for _attempt in range(5):  # a clash of short codes is rare; draw another
        try:
            with transaction.atomic():
                return Passport.objects.create(short_code=ids.new_short_code(), **fields)
        except IntegrityError:
            continue
    raise ServiceError.of(503, "OperationError:Unavailable", "Try again shortly.")


def _passport_response(request: HttpRequest, passport: Passport) -> HttpResponse:
    record = passport.to_record()
    if wants_pdf(request):
        return pdf_response(render_passport_pdf(record), f"passport-{passport.short_code}.pdf")
    return wire_response(request, record)


# --- everything else ------------------------------------------------------------------------------


def index(request: HttpRequest) -> HttpResponse:
    return render(request, "sandbox/index.html", {"testing": settings.SANDBOX_TESTING})


def not_found_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, not_found())


def bad_request_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(
        request,
        ServiceError.of(400, "OperationError:BadRequest", "The request could not be understood."),
    )


def forbidden_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(
        request, ServiceError.of(403, "OperationError:Forbidden", "This is not allowed.")
    )


def server_error_page(request: HttpRequest) -> HttpResponse:
    return error_response(
        request,
        ServiceError.of(500, "OperationError:InternalError", "The service failed; try again."),
    )


# --- test hooks (SANDBOX_TESTING only) ------------------------------------------------------------


@csrf_exempt
@require_POST
def testing_clock(request: HttpRequest) -> HttpResponse:
    """Moves the clock: {"advance_seconds": N} adds to the offset, {"reset": true} clears it."""
    if not settings.SANDBOX_TESTING:
        return not_found_page(request)
    try:
        command = json.loads(request.body or b"{}")
        advance = 0.0 if command.get("reset") else float(command.get("advance_seconds", 0))
    except (ValueError, TypeError, AttributeError):
        return bad_request_page(request)
    offset, _ = ClockOffset.objects.get_or_create(pk=1)
    offset.seconds = 0.0 if command.get("reset") else offset.seconds + advance
    offset.save()
    return HttpResponse(
        json.dumps({"offset_seconds": offset.seconds}), content_type="application/json"
    )


@csrf_exempt
@require_POST
def testing_reset_lockouts(request: HttpRequest) -> HttpResponse:
    if not settings.SANDBOX_TESTING:
        return not_found_page(request)
    LoginThrottle.objects.all().delete()
    return HttpResponse(status=204)
