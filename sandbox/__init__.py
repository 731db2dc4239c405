"""The sandbox: our own complete, stateful implementation of the Assurance service."""
