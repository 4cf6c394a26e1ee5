"""The Discord adapter: slash commands, buttons, threads and timers over `bot.service`."""
