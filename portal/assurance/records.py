"""Records of the Assurance interface: one msgspec Struct per resource, named in the domain's words.

Every field carries its wire name (`wire("SchemeName")`); the codec reads types from the
annotations. Attributes are snake_case; the wire names are the interface's own. All fields are
optional on reading, as the interface says of its resources; what is required is checked by
whoever receives a record (the sandbox for requests, the client for responses).

The Structs let the codec decode a well-formed JSON body in one msgspec call; whatever msgspec
refuses (a name in another case, a number sent as a string, ...) the codec reads its own, more
tolerant way. So a Struct is declared as strictly as the interface allows: unknown fields are
refused, numbers must be finite, and date-times are read by the codec's own parser.
"""

from __future__ import annotations

import abc
import sys
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, NamedTuple

import msgspec

if TYPE_CHECKING:
    WireDateTime = datetime
else:

    class WireDateTime(abc.ABC):  # noqa: B024 (a marker, with no methods of its own)
        """A date-time field, as msgspec sees it: a type of its own, which it leaves to the codec.

        msgspec would read date-times its own way (rounding a seventh fractional digit,
        accepting a lower-case `t`, keeping the sender's offset); the codec reads them as it
        does in every other case, in UTC. Every `datetime` is an instance of it; to a type
        checker it is `datetime`.
        """

    WireDateTime.register(datetime)

# A finite number: msgspec refuses anything out of this range, infinities among them.
WireNumber = Annotated[float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]


class XmlItems(NamedTuple):
    """How a list field is written in XML.

    The list is a container element, named as the field, holding repeated `tag` elements; an
    `inline` list has no container: its `tag` elements sit directly in the parent.
    """

    tag: str = "Item"
    inline: bool = False


class Record(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A resource of the interface; `root` names it as a body, `xml_items` its XML lists.

    A subclass inherits `forbid_unknown_fields` but not `kw_only`, so it says so again.
    """

    root: ClassVar[str]
    xml_items: ClassVar[Mapping[str, XmlItems]] = MappingProxyType({})


def wire(name: str) -> Any:
    """A scalar field named `name` on the wire."""
    return msgspec.field(default=None, name=name)


def wire_list(name: str) -> Any:
    """A list field named `name` on the wire (in XML, see `XmlItems`)."""
    return msgspec.field(default_factory=list, name=name)


def hiding(*secrets: str) -> tuple[Callable[[Any], str], Callable[[Any], Iterator]]:
    """`__repr__` and `__rich_repr__` for a record that leave out the fields `secrets`."""

    def shown(record: Any) -> Iterator[tuple[str, Any]]:
        for name in record.__struct_fields__:
            if name not in secrets:
                yield name, getattr(record, name)

    def __repr__(self: Any) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in shown(self))
        return f"{type(self).__name__}({fields})"

    return __repr__, shown


# 2.1 and 4.1: authentication
class LoginRequest(Record, kw_only=True):
    root: ClassVar[str] = "authenticate"
    type: str | None = wire("type")
    username: str | None = wire("username")
    password: str | None = wire("password")

    __repr__, __rich_repr__ = hiding("password")


class Authorization(Record, kw_only=True):
    root: ClassVar[str] = "authorization"
    realm: str | None = wire("realm")
    token: str | None = wire("token")
    expires: WireDateTime | None = wire("expires")

    __repr__, __rich_repr__ = hiding("token")


# 2.2 and 4.2: schemes
class SchemeEntry(Record, kw_only=True):
    root: ClassVar[str] = "item"
    scheme_name: str | None = wire("SchemeName")
    scheme_guid: str | None = wire("SchemeGUID")
    cache_date: WireDateTime | None = wire("CacheDate")


class SchemeList(Record, kw_only=True):
    root: ClassVar[str] = "Schemes"
    xml_items: ClassVar[Mapping[str, XmlItems]] = {"items": XmlItems("item")}
    items: list[SchemeEntry] = wire_list("items")


# 2.3 and 4.4: sections of a scheme
class Scope(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    name: str | None = wire("name")
    start_date: WireDateTime | None = wire("startdate")
    end_date: WireDateTime | None = wire("enddate")


class SectionEntry(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    scope_guid: str | None = wire("scopeguid")
    sector_prefix: str | None = wire("sectorprefix")
    guid: str | None = wire("guid")
    name: str | None = wire("name")
    description: str | None = wire("description")
    prefix: str | None = wire("prefix")
    index: WireNumber | None = wire("index")
    modified_date: WireDateTime | None = wire("modifieddate")


class SectionList(Record, kw_only=True):
    root: ClassVar[str] = "Sections"
    scheme_name: str | None = wire("SchemeName")
    scheme_guid: str | None = wire("SchemeGUID")
    cache_date: WireDateTime | None = wire("CacheDate")
    scopes: list[Scope] = wire_list("Scopes")
    sections: list[SectionEntry] = wire_list("Sections")


# 2.4 and 4.5: section data
class StandardPoint(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    reference: str | None = wire("reference")
    assessment_question: str | None = wire("assessmentquestion")
    assessment_guidelines: str | None = wire("assessmentguidelines")
    reference_sources: str | None = wire("referencesources")
    guidance: str | None = wire("guidance")
    score: WireNumber | None = wire("score")
    revision_status: str | None = wire("revisionstatus")
    index: WireNumber | None = wire("index")
    modified_date: WireDateTime | None = wire("modifieddate")


class AuditPoint(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    question_guid: str | None = wire("questionguid")
    guid: str | None = wire("guid")
    reference: str | None = wire("reference")
    item_text: str | None = wire("itemtext")
    index: WireNumber | None = wire("index")
    modified_date: WireDateTime | None = wire("modifieddate")


class Answer(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    question_guid: str | None = wire("questionguid")
    guid: str | None = wire("guid")
    reference: str | None = wire("reference")
    answer_text: str | None = wire("answertext")
    critical_point: bool | None = wire("criticalpoint")
    index: WireNumber | None = wire("index")
    modified_date: WireDateTime | None = wire("modifieddate")
    score: WireNumber | None = wire("score")


class Category(Record, kw_only=True):
    """An aim that standard points serve."""

    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    name: str | None = wire("name")
    description: str | None = wire("description")
    modified_date: WireDateTime | None = wire("modifieddate")


class Link(Record, kw_only=True):
    """Ties a standard point (`asset_guid`) to an aim (`category_guid`)."""

    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    category_guid: str | None = wire("categoryguid")
    asset_guid: str | None = wire("assetguid")
    modified_date: WireDateTime | None = wire("modifieddate")


class SectionData(Record, kw_only=True):
    root: ClassVar[str] = "Section"
    scheme_guid: str | None = wire("SchemeGUID")
    sector_prefix: str | None = wire("SectorPrefix")
    section_guid: str | None = wire("SectionGUID")
    section_name: str | None = wire("SectionName")
    section_prefix: str | None = wire("SectionPrefix")
    cache_date: WireDateTime | None = wire("CacheDate")
    standard_points: list[StandardPoint] = wire_list("StandardPoints")
    audit_points: list[AuditPoint] = wire_list("AuditPoints")
    answers: list[Answer] = wire_list("Answers")
    categories: list[Category] = wire_list("Categories")
    links: list[Link] = wire_list("Links")
    what_has_changed: str | None = wire("WhatHasChanged")


# 2.5 and 4.7, 4.8: crop passports
POST_HARVEST_TREATMENT_OPTIONS = ("", "A", "B", "C")


class PassportRequest(Record, kw_only=True):
    root: ClassVar[str] = "CreatePassportRequest"
    membership_guid: str | None = wire("MembershipGUID")
    site_guid: str | None = wire("SiteGUID")
    store_guid: str | None = wire("StoreGUID")
    crop_type: str | None = wire("CropType")
    variety: str | None = wire("Variety")
    store_or_bin_name: str | None = wire("StoreOrBinName")
    loading_date: WireDateTime | None = wire("LoadingDate")
    harvest_year: str | None = wire("HarvestYear")
    haulier_company_name: str | None = wire("HaulierCompanyName")
    vehicle_registration: str | None = wire("VehicleRegistration")
    trailer_number: str | None = wire("TrailerNumber")
    haulier_collection_ticket_no: str | None = wire("HaulierCollectionTicketNo")
    post_harvest_treatment_option: str | None = wire("PostHarvestTreatmentOption")
    post_harvest_treatment_date: WireDateTime | None = wire("PostHarvestTreatmentDate")
    post_harvest_treatment_product: str | None = wire("PostHarvestTreatmentProduct")
    don_risk_assessment_result: WireNumber | None = wire("DONRiskAssessmentResult")
    don_test_date: WireDateTime | None = wire("DONTestDate")
    don_test_result: str | None = wire("DONTestResult")
    zon_test_date: WireDateTime | None = wire("ZONTestDate")
    zon_test_result: str | None = wire("ZONTestResult")


class AssuranceClaim:
    """What a membership and a passport made for it share: an assurance claim's `status` and
    the certificate's `expiry_date`."""

    __slots__ = ()

    @property
    def is_valid(self) -> bool:
        """Whether the service gives the claim a valid status (Valid, or Grace)."""
        return self.status in VALID_STATUSES

    @property
    def has_expired(self) -> bool:
        """Whether the certificate's expiry has passed."""
        return self.expiry_date is not None and self.expiry_date <= datetime.now(UTC)


class CropPassport(Record, AssuranceClaim, kw_only=True):
    root: ClassVar[str] = "CropPassport"
    short_code: str | None = wire("ShortCode")
    membership_guid: str | None = wire("MembershipGUID")
    site_guid: str | None = wire("SiteGUID")
    store_guid: str | None = wire("StoreGUID")
    business_name: str | None = wire("BusinessName")
    collection_address: str | None = wire("CollectionAddress")
    crop_type: str | None = wire("CropType")
    variety: str | None = wire("Variety")
    store_or_bin_name: str | None = wire("StoreOrBinName")
    loading_date: WireDateTime | None = wire("LoadingDate")
    harvest_year: str | None = wire("HarvestYear")
    haulier_company_name: str | None = wire("HaulierCompanyName")
    vehicle_registration: str | None = wire("VehicleRegistration")
    trailer_number: str | None = wire("TrailerNumber")
    haulier_collection_ticket_no: str | None = wire("HaulierCollectionTicketNo")
    certifier_name: str | None = wire("CertifierName")
    membership_number: str | None = wire("MembershipNumber")
    check_date: WireDateTime | None = wire("CheckDate")
    status: str | None = wire("Status")
    expiry_date: WireDateTime | None = wire("ExpiryDate")
    enterprises: str | None = wire("Enterprises")
    post_harvest_treatment_option: str | None = wire("PostHarvestTreatmentOption")
    post_harvest_treatment_date: WireDateTime | None = wire("PostHarvestTreatmentDate")
    post_harvest_treatment_product: str | None = wire("PostHarvestTreatmentProduct")
    don_risk_assessment_result: WireNumber | None = wire("DONRiskAssessmentResult")
    don_test_date: WireDateTime | None = wire("DONTestDate")
    don_test_result: str | None = wire("DONTestResult")
    zon_test_date: WireDateTime | None = wire("ZONTestDate")
    zon_test_result: str | None = wire("ZONTestResult")
    grain_store_name: str | None = wire("GrainStoreName")
    grain_store_latitude: str | None = wire("GrainStoreLatitude")
    grain_store_longitude: str | None = wire("GrainStoreLongitude")


# docs/interface.md: authorisation
VALID_STATUSES = ("Valid", "Grace")


class Store(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    store_guid: str | None = wire("StoreGUID")
    store_name: str | None = wire("StoreName")
    latitude: str | None = wire("Latitude")
    longitude: str | None = wire("Longitude")


class Site(Record, kw_only=True):
    root: ClassVar[str] = "Item"
    site_guid: str | None = wire("SiteGUID")
    site_name: str | None = wire("SiteName")
    address: str | None = wire("Address")
    postcode: str | None = wire("Postcode")
    stores: list[Store] = wire_list("Stores")


class Membership(Record, AssuranceClaim, kw_only=True):
    root: ClassVar[str] = "Item"
    membership_guid: str | None = wire("MembershipGUID")
    membership_number: str | None = wire("MembershipNumber")
    business_name: str | None = wire("BusinessName")
    scheme_name: str | None = wire("SchemeName")
    certifier_name: str | None = wire("CertifierName")
    status: str | None = wire("Status")
    expiry_date: WireDateTime | None = wire("ExpiryDate")
    enterprises: str | None = wire("Enterprises")
    sites: list[Site] = wire_list("Sites")


class Authorisation(Record, kw_only=True):
    root: ClassVar[str] = "Authorisation"
    username: str | None = wire("Username")
    memberships: list[Membership] = wire_list("Memberships")


# docs/interface.md: errors
class ErrorItem(Record, kw_only=True):
    root: ClassVar[str] = "Error"
    code: str | None = wire("Code")
    message: str | None = wire("Message")


class ErrorBody(Record, kw_only=True):
    root: ClassVar[str] = "Errors"
    xml_items: ClassVar[Mapping[str, XmlItems]] = {"errors": XmlItems("Error", inline=True)}
    errors: list[ErrorItem] = wire_list("Errors")


__all__ = [
    "POST_HARVEST_TREATMENT_OPTIONS",
    "VALID_STATUSES",
    "Answer",
    "AuditPoint",
    "Authorisation",
    "Authorization",
    "Category",
    "CropPassport",
    "ErrorBody",
    "ErrorItem",
    "Link",
    "LoginRequest",
    "Membership",
    "PassportRequest",
    "SchemeEntry",
    "SchemeList",
    "Scope",
    "SectionData",
    "SectionEntry",
    "SectionList",
    "Site",
    "StandardPoint",
    "Store",
]
