"""Demo data of the sandbox: accounts and memberships (accounts.py), standards (data/)."""
