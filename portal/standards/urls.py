from django.urls import path

from portal.standards import views
from portal.standards.addresses import PREVIEW

app_name = "standards"

# Every page of a scheme's standards, at `stage/...` for the preview of its next version.
_pages = [
    ("", views.scheme, "scheme"),
    ("search/", views.search, "search"),
    ("export/", views.scheme_export, "export"),
    ("points/<str:reference>/", views.point, "point"),
    ("<str:sector>/<str:prefix>/", views.section, "section"),
    ("<str:sector>/<str:prefix>/checklist.pdf", views.section_pdf, "section-pdf"),
    ("<str:sector>/<str:prefix>/export.csv", views.section_csv, "section-csv"),
]

urlpatterns = [
    path("", views.schemes, name="schemes"),
    path("<str:scheme_guid>/changes/", views.changes, name="changes"),
    *(
        path(f"preview/<str:scheme_guid>/{route}", view, {"stage": PREVIEW}, name=f"preview-{name}")
        for route, view, name in _pages
    ),
    *(path(f"<str:scheme_guid>/{route}", view, name=name) for route, view, name in _pages),
]
