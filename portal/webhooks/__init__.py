"""The owners' pages of webhooks: a business's contacts and a site's clerks register endpoints,
see each secret once, roll and disable them, and read the delivery log (docs/webhooks.md)."""
