"""Thin cogs: parse the interaction, call the service, format the reply."""

EXTENSIONS = (
    "bot.cogs.challenges",
    "bot.cogs.play",
    "bot.cogs.info",
    "bot.cogs.correspondence",
)
