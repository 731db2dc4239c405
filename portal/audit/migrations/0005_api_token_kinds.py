"""The API's tokens in the audit trail: made, revoked, used after they were revoked."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0004_intake_kinds"),
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
                ],
                max_length=32,
            ),
        ),
    ]
