import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("intake", "0008_result_mails_of_their_loads"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Token",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("name", models.CharField(help_text="What it is for: Weighbridge, Farm records.",
                                          max_length=100)),
                ("scopes", models.JSONField(default=list)),
                ("digest", models.CharField(editable=False, max_length=64, unique=True)),
                ("created", models.DateTimeField(default=django.utils.timezone.now,
                                                 editable=False)),
                ("expires", models.DateTimeField()),
                ("revoked", models.DateTimeField(blank=True, editable=False, null=True)),
                ("last_used", models.DateTimeField(blank=True, editable=False, null=True)),
                ("made_by", models.CharField(blank=True, editable=False, max_length=150)),
                ("site", models.ForeignKey(blank=True, null=True,
                                           on_delete=django.db.models.deletion.CASCADE,
                                           related_name="api_tokens", to="intake.intakesite")),
                ("user", models.ForeignKey(blank=True, null=True,
                                           on_delete=django.db.models.deletion.CASCADE,
                                           related_name="api_tokens",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "ordering": ["-created", "-pk"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("site__isnull", True), ("user__isnull", False)),
                            models.Q(("site__isnull", False), ("user__isnull", True)),
                            _connector="OR",
                        ),
                        name="api_token_of_a_user_or_a_site",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="KeptAnswer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("key", models.CharField(max_length=255)),
                ("fingerprint", models.CharField(max_length=64)),
                ("created", models.DateTimeField(db_index=True,
                                                 default=django.utils.timezone.now)),
                ("status", models.PositiveSmallIntegerField(null=True)),
                ("content_type", models.CharField(blank=True, max_length=100)),
                ("body", models.BinaryField(default=b"")),
                ("token", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                            related_name="+", to="api.token")),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("token", "key"), name="one_answer_a_key")
                ],
            },
        ),
    ]  # fmt: skip
