"""The intake sites' tokens made before the API (intake.SiteToken) become the API's tokens of
their sites, with the same hashes, so that each site's software goes on sending with the token
it has: able to read and record the site's loads, as the site's tokens made now are, and
expiring a year from now, as a token made now may at most."""

from datetime import timedelta

from django.db import migrations
from django.utils import timezone

MOVED_SCOPES = ["intake:read", "intake:write"]


def moved(apps, schema_editor):
    SiteToken = apps.get_model("intake", "SiteToken")
    Token = apps.get_model("api", "Token")
    expires = timezone.now() + timedelta(days=365)
    Token.objects.bulk_create(
        Token(site_id=old.site_id, name=old.name, scopes=MOVED_SCOPES, digest=old.digest,
              created=old.created, expires=expires, revoked=old.revoked,
              last_used=old.last_used, made_by="")
        for old in SiteToken.objects.all()
    )  # fmt: skip


def moved_back(apps, schema_editor):
    SiteToken = apps.get_model("intake", "SiteToken")
    Token = apps.get_model("api", "Token")
    SiteToken.objects.bulk_create(
        SiteToken(site_id=token.site_id, name=token.name, digest=token.digest,
                  created=token.created, revoked=token.revoked, last_used=token.last_used)
        for token in Token.objects.filter(site__isnull=False)
    )  # fmt: skip


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_tokens_and_kept_answers"),
        ("intake", "0008_result_mails_of_their_loads"),
    ]

    operations = [migrations.RunPython(moved, moved_back)]
