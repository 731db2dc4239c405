"""The portal's own date and time formats, over Django's for its language (FORMAT_MODULE_PATH):
times in 24-hour form, as every page of the portal writes them, in Django's admin too."""
