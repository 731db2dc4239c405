"""A load's history made append-only by PostgreSQL itself, not the code alone: a trigger refuses
every UPDATE and DELETE of an entry, from the ORM or from SQL, with no switch to turn it off for
a session (portal/audit/migrations/0002_append_only.py, the audit trail's, says why). A
correction, a query and its answer are entries of their own. SQLite, for `make run` without
PostgreSQL, has no such trigger; the code's refusal stays."""

from django.db import migrations

FUNCTION = """
CREATE FUNCTION intake_loadentry_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'A load''s history is append-only: entry % is never changed or removed.',
        OLD.id USING ERRCODE = 'restrict_violation';
END
$$
"""
TRIGGER = """
CREATE TRIGGER intake_loadentry_append_only BEFORE UPDATE OR DELETE ON intake_loadentry
    FOR EACH ROW EXECUTE FUNCTION intake_loadentry_append_only()
"""
REMOVE = (
    "DROP TRIGGER IF EXISTS intake_loadentry_append_only ON intake_loadentry",
    "DROP FUNCTION IF EXISTS intake_loadentry_append_only()",
)


def add_trigger(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION, params=None)
        schema_editor.execute(TRIGGER)


def remove_trigger(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in REMOVE:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("intake", "0001_intake_results")]

    operations = [migrations.RunPython(add_trigger, remove_trigger)]
