"""British English as the portal writes it: Django's en_GB formats, with times in 24-hour form
("14:30", not "2:30 p.m.") and each kind of date written one way on every page, mail and PDF
(portal/assurance/passport_fields.py says which); what is not set here is Django's own."""

DATE_FORMAT = "j F Y"  # '25 October 2006': a calendar day, as passport_fields.day_written writes it
TIME_FORMAT = "H:i"  # '14:30'
DATETIME_FORMAT = "j F Y, H:i"  # '25 October 2006, 14:30': a moment, its day and its time
SHORT_DATETIME_FORMAT = "d/m/Y H:i"  # '25/10/2006 14:30'
