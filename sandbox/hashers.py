from django.contrib.auth.hashers import PBKDF2PasswordHasher


class AccountPasswordHasher(PBKDF2PasswordHasher):
    """PBKDF2 at 100,000 iterations for the service's accounts.

    Far fewer than Django's default, so that a suite signing in hundreds of times stays quick;
    still salted and slow enough that the demo database is no gift.
    """

    algorithm = "pbkdf2_sha256_account"
    iterations = 100_000
