"""`manage.py generate_large_data`: the benchmark's data, made once, in a fresh sandbox database."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from sandbox.ids import guid_for

ROOT = Path(__file__).resolve().parent.parent.parent

POINTS, PASSPORTS = 400, 50  # enough points for the 300 of the benchmark's section, and more

BENCHMARK_POINT_IDS = """
    SELECT p.id FROM sandbox_standardpoint p
    JOIN sandbox_section s ON p.section_id = s.id
    JOIN sandbox_edition e ON s.edition_id = e.id
    JOIN sandbox_scheme c ON e.scheme_id = c.id
    WHERE c.key = 'benchmark' AND e.stage = 'live'
"""
BENCHMARK_POINTS = f"SELECT COUNT(*) FROM ({BENCHMARK_POINT_IDS})"  # noqa: S608
ROWS_PER_TABLE = [
    "sandbox_scheme", "sandbox_edition", "sandbox_scope", "sandbox_aim", "sandbox_section",
    "sandbox_standardpoint", "sandbox_auditpoint", "sandbox_answer", "sandbox_link",
    "sandbox_membership", "sandbox_membership_contacts", "sandbox_site", "sandbox_store",
    "sandbox_passport", "sandbox_account",
]  # fmt: skip


def manage(database: Path, *args: str) -> str:
    env = {**os.environ, "SANDBOX_DATABASE_URL": f"sqlite:///{database}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", *args, "--settings=sandbox.settings"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def query(database: Path, sql: str, *params: object) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        return db.execute(sql, params).fetchall()


def scalar(database: Path, sql: str, *params: object) -> object:
    return query(database, sql, *params)[0][0]


def table_sizes(database: Path) -> dict[str, int]:
    return {t: scalar(database, f"SELECT COUNT(*) FROM {t}") for t in ROWS_PER_TABLE}  # noqa: S608


def copy_database(database: Path, directory: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        source = database.with_name(database.name + suffix)
        if source.exists():
            shutil.copy(source, directory / source.name)
    return directory / database.name


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated sandbox database with the benchmark's data generated once."""
    path = tmp_path_factory.mktemp("generate") / "sandbox.sqlite3"
    manage(path, "migrate", "--verbosity=0")
    output = manage(
        path, "generate_large_data", "--points", str(POINTS), "--passports", str(PASSPORTS)
    )
    assert "Created" in output
    return path


@pytest.mark.slow
def test_the_scheme_has_exactly_the_points_asked_for(database):
    assert scalar(database, BENCHMARK_POINTS) == POINTS
    name, guid = query(database, "SELECT name, guid FROM sandbox_scheme WHERE key = 'benchmark'")[0]
    assert name == "Benchmark Standards"
    assert guid == guid_for("scheme:benchmark")


@pytest.mark.slow
def test_the_benchmark_section_bm_bx_has_300_points(database):
    rows = query(
        database,
        "SELECT COUNT(*) FROM sandbox_standardpoint p JOIN sandbox_section s "
        "ON p.section_id = s.id WHERE s.sector_prefix = 'BM' AND s.prefix = 'BX'",
    )
    assert rows == [(300,)]


@pytest.mark.slow
def test_every_point_has_two_audit_points_three_answers_one_critical_and_one_or_two_aims(
    database,
):
    per_point = query(
        database,
        f"""SELECT
              (SELECT COUNT(*) FROM sandbox_auditpoint a WHERE a.standard_point_id = p.id),
              (SELECT COUNT(*) FROM sandbox_answer r WHERE r.standard_point_id = p.id),
              (SELECT COUNT(*) FROM sandbox_answer r
                 WHERE r.standard_point_id = p.id AND r.critical_point),
              (SELECT COUNT(*) FROM sandbox_link k WHERE k.standard_point_id = p.id)
            FROM sandbox_standardpoint p WHERE p.id IN ({BENCHMARK_POINT_IDS})""",  # noqa: S608
    )
    assert len(per_point) == POINTS
    assert {(audit, answers, critical) for audit, answers, critical, _ in per_point} == {(2, 3, 1)}
    assert {links for *_, links in per_point} <= {1, 2}


@pytest.mark.slow
def test_the_text_is_of_realistic_length_with_html_where_the_interface_has_html(database):
    question, guidelines, sources, guidance = query(
        database,
        "SELECT AVG(LENGTH(assessment_question)), AVG(LENGTH(assessment_guidelines)), "
        "AVG(LENGTH(reference_sources)), AVG(LENGTH(guidance)) FROM sandbox_standardpoint "
        "WHERE reference LIKE 'BM.BX.%'",
    )[0]
    assert 60 < question < 300
    assert guidelines > 200 and guidance > 150 and sources > 50
    html = query(
        database,
        "SELECT assessment_guidelines, reference_sources, guidance FROM sandbox_standardpoint "
        "WHERE reference = 'BM.BX.1'",
    )[0]
    assert all(value.startswith(("<p>", "<ul>")) for value in html)


@pytest.mark.slow
def test_the_passports_belong_to_benchmark_farms_with_the_demo_grower_as_contact(database):
    membership = query(
        database, "SELECT id FROM sandbox_membership WHERE business_name = 'Benchmark Farms Ltd'"
    )
    assert len(membership) == 1
    membership_id = membership[0][0]
    assert (
        scalar(
            database, "SELECT COUNT(*) FROM sandbox_passport WHERE membership_id = ?", membership_id
        )
        == PASSPORTS
    )
    assert query(
        database,
        "SELECT a.username FROM sandbox_membership_contacts c JOIN sandbox_account a "
        "ON c.account_id = a.id WHERE c.membership_id = ?",
        membership_id,
    ) == [("grower",)]
    assert (
        scalar(database, "SELECT COUNT(*) FROM sandbox_site WHERE membership_id = ?", membership_id)
        == 1
    )
    assert (
        scalar(
            database,
            "SELECT COUNT(*) FROM sandbox_store s JOIN sandbox_site t ON s.site_id = t.id "
            "WHERE t.membership_id = ?",
            membership_id,
        )
        == 1
    )


@pytest.mark.slow
def test_a_second_run_adds_nothing_and_a_larger_count_tops_the_passports_up(database, tmp_path):
    database = copy_database(database, tmp_path)  # the other tests keep the original
    before = table_sizes(database)
    output = manage(
        database, "generate_large_data", "--points", str(POINTS), "--passports", str(PASSPORTS)
    )
    assert "already there" in output
    assert table_sizes(database) == before

    manage(database, "generate_large_data", "--points", str(POINTS), "--passports", "60")
    after = table_sizes(database)
    assert after["sandbox_passport"] == before["sandbox_passport"] + 10
    assert {t: n for t, n in after.items() if t != "sandbox_passport"} == {
        t: n for t, n in before.items() if t != "sandbox_passport"
    }
