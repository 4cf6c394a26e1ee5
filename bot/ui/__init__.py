"""Discord presentation: embeds, buttons and the small text helpers they share."""
