"""The pages that scan passports' QR codes with the camera: the gate check, the signed code's
page, the offline checker and the intake clerks' pages. Every other page keeps the camera off
(settings.PERMISSIONS_POLICY)."""

from django.conf import settings
from django_permissions_policy.decorators import permissions_policy_override

# The Scan button reads passports' QR codes with the camera, and shows what it sees.
with_the_camera = permissions_policy_override(
    settings.PERMISSIONS_POLICY | {"camera": ["self"], "autoplay": ["self"]}
)
