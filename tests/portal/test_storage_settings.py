"""Where job files, the portal's own files and static files are kept, as the environment says:
job files (and the portal's own, beside them) in an S3-compatible bucket, files sent by nginx
under a protected prefix, static files collected with names that change with their content."""

from __future__ import annotations

from tests.portal.test_settings import check, environment, settings_of

KEY = {"SECRET_KEY": "a-long-random-secret-key-for-the-storage-settings-tests-0123456789"}


def test_job_files_go_to_a_bucket_when_one_is_named(tmp_path):
    secret = tmp_path / "s3-secret"
    secret.write_text("the-secret-access-key\n")
    env = environment(
        **KEY,
        PORTAL_JOB_FILES_S3_BUCKET="portal-job-files",
        PORTAL_JOB_FILES_S3_ENDPOINT_URL="https://s3.example.org",
        PORTAL_JOB_FILES_S3_REGION="eu-west-2",
        PORTAL_JOB_FILES_S3_ACCESS_KEY_ID="portal",
        PORTAL_JOB_FILES_S3_SECRET_ACCESS_KEY_FILE=str(secret),
    )
    jobs = settings_of(env, "STORAGES")["STORAGES"]["jobs"]
    assert jobs["BACKEND"] == "storages.backends.s3.S3Storage"
    assert jobs["OPTIONS"]["bucket_name"] == "portal-job-files"
    assert jobs["OPTIONS"]["endpoint_url"] == "https://s3.example.org"
    assert jobs["OPTIONS"]["region_name"] == "eu-west-2"
    assert jobs["OPTIONS"]["access_key"] == "portal"
    assert jobs["OPTIONS"]["secret_key"] == "the-secret-access-key"
    assert jobs["OPTIONS"]["file_overwrite"] is True


def test_job_files_stay_on_the_file_system_by_default(tmp_path):
    env = environment(**KEY, PORTAL_JOB_FILES_DIR=str(tmp_path))
    jobs = settings_of(env, "STORAGES")["STORAGES"]["jobs"]
    assert jobs["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert jobs["OPTIONS"]["location"] == str(tmp_path)


def test_the_portals_own_files_are_in_their_folder_and_never_at_an_address(tmp_path):
    env = environment(**KEY, PORTAL_FILES_DIR=str(tmp_path))
    default = settings_of(env, "STORAGES")["STORAGES"]["default"]
    assert default["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert default["OPTIONS"] == {"location": str(tmp_path), "base_url": None}


def test_the_portals_own_files_go_to_the_job_files_bucket_under_files():
    env = environment(**KEY, PORTAL_JOB_FILES_S3_BUCKET="portal-job-files")
    default = settings_of(env, "STORAGES")["STORAGES"]["default"]
    assert default["BACKEND"] == "storages.backends.s3.S3Storage"
    assert default["OPTIONS"]["bucket_name"] == "portal-job-files"
    assert default["OPTIONS"]["location"] == "files"
    assert default["OPTIONS"]["file_overwrite"] is False


def test_the_protected_prefix_is_read_and_must_be_a_folder():
    env = environment(**KEY, PORTAL_PROTECTED_FILES_PREFIX="/_protected/job-files/")
    values = settings_of(env, "PORTAL_PROTECTED_FILES_PREFIX")
    assert values["PORTAL_PROTECTED_FILES_PREFIX"] == "/_protected/job-files/"
    refused = check(environment(**KEY, PORTAL_PROTECTED_FILES_PREFIX="/_protected"))
    assert refused.returncode != 0
    assert "PORTAL_PROTECTED_FILES_PREFIX must begin and end with /" in refused.stderr


def test_collected_static_files_have_names_that_change_with_their_content(tmp_path):
    static = settings_of(environment(**KEY, STATIC_ROOT=str(tmp_path)), "STORAGES")["STORAGES"]
    assert static["staticfiles"]["BACKEND"] == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage"
    )
    unset = settings_of(environment(**KEY), "STORAGES")["STORAGES"]
    assert (
        unset["staticfiles"]["BACKEND"] == "django.contrib.staticfiles.storage.StaticFilesStorage"
    )
