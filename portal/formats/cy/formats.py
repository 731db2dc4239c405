"""Welsh as the portal writes it: Django's cy formats, with times in 24-hour form ("14:30", as
in English) and each kind of date written as the English pages write it, in Welsh words
("9 Gorffennaf 2026"); what is not set here is Django's own."""

DATE_FORMAT = "j F Y"  # '25 Hydref 2006'
TIME_FORMAT = "H:i"  # '14:30'
DATETIME_FORMAT = "j F Y, H:i"  # '25 Hydref 2006, 14:30'
SHORT_DATETIME_FORMAT = "d/m/Y H:i"  # '25/10/2006 14:30'
