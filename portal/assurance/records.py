"""Records of the Assurance interface: one dataclass per resource, named in the domain's words.

Every field carries its wire name (`wire("SchemeName")`); the codec reads types from the
annotations. Attributes are snake_case; the wire names are the interface's own. All fields are
optional on reading, as the interface says of its resources; what is required is checked by
whoever receives a record (the sandbox for requests, the client for responses).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar


def wire(name: str, *, secret: bool = False) -> Any:
    """A scalar field named `name` on the wire; a secret field is left out of repr()."""
    return field(default=None, repr=not secret, metadata={"wire": name})


def wire_list(name: str, *, item: str = "Item", inline: bool = False) -> Any:
    """A list field named `name` on the wire.

    In XML the list is a container element `name` holding repeated `item` elements; an
    `inline` list has no container: its `item` elements sit directly in the parent.
    """
    return field(default_factory=list, metadata={"wire": name, "item": item, "inline": inline})


record = dataclass(slots=True, kw_only=True)


# 2.1 and 4.1: authentication
@record
class LoginRequest:
    root: ClassVar[str] = "authenticate"
    type: str | None = wire("type")
    username: str | None = wire("username")
    password: str | None = wire("password", secret=True)


@record
class Authorization:
    root: ClassVar[str] = "authorization"
    realm: str | None = wire("realm")
    token: str | None = wire("token", secret=True)
    expires: datetime | None = wire("expires")


# 2.2 and 4.2: schemes
@record
class SchemeEntry:
    root: ClassVar[str] = "item"
    scheme_name: str | None = wire("SchemeName")
    scheme_guid: str | None = wire("SchemeGUID")
    cache_date: datetime | None = wire("CacheDate")


@record
class SchemeList:
    root: ClassVar[str] = "Schemes"
    items: list[SchemeEntry] = wire_list("items", item="item")


# 2.3 and 4.4: sections of a scheme
@record
class Scope:
    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    name: str | None = wire("name")
    start_date: datetime | None = wire("startdate")
    end_date: datetime | None = wire("enddate")


@record
class SectionEntry:
    root: ClassVar[str] = "Item"
    scope_guid: str | None = wire("scopeguid")
    sector_prefix: str | None = wire("sectorprefix")
    guid: str | None = wire("guid")
    name: str | None = wire("name")
    description: str | None = wire("description")
    prefix: str | None = wire("prefix")
    index: float | None = wire("index")
    modified_date: datetime | None = wire("modifieddate")


@record
class SectionList:
    root: ClassVar[str] = "Sections"
    scheme_name: str | None = wire("SchemeName")
    scheme_guid: str | None = wire("SchemeGUID")
    cache_date: datetime | None = wire("CacheDate")
    scopes: list[Scope] = wire_list("Scopes")
    sections: list[SectionEntry] = wire_list("Sections")


# 2.4 and 4.5: section data
@record
class StandardPoint:
    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    reference: str | None = wire("reference")
    assessment_question: str | None = wire("assessmentquestion")
    assessment_guidelines: str | None = wire("assessmentguidelines")
    reference_sources: str | None = wire("referencesources")
    guidance: str | None = wire("guidance")
    score: float | None = wire("score")
    revision_status: str | None = wire("revisionstatus")
    index: float | None = wire("index")
    modified_date: datetime | None = wire("modifieddate")


@record
class AuditPoint:
    root: ClassVar[str] = "Item"
    question_guid: str | None = wire("questionguid")
    guid: str | None = wire("guid")
    reference: str | None = wire("reference")
    item_text: str | None = wire("itemtext")
    index: float | None = wire("index")
    modified_date: datetime | None = wire("modifieddate")


@record
class Answer:
    root: ClassVar[str] = "Item"
    question_guid: str | None = wire("questionguid")
    guid: str | None = wire("guid")
    reference: str | None = wire("reference")
    answer_text: str | None = wire("answertext")
    critical_point: bool | None = wire("criticalpoint")
    index: float | None = wire("index")
    modified_date: datetime | None = wire("modifieddate")
    score: float | None = wire("score")


@record
class Category:
    """An aim that standard points serve."""

    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    name: str | None = wire("name")
    description: str | None = wire("description")
    modified_date: datetime | None = wire("modifieddate")


@record
class Link:
    """Ties a standard point (`asset_guid`) to an aim (`category_guid`)."""

    root: ClassVar[str] = "Item"
    guid: str | None = wire("guid")
    category_guid: str | None = wire("categoryguid")
    asset_guid: str | None = wire("assetguid")
    modified_date: datetime | None = wire("modifieddate")


@record
class SectionData:
    root: ClassVar[str] = "Section"
    scheme_guid: str | None = wire("SchemeGUID")
    sector_prefix: str | None = wire("SectorPrefix")
    section_guid: str | None = wire("SectionGUID")
    section_name: str | None = wire("SectionName")
    section_prefix: str | None = wire("SectionPrefix")
    cache_date: datetime | None = wire("CacheDate")
    standard_points: list[StandardPoint] = wire_list("StandardPoints")
    audit_points: list[AuditPoint] = wire_list("AuditPoints")
    answers: list[Answer] = wire_list("Answers")
    categories: list[Category] = wire_list("Categories")
    links: list[Link] = wire_list("Links")
    what_has_changed: str | None = wire("WhatHasChanged")


# 2.5 and 4.7, 4.8: crop passports
POST_HARVEST_TREATMENT_OPTIONS = ("", "A", "B", "C")


@record
class PassportRequest:
    root: ClassVar[str] = "CreatePassportRequest"
    membership_guid: str | None = wire("MembershipGUID")
    site_guid: str | None = wire("SiteGUID")
    store_guid: str | None = wire("StoreGUID")
    crop_type: str | None = wire("CropType")
    variety: str | None = wire("Variety")
    store_or_bin_name: str | None = wire("StoreOrBinName")
    loading_date: datetime | None = wire("LoadingDate")
    harvest_year: str | None = wire("HarvestYear")
    haulier_company_name: str | None = wire("HaulierCompanyName")
    vehicle_registration: str | None = wire("VehicleRegistration")
    trailer_number: str | None = wire("TrailerNumber")
    haulier_collection_ticket_no: str | None = wire("HaulierCollectionTicketNo")
    post_harvest_treatment_option: str | None = wire("PostHarvestTreatmentOption")
    post_harvest_treatment_date: datetime | None = wire("PostHarvestTreatmentDate")
    post_harvest_treatment_product: str | None = wire("PostHarvestTreatmentProduct")
    don_risk_assessment_result: float | None = wire("DONRiskAssessmentResult")
    don_test_date: datetime | None = wire("DONTestDate")
    don_test_result: str | None = wire("DONTestResult")
    zon_test_date: datetime | None = wire("ZONTestDate")
    zon_test_result: str | None = wire("ZONTestResult")


@record
class CropPassport:
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
    loading_date: datetime | None = wire("LoadingDate")
    harvest_year: str | None = wire("HarvestYear")
    haulier_company_name: str | None = wire("HaulierCompanyName")
    vehicle_registration: str | None = wire("VehicleRegistration")
    trailer_number: str | None = wire("TrailerNumber")
    haulier_collection_ticket_no: str | None = wire("HaulierCollectionTicketNo")
    certifier_name: str | None = wire("CertifierName")
    membership_number: str | None = wire("MembershipNumber")
    check_date: datetime | None = wire("CheckDate")
    status: str | None = wire("Status")
    expiry_date: datetime | None = wire("ExpiryDate")
    enterprises: str | None = wire("Enterprises")
    post_harvest_treatment_option: str | None = wire("PostHarvestTreatmentOption")
    post_harvest_treatment_date: datetime | None = wire("PostHarvestTreatmentDate")
    post_harvest_treatment_product: str | None = wire("PostHarvestTreatmentProduct")
    don_risk_assessment_result: float | None = wire("DONRiskAssessmentResult")
    don_test_date: datetime | None = wire("DONTestDate")
    don_test_result: str | None = wire("DONTestResult")
    zon_test_date: datetime | None = wire("ZONTestDate")
    zon_test_result: str | None = wire("ZONTestResult")
    grain_store_name: str | None = wire("GrainStoreName")
    grain_store_latitude: str | None = wire("GrainStoreLatitude")
    grain_store_longitude: str | None = wire("GrainStoreLongitude")


# decisions.md: authorisation
VALID_STATUSES = ("Valid", "Grace")
CLAIM_STATUSES = ("Valid", "Grace", "Expired", "Suspended", "Withdrawn")


@record
class Store:
    root: ClassVar[str] = "Item"
    store_guid: str | None = wire("StoreGUID")
    store_name: str | None = wire("StoreName")
    latitude: str | None = wire("Latitude")
    longitude: str | None = wire("Longitude")


@record
class Site:
    root: ClassVar[str] = "Item"
    site_guid: str | None = wire("SiteGUID")
    site_name: str | None = wire("SiteName")
    address: str | None = wire("Address")
    postcode: str | None = wire("Postcode")
    stores: list[Store] = wire_list("Stores")


@record
class Membership:
    root: ClassVar[str] = "Item"
    membership_guid: str | None = wire("MembershipGUID")
    membership_number: str | None = wire("MembershipNumber")
    business_name: str | None = wire("BusinessName")
    scheme_name: str | None = wire("SchemeName")
    certifier_name: str | None = wire("CertifierName")
    status: str | None = wire("Status")
    expiry_date: datetime | None = wire("ExpiryDate")
    enterprises: str | None = wire("Enterprises")
    sites: list[Site] = wire_list("Sites")

    @property
    def is_valid(self) -> bool:
        return self.status in VALID_STATUSES


@record
class Authorisation:
    root: ClassVar[str] = "Authorisation"
    username: str | None = wire("Username")
    memberships: list[Membership] = wire_list("Memberships")


# decisions.md: errors
@record
class ErrorItem:
    root: ClassVar[str] = "Error"
    code: str | None = wire("Code")
    message: str | None = wire("Message")


@record
class ErrorBody:
    root: ClassVar[str] = "Errors"
    errors: list[ErrorItem] = wire_list("Errors", item="Error", inline=True)


__all__ = [
    "CLAIM_STATUSES",
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
