"""Thin cogs: parse the interaction, call the service, format the reply.

To add a feature: write `bot/cogs/<name>.py` with a `commands.Cog` whose `__init__` takes
a `Fairy` (`bot.cogs.common`), define beside it the persistent buttons and selects it
answers (`discord.ui.DynamicItem` subclasses, custom ids `fp:<name>:...`), end the module
with

    async def setup(bot: commands.Bot) -> None:
        await install(bot, MyCog(fairy(bot)), MyButton, ...)

and list the module in `EXTENSIONS`. The client loads them in this order.
"""

EXTENSIONS = (
    "bot.cogs.boards",
    "bot.cogs.challenges",
    "bot.cogs.play",
    "bot.cogs.info",
    "bot.cogs.analysis",
    "bot.cogs.correspondence",
    "bot.cogs.tournaments",
    "bot.cogs.conditional",
    "bot.cogs.privacy",
    "bot.cogs.server_config",
    "bot.cogs.moderation",
    "bot.cogs.help",
    "bot.cogs.variants",
)
