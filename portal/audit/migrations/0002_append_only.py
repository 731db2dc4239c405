"""The audit trail made append-only by PostgreSQL itself, not the code alone: a trigger refuses
every UPDATE and DELETE of an event, from the ORM or from SQL, except

- the DELETE of an event older than KEPT_AT_LEAST (the sweep's pruning, audit.events.prune,
  removes those past PORTAL_AUDIT_DAYS, which is never shorter), and
- the one UPDATE that PostgreSQL makes itself when a user is deleted: the event's user unset
  (ON DELETE SET NULL), nothing else changed, and only once that user is gone.

The rule is in the trigger, with no switch to turn it off for a session (as pgtrigger's
`pgtrigger.ignore` is, a setting any connection may set): a stolen connection can remove no
event younger than KEPT_AT_LEAST and change none. TRUNCATE is left to the table's owner (the
database role of migrations), which may drop the trigger anyway (docs/running/audit.md).
SQLite, for `make run` without PostgreSQL, has no such trigger; the code's refusal stays."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

KEPT_AT_LEAST = "30 days"  # the shortest PORTAL_AUDIT_DAYS that settings.py allows

FUNCTION = """
CREATE FUNCTION audit_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        -- the statement's time, as the sweep's Now() (a transaction's now() may be older)
        IF OLD.at < statement_timestamp() - interval '{kept}' THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'The audit trail is append-only: event % is kept at least {kept}.', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.user_id IS NULL
        AND (NEW.id, NEW.kind, NEW.at, NEW.username, NEW.client_address, NEW.request_id,
             NEW.detail)
            IS NOT DISTINCT FROM (OLD.id, OLD.kind, OLD.at, OLD.username, OLD.client_address,
                                  OLD.request_id, OLD.detail)
        AND NOT EXISTS (SELECT FROM {users} WHERE id = OLD.user_id) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'The audit trail is append-only: event % is never changed.', OLD.id
        USING ERRCODE = 'restrict_violation';
END
$$
"""
TRIGGER = """
CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event
    FOR EACH ROW EXECUTE FUNCTION audit_event_append_only()
"""
REMOVE = (
    "DROP TRIGGER IF EXISTS audit_event_append_only ON audit_event",
    "DROP FUNCTION IF EXISTS audit_event_append_only()",
)


def add_trigger(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    users = schema_editor.quote_name(apps.get_model(settings.AUTH_USER_MODEL)._meta.db_table)
    schema_editor.execute(FUNCTION.format(kept=KEPT_AT_LEAST, users=users), params=None)
    schema_editor.execute(TRIGGER)


def remove_trigger(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in REMOVE:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_audit_trail"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.DB_SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(add_trigger, remove_trigger),
    ]
