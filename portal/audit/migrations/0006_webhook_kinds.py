"""Webhook endpoints in the audit trail: registered, their secret rolled, disabled (by their owner,
by a 410, or after failing for days) and enabled again."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0005_api_token_kinds"),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(
                choices=[
                    ("sign-in", "Signed in"),
                    ("sign-out", "Signed out"),
                    ("sign-in-failed", "Sign-in failed"),
                    ("lockout-met", "Sign-in refused: locked out"),
                    ("sessions-ended", "Sessions ended by staff"),
                    ("passport-created", "Passport created"),
                    ("pdf-downloaded", "Passport PDF downloaded"),
                    ("mail-sent", "Passports sent by e-mail"),
                    ("export-requested", "Export requested"),
                    ("export-downloaded", "Export downloaded"),
                    ("look-up", "Passport looked up"),
                    ("look-up-limited", "Look-up refused: over the address's limit"),
                    ("intake-check", "Loads checked at intake"),
                    ("staff-rights", "Staff rights changed"),
                    ("intake-clerks", "Intake clerks changed"),
                    ("intake-upload", "Loads uploaded at intake"),
                    ("intake-door", "Loads sent by a site's software"),
                    ("intake-token-made", "Intake site's token made"),
                    ("intake-token-revoked", "Intake site's token revoked"),
                    ("api-token-made", "API token made"),
                    ("api-token-revoked", "API token revoked"),
                    ("api-token-used-revoked", "API token used after it was revoked"),
                    ("webhook-registered", "Webhook endpoint registered"),
                    ("webhook-secret-rolled", "Webhook endpoint's secret rolled"),
                    ("webhook-disabled", "Webhook endpoint disabled"),
                    ("webhook-enabled", "Webhook endpoint enabled again"),
                ],
                max_length=32,
            ),
        ),
    ]
