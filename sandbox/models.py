"""The sandbox's data: accounts and credentials, standards, memberships and passports."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.hashers import check_password, make_password
from django.db import models
from django.utils import timezone

from portal.assurance import records
from sandbox import ids

GRACE_PERIOD = timedelta(days=30)


# --- accounts and credentials ---------------------------------------------------------------------


class Account(models.Model):
    """A registered user of the service (not a user of the sandbox's admin)."""

    username = models.CharField(max_length=150, unique=True)
    email = models.EmailField(unique=True)
    password = models.CharField(max_length=128)
    is_active = models.BooleanField(default=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return self.username

    def set_password(self, raw_password: str) -> None:
        self.password = make_password(raw_password, hasher="pbkdf2_sha256_account")

    def check_password(self, raw_password: str) -> bool:
        return check_password(raw_password, self.password)

    @classmethod
    def find(cls, username_or_email: str) -> Account | None:
        """The active account with this username or e-mail address, in any case."""
        lookup = models.Q(username__iexact=username_or_email) | models.Q(
            email__iexact=username_or_email
        )
        return cls.objects.filter(lookup, is_active=True).first()


class Credential(models.Model):
    """A bearer token or an upstream session cookie; only its SHA-256 digest is stored."""

    class Kind(models.TextChoices):
        TOKEN = "token", "Bearer token"
        SESSION = "session", "Session cookie"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="credentials")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField()
    expires = models.DateTimeField(null=True, blank=True, help_text="Tokens only.")
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.account}"


class LoginThrottle(models.Model):
    """Login failures in a row from one client address, and its lockout."""

    address = models.GenericIPAddressField(unique=True)
    failures = models.PositiveIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.address


class ClockOffset(models.Model):
    """How far the tests have moved the sandbox's clock (SANDBOX_TESTING only)."""

    seconds = models.FloatField(default=0)

    def __str__(self) -> str:
        return f"{self.seconds:+.0f} s"

    @classmethod
    def current_seconds(cls) -> float:
        return cls.objects.filter(pk=1).values_list("seconds", flat=True).first() or 0.0


# --- standards ------------------------------------------------------------------------------------


class Scheme(models.Model):
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    name = models.CharField(max_length=200)
    key = models.SlugField(
        max_length=50, blank=True, help_text="Set by the demo loader to find its own schemes."
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Edition(models.Model):
    """The live standards of a scheme, or the preview of its next version."""

    class Stage(models.TextChoices):
        LIVE = "live", "Live"
        PREVIEW = "preview", "Preview"

    scheme = models.ForeignKey(Scheme, on_delete=models.CASCADE, related_name="editions")
    stage = models.CharField(max_length=10, choices=Stage.choices)
    changed = models.DateTimeField(default=timezone.now, help_text="Its CacheDate.")

    class Meta:
        ordering = ["scheme__name", "stage"]
        constraints = [
            models.UniqueConstraint(fields=["scheme", "stage"], name="one_edition_per_stage")
        ]

    def __str__(self) -> str:
        return f"{self.scheme} ({self.get_stage_display()})"


class Scope(models.Model):
    edition = models.ForeignKey(Edition, on_delete=models.CASCADE, related_name="scopes")
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    name = models.CharField(max_length=200)
    start_date = models.DateTimeField(null=True, blank=True)
    end_date = models.DateTimeField(null=True, blank=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["start_date", "name"]

    def __str__(self) -> str:
        return self.name


class Aim(models.Model):
    """A category that standard points serve."""

    edition = models.ForeignKey(Edition, on_delete=models.CASCADE, related_name="aims")
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Section(models.Model):
    edition = models.ForeignKey(Edition, on_delete=models.CASCADE, related_name="sections")
    scope = models.ForeignKey(Scope, on_delete=models.SET_NULL, null=True, blank=True)
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    sector_prefix = models.CharField(max_length=10)
    prefix = models.CharField(max_length=2, help_text="Two letters, as in CR.ST.3.")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    index = models.FloatField(default=0)
    what_has_changed = models.TextField(blank=True)
    modified = models.DateTimeField(auto_now=True)
    content_changed = models.DateTimeField(default=timezone.now, help_text="Its CacheDate.")

    class Meta:
        ordering = ["index", "sector_prefix", "prefix"]
        indexes = [models.Index(fields=["edition", "prefix"])]

    def __str__(self) -> str:
        return f"{self.sector_prefix}.{self.prefix} {self.name}"


class StandardPoint(models.Model):
    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="points")
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    reference = models.CharField(max_length=40)
    assessment_question = models.TextField()
    assessment_guidelines = models.TextField(blank=True, help_text="HTML")
    reference_sources = models.TextField(blank=True, help_text="HTML: record keeping")
    guidance = models.TextField(blank=True, help_text="HTML")
    score = models.FloatField(null=True, blank=True)
    revision_status = models.CharField(max_length=40, blank=True)
    index = models.FloatField(default=0)
    modified = models.DateTimeField(auto_now=True)
    aims = models.ManyToManyField(Aim, through="Link", related_name="points", blank=True)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return self.reference


class AuditPoint(models.Model):
    standard_point = models.ForeignKey(
        StandardPoint, on_delete=models.CASCADE, related_name="audit_points"
    )
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    reference = models.CharField(max_length=40)
    item_text = models.TextField()
    index = models.FloatField(default=0)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return self.reference


class Answer(models.Model):
    standard_point = models.ForeignKey(
        StandardPoint, on_delete=models.CASCADE, related_name="answers"
    )
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    reference = models.CharField(max_length=40)
    answer_text = models.TextField()
    critical_point = models.BooleanField(default=False)
    score = models.FloatField(null=True, blank=True)
    index = models.FloatField(default=0)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["index"]

    def __str__(self) -> str:
        return self.reference


class Link(models.Model):
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    aim = models.ForeignKey(Aim, on_delete=models.CASCADE, related_name="links")
    standard_point = models.ForeignKey(
        StandardPoint, on_delete=models.CASCADE, related_name="links"
    )
    modified = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.standard_point} → {self.aim}"


# --- memberships and passports --------------------------------------------------------------------


class Membership(models.Model):
    """A business's membership of a scheme, and its assurance claim."""

    class Status(models.TextChoices):
        VALID = "Valid"
        GRACE = "Grace"
        EXPIRED = "Expired"
        SUSPENDED = "Suspended"
        WITHDRAWN = "Withdrawn"

    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    membership_number = models.CharField(max_length=40)
    business_name = models.CharField(max_length=200)
    scheme_name = models.CharField(max_length=200)
    certifier_name = models.CharField(max_length=200)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.VALID)
    expiry_date = models.DateTimeField()
    enterprises = models.CharField(max_length=500, help_text="Comma-delimited.")
    contacts = models.ManyToManyField(Account, related_name="memberships", blank=True)

    class Meta:
        ordering = ["business_name"]

    def __str__(self) -> str:
        return f"{self.business_name} ({self.membership_number})"

    def status_at(self, moment: datetime) -> str:
        """The claim's status at `moment`: a valid certificate past its expiry date is in its
        grace period for 30 days, then expired."""
        if self.status != self.Status.VALID or moment <= self.expiry_date:
            return self.status
        if moment <= self.expiry_date + GRACE_PERIOD:
            return self.Status.GRACE
        return self.Status.EXPIRED

    def is_valid_at(self, moment: datetime) -> bool:
        return self.status_at(moment) in records.VALID_STATUSES

    def to_record(self, now: datetime) -> records.Membership:
        """The membership as the authorisation call gives it: its claim's status `now`, and its
        sites with their stores."""
        return records.Membership(
            membership_guid=self.guid,
            membership_number=self.membership_number,
            business_name=self.business_name,
            scheme_name=self.scheme_name,
            certifier_name=self.certifier_name,
            status=self.status_at(now),
            expiry_date=self.expiry_date,
            enterprises=self.enterprises,
            sites=[site.to_record() for site in self.sites.all()],
        )


class Site(models.Model):
    membership = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="sites")
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    name = models.CharField(max_length=200)
    address = models.CharField(max_length=300, help_text="Lines separated by commas.")
    postcode = models.CharField(max_length=10)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def collection_address(self) -> str:
        return f"{self.address}, {self.postcode}"

    def to_record(self) -> records.Site:
        return records.Site(
            site_guid=self.guid,
            site_name=self.name,
            address=self.address,
            postcode=self.postcode,
            stores=[store.to_record() for store in self.stores.all()],
        )


class Store(models.Model):
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="stores")
    guid = models.CharField(max_length=40, unique=True, default=ids.new_guid)
    name = models.CharField(max_length=200)
    latitude = models.CharField(max_length=20, blank=True)
    longitude = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def to_record(self) -> records.Store:
        return records.Store(
            store_guid=self.guid,
            store_name=self.name,
            latitude=self.latitude,
            longitude=self.longitude,
        )


def _text(max_length: int = 200) -> models.CharField:
    return models.CharField(max_length=max_length, blank=True)


class Passport(models.Model):
    """A crop passport: the load as the grower described it and the claim as checked then."""

    short_code = models.CharField(max_length=12, unique=True, default=ids.new_short_code)
    membership = models.ForeignKey(Membership, on_delete=models.PROTECT, related_name="passports")
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="passports")
    store = models.ForeignKey(
        Store, on_delete=models.PROTECT, null=True, blank=True, related_name="passports"
    )
    created_by = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="passports")
    created = models.DateTimeField()

    # section 1, as given
    crop_type = _text()
    variety = _text()
    store_or_bin_name = _text()
    loading_date = models.DateTimeField(null=True, blank=True)
    harvest_year = _text()
    haulier_company_name = _text()
    vehicle_registration = _text()
    trailer_number = _text()
    haulier_collection_ticket_no = _text()
    # sections 4 and 5, as given
    post_harvest_treatment_option = _text(1)
    post_harvest_treatment_date = models.DateTimeField(null=True, blank=True)
    post_harvest_treatment_product = _text()
    don_risk_assessment_result = models.FloatField(null=True, blank=True)
    don_test_date = models.DateTimeField(null=True, blank=True)
    don_test_result = _text()
    zon_test_date = models.DateTimeField(null=True, blank=True)
    zon_test_result = _text()

    # the claim and addresses, copied from the membership, site and store at creation
    business_name = _text()
    collection_address = _text(400)
    certifier_name = _text()
    membership_number = _text(40)
    check_date = models.DateTimeField()
    status = _text(20)
    expiry_date = models.DateTimeField()
    enterprises = _text(500)
    grain_store_name = _text()
    grain_store_latitude = _text(20)
    grain_store_longitude = _text(20)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return ids.display_short_code(self.short_code)

    @staticmethod
    def claim_as_checked(
        membership: Membership, site: Site, store: Store | None, now: datetime
    ) -> dict[str, object]:
        """The fields a passport copies at creation: the claim as checked `now`, the
        collection address and the grain store."""
        return {
            "business_name": membership.business_name,
            "collection_address": site.collection_address,
            "certifier_name": membership.certifier_name,
            "membership_number": membership.membership_number,
            "check_date": now,
            "status": membership.status_at(now),
            "expiry_date": membership.expiry_date,
            "enterprises": membership.enterprises,
            "grain_store_name": store.name if store else "",
            "grain_store_latitude": store.latitude if store else "",
            "grain_store_longitude": store.longitude if store else "",
        }

    @classmethod
    def given_in(cls, request: records.PassportRequest) -> dict[str, object]:
        """The load as the request that makes the passport gives it: each of its fields but
        the GUIDs, text left blank where it gives none."""
        return {name: _blank_if_none(cls._meta.get_field(name), getattr(request, name))
                for name in records.PassportRequest.__struct_fields__
                if not name.endswith("_guid")}  # fmt: skip

    def to_record(self) -> records.CropPassport:
        return records.CropPassport(
            short_code=self.short_code,
            membership_guid=self.membership.guid,
            site_guid=self.site.guid,
            store_guid=self.store.guid if self.store else None,
            **{name: _none_if_blank(getattr(self, name)) for name in PASSPORT_RECORD_FIELDS},
        )


def _none_if_blank(value: object) -> object:
    return None if value == "" else value


def _blank_if_none(field: models.Field, value: object) -> object:
    return "" if value is None and isinstance(field, models.CharField) else value


# Fields the passport's record takes from the row as they are (None when blank).
PASSPORT_RECORD_FIELDS = (
    "business_name",
    "collection_address",
    "crop_type",
    "variety",
    "store_or_bin_name",
    "loading_date",
    "harvest_year",
    "haulier_company_name",
    "vehicle_registration",
    "trailer_number",
    "haulier_collection_ticket_no",
    "certifier_name",
    "membership_number",
    "check_date",
    "status",
    "expiry_date",
    "enterprises",
    "post_harvest_treatment_option",
    "post_harvest_treatment_date",
    "post_harvest_treatment_product",
    "don_risk_assessment_result",
    "don_test_date",
    "don_test_result",
    "zon_test_date",
    "zon_test_result",
    "grain_store_name",
    "grain_store_latitude",
    "grain_store_longitude",
)
