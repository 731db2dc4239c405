"""Demo accounts, memberships, sites and stores (docs/interface.md, "Demo data")."""

from datetime import timedelta

# No memberships: the portal's `make run` makes it a clerk of its demo intake site.
INTAKE_CLERK = "intake"

ACCOUNTS = [
    {"username": "grower", "email": "grower@example.com", "password": "grower-demo-pass"},
    {"username": "lapsed", "email": "lapsed@example.com", "password": "lapsed-demo-pass"},
    {"username": "haulier", "email": "haulier@example.com", "password": "haulier-demo-pass"},
    # A second contact of grower's first membership only: two people of one business.
    {"username": "partner", "email": "partner@example.com", "password": "partner-demo-pass"},
    {"username": INTAKE_CLERK, "email": "intake@example.com", "password": "intake-demo-pass"},
]

CROPS = "Combinable Crops and Sugar Beet"
CERTIFIER = "Meridian Farm Certification Ltd"

# `expires_in`: the certificate's expiry relative to the day the demo data is loaded.
MEMBERSHIPS = [
    {
        "key": "hollowfield",
        "contacts": ["grower", "partner"],
        "membership_number": "CCSB-204817",
        "business_name": "Hollowfield Farms Ltd",
        "scheme_name": CROPS,
        "certifier_name": CERTIFIER,
        "status": "Valid",
        "expires_in": timedelta(days=240),
        "enterprises": "Combinable crops, Sugar beet",
        "sites": [
            {
                "key": "hollowfield-farm",
                "name": "Hollowfield Farm",
                "address": "Hollowfield Farm, Long Lane, Little Wenham, Ipswich, Suffolk",
                "postcode": "IP7 6QW",
                "stores": [
                    {
                        "key": "main-store",
                        "name": "Main grain store",
                        "lat": "52.0121",
                        "lon": "0.9834",
                    },
                    {
                        "key": "dryer-bins",
                        "name": "Dryer bins 1-6",
                        "lat": "52.0127",
                        "lon": "0.9841",
                    },
                ],
            },
            {
                "key": "marsh-end",
                "name": "Marsh End Barns",
                "address": "Marsh End Barns, Church Road, Raydon, Ipswich, Suffolk",
                "postcode": "IP7 5LT",
                "stores": [
                    {
                        "key": "flat-store",
                        "name": "Marsh End flat store",
                        "lat": "52.0305",
                        "lon": "0.9652",
                    },
                ],
            },
        ],
    },
    {
        "key": "wenham-grange",
        "contacts": ["grower"],
        "membership_number": "CCSB-311502",
        "business_name": "Wenham Grange Partnership",
        "scheme_name": CROPS,
        "certifier_name": "Eastern Counties Assurance Services",
        "status": "Valid",
        "expires_in": timedelta(days=150),
        "enterprises": "Combinable crops",
        "sites": [
            {
                "key": "wenham-grange",
                "name": "Wenham Grange",
                "address": "Wenham Grange, The Street, Great Wenham, Colchester, Essex",
                "postcode": "CO7 6PR",
                "stores": [
                    {
                        "key": "grange-bins",
                        "name": "Grange bins",
                        "lat": "51.9968",
                        "lon": "0.9911",
                    },
                ],
            },
        ],
    },
    {
        "key": "coldharbour",
        "contacts": ["lapsed"],
        "membership_number": "CCSB-118040",
        "business_name": "Coldharbour Farm",
        "scheme_name": CROPS,
        "certifier_name": CERTIFIER,
        "status": "Suspended",
        "expires_in": timedelta(days=100),
        "enterprises": "Combinable crops",
        "sites": [
            {
                "key": "coldharbour",
                "name": "Coldharbour Farm",
                "address": "Coldharbour Farm, Mill Lane, Stoke Holy Cross, Norwich, Norfolk",
                "postcode": "NR14 8PD",
                "stores": [
                    {
                        "key": "coldharbour-store",
                        "name": "Coldharbour store",
                        "lat": "52.5742",
                        "lon": "1.3170",
                    },
                ],
            },
        ],
    },
    {
        "key": "ridgeway",
        "contacts": ["lapsed"],
        "membership_number": "CCSB-097733",
        "business_name": "Ridgeway Arable",
        "scheme_name": CROPS,
        "certifier_name": "Eastern Counties Assurance Services",
        "status": "Expired",
        "expires_in": timedelta(days=-75),
        "enterprises": "Combinable crops, Sugar beet",
        "sites": [
            {
                "key": "ridgeway",
                "name": "Ridgeway Farm",
                "address": "Ridgeway Farm, Upper Road, Letcombe Regis, Wantage, Oxfordshire",
                "postcode": "OX12 9LH",
                "stores": [
                    {
                        "key": "ridgeway-store",
                        "name": "Ridgeway barn store",
                        "lat": "51.5720",
                        "lon": "-1.4460",
                    },
                ],
            },
        ],
    },
    {
        # A membership none of the demo accounts is a contact of.
        "key": "oakhurst",
        "contacts": [],
        "membership_number": "CCSB-402266",
        "business_name": "Oakhurst Estate",
        "scheme_name": CROPS,
        "certifier_name": CERTIFIER,
        "status": "Valid",
        "expires_in": timedelta(days=300),
        "enterprises": "Combinable crops",
        "sites": [
            {
                "key": "oakhurst",
                "name": "Oakhurst Home Farm",
                "address": "Home Farm, Oakhurst, Billingshurst, West Sussex",
                "postcode": "RH14 9AX",
                "stores": [],
            },
        ],
    },
]

# One passport ready for look-ups in a demonstration, with a short code that never changes.
PASSPORTS = [
    {
        "short_code": "7KXM4QHT2W",
        "membership": "hollowfield",
        "site": "hollowfield-farm",
        "store": "main-store",
        "created_by": "grower",
        "crop_type": "Wheat",
        "variety": "Extase",
        "store_or_bin_name": "Bay 3",
        "harvest_year": "2026",
        "haulier_company_name": "Stour Valley Haulage",
        "vehicle_registration": "AE24 KTV",
        "post_harvest_treatment_option": "A",
        "don_risk_assessment_result": 12,
    },
]
