"""Tournament logic without Discord, storage or pictures: standard library only.

`berger` builds round-robin schedules from the FIDE Berger tables; `swiss` pairs a Swiss
round close to FIDE's Dutch system (see `tournament/README.md` for the rules and where
they differ); `standings` scores the games, breaks ties and lays out the crosstable.
Everything is plain frozen values in, plain frozen values out, deterministic.
"""

from tournament.berger import berger_round, round_robin_schedule
from tournament.model import Colour, Entrant, Pairing, Result
from tournament.standings import Crosstable, Standings, TieBreak, compute_standings
from tournament.swiss import NoPairingError, pair_swiss_round

__all__ = [
    "Colour",
    "Crosstable",
    "Entrant",
    "NoPairingError",
    "Pairing",
    "Result",
    "Standings",
    "TieBreak",
    "berger_round",
    "compute_standings",
    "pair_swiss_round",
    "round_robin_schedule",
]
