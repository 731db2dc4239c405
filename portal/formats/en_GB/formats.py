"""British English as the portal writes it: Django's en_GB formats, with times in 24-hour form
("14:30", not "2:30 p.m."); what is not set here is Django's own."""

TIME_FORMAT = "H:i"  # '14:30'
DATETIME_FORMAT = "j M Y, H:i"  # '25 Oct 2006, 14:30'
SHORT_DATETIME_FORMAT = "d/m/Y H:i"  # '25/10/2006 14:30'
