"""Regenerate `data/fsf-endings.tsv`: how Fairy-Stockfish ends games, for the rules that end
them (counting, bare Kings, conditional mates, checkmate, stalemate, repetition), which
`test_fsf_endings.py` replays with Fairy Post's rules.

    .venv/bin/python -m tests.rules.fsf_endings [ID ...]    # all registered, or these

Needs pyffish 0.0.90. Each row is a random game played with pyffish's legal moves from a
position given in Fairy Post's position text (exported to Fairy-Stockfish's FEN by
`rules.fsf.fen`), preferring checks and captures so that endings come soon, up to the first
ply where pyffish says the game is over: by a rule that ends it at once
(`is_immediate_game_end`), by having no legal move (`game_result`: mate or stalemate, with
the variant's values), or by a rule a player may claim (`is_optional_game_end`: repetition,
the move rule, counting), which Fairy Post applies automatically. The last position's FEN
(counts and first-move rights included) is kept too. A game that reaches no end
in its plies is kept too: nothing may end it early. Rows of variants not named on the command
line are kept as they were.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

from rules.variant import Variant, load_variant, load_variant_argument

DATA = Path(__file__).resolve().parent / "data"
TABLE = DATA / "fsf-endings.tsv"
ROOT = Path(__file__).resolve().parents[2]
HEADER = "spec\tfsf\tstart\tmoves\tending\twinner\tfen"


@dataclass(frozen=True, slots=True)
class Entry:
    """Games to play: `spec` a built-in id or a players' file of the repository
    (`docs/examples/shatranj.toml`), `fsf` its Fairy-Stockfish name, `starts` our
    position texts (None: the start position), `games` per start, `plies` at most."""

    spec: str
    fsf: str
    starts: tuple[str | None, ...]
    games: int = 3
    plies: int = 200


REGISTRY: tuple[Entry, ...] = (
    Entry(
        "makruk",
        "makruk",
        (
            None,
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "3k4/8/8/3m4/8/8/3S4/RR2K3 b - - 0 1",
            "4k3/3p4/8/8/8/4P3/1S3N2/4K3 w - - 0 1",
        ),
    ),
    Entry("makpong", "makpong", (None, "3rk3/8/8/8/8/8/3S4/R2K4 w - - 0 1")),
    Entry(
        "cambodian",
        "cambodian",
        (None, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "3mk3/8/8/8/2p5/8/8/RR1KM3 w - - 0 1"),
    ),
    Entry(
        "karouk",
        "karouk",
        (None, "r3k3/3m4/2p5/8/8/2P5/3M4/R3K3 w - - 0 1", "3mk3/8/8/8/2p5/8/8/RR1KM3 w - - 0 1"),
    ),
    Entry(
        "sittuyin",
        "sittuyin",
        (
            None,
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "4k3/2p5/8/3p4/2P5/4P3/8/4K3 w - - 0 1",
        ),
    ),
    Entry("ai-wok", "ai-wok", (None, "4k3/8/8/8/8/8/8/N3KA2 w - - 0 1")),
    Entry(
        "asean",
        "asean",
        (
            None,
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "4k3/8/3n4/8/8/8/4P3/R3K1B1 w - - 0 1",
            "r3k3/8/8/8/8/8/8/N3K1Q1 b - - 0 1",
        ),
    ),
    Entry(
        "shatar",
        "shatar",
        (
            None,
            "6bk/7p/8/8/8/8/8/2B1K3 w - - 0 1",
            "6rk/6pp/8/6N1/8/8/8/4K3 w - - 0 1",
            "4k3/pp3ppp/8/8/8/8/5PPP/RNB1KBNR w - - 0 1",
            "r3k2r/ppp2ppp/8/8/8/8/PPP2PPP/R1BJK1NR w - - 0 1",
        ),
    ),
    Entry(
        "3check",
        "3check",
        (None, "r3k3/8/8/8/8/8/8/R3K3 w - - 0 1 checks:2+1", "4k3/8/8/8/8/8/8/4K2Q b - - 0 1"),
    ),
    Entry("5check", "5check", (None, "r3k3/8/8/8/8/8/8/R3K3 w - - 0 1 checks:3+4")),
    # The bare King of players' files (issue 34): lost at once to two or more pieces, with
    # a reply that may bare the other King against one; both bare is a draw.
    Entry(
        "docs/examples/shatranj.toml",
        "shatranj",
        (
            None,
            "4k3/4r3/8/8/8/8/R3R3/4K3 w - - 0 1",
            "4k3/3q4/8/8/8/8/3R4/4K3 w - - 0 1",
            "3k4/8/2n5/8/8/3B4/3PN3/4K3 b - - 0 1",
            "8/3k4/8/2r5/8/2N1Q3/8/4K3 w - - 0 1",
        ),
        games=4,
    ),
    Entry(
        "docs/examples/courier.toml",
        "courier",
        (
            "5k6/4r7/12/12/12/12/2R1R7/5K6 w - - 0 1",
            "5k6/12/3m8/12/12/3F8/4W7/5K6 b - - 0 1",
        ),
        games=4,
    ),
    Entry(
        "antichess",
        "antichess",
        (None, "8/8/3k4/8/8/2N5/1P6/8 w - - 0 1", "8/p7/P7/8/8/8/1p6/8 b - - 0 1"),
    ),
    Entry("giveaway", "giveaway", (None, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")),
    Entry(
        "suicide",
        "suicide",
        (None, "8/p7/P7/8/8/8/1p6/8 b - - 0 1", "8/pp6/PP6/8/8/8/5p2/8 b - - 0 1"),
    ),
    Entry(
        "losers",
        "losers",
        (
            None,
            "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
            "6k1/5ppp/8/8/8/8/8/R3K3 b - - 0 1",
            "k7/8/1Q6/8/8/8/8/1R2K3 w - - 0 1",
            "7k/5Q2/8/8/8/8/8/4K3 w - - 0 1",
        ),
    ),
    Entry("extinction", "extinction", (None, "r3k3/1p6/8/8/8/8/1P6/R3K3 w - - 0 1")),
    Entry("kinglet", "kinglet", (None, "4k3/1p6/8/8/8/8/P7/4K3 w - - 0 1")),
    Entry("threekings", "threekings", (None, "k3k2k/8/8/8/8/8/8/K2RK2K w - - 0 1")),
    Entry("codrus", "codrus", (None, "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1")),
    Entry(
        "horde",
        "horde",
        (None, "4k3/8/8/8/8/8/1PP5/P7 b - - 0 1", "r3k2r/8/8/8/8/8/PPP5/8 w kq - 0 1"),
    ),
    Entry(
        "knightmate",
        "knightmate",
        (None, "4k3/8/8/8/8/8/3Q4/R3K3 w - - 0 1", "4k3/8/8/8/8/8/8/3BK3 w - - 0 1"),
    ),
    Entry(
        "atomic",
        "atomic",
        (
            None,
            "r3k2r/ppp2ppp/8/3q4/8/2N5/PPP2PPP/R3K2R w KQkq - 0 1",
            "4k3/8/8/3K4/8/8/8/7r w - - 0 1",
        ),
        games=4,
    ),
    Entry("kingofthehill", "kingofthehill", (None, "8/8/2k5/8/8/5K2/8/8 w - - 0 1")),
    Entry(
        "racingkings",
        "racingkings",
        (
            None,
            "8/1K4k1/8/8/8/8/8/8 w - - 0 1",
            "8/8/1K4k1/8/8/8/8/8 w - - 0 1",
            "8/8/1K6/8/5k2/8/8/r7 w - - 0 1",
        ),
    ),
)
"""Every game whose endings are compared. Helpers adding a game add its entry here."""


def variant_for(spec: str) -> Variant:
    """The variant a row names: a built-in id, or a file's path from the repository's root."""
    if spec.endswith(".toml"):
        return load_variant_argument(str(ROOT / spec))
    return load_variant(spec)


def _verdict(sf: object, fsf: str, fen: str, moves: list[str], side: int) -> tuple[str, str]:
    """("", "") while the game goes on; else the kind of end and the winner (white, black
    or draw) as pyffish rules it."""

    def who(value: int, mover: int) -> str:
        if value == 0:
            return "draw"
        return ("white", "black")[mover if value > 0 else mover ^ 1]

    ended, value = sf.is_immediate_game_end(fsf, fen, moves)  # type: ignore[attr-defined]
    if ended:
        return "immediate", who(value, side)
    if not sf.legal_moves(fsf, fen, moves):  # type: ignore[attr-defined]
        return "no-moves", who(sf.game_result(fsf, fen, moves), side)  # type: ignore[attr-defined]
    ended, value = sf.is_optional_game_end(fsf, fen, moves)  # type: ignore[attr-defined]
    if ended:
        return "claim", who(value, side)
    return "", ""


def rows_for(entry: Entry) -> list[str]:
    import pyffish as sf

    from rules.fsf import fen as fsf_fen
    from rules.postext import parse_position

    variant = variant_for(entry.spec)
    rows = []
    for start in entry.starts:
        fen = sf.start_fen(entry.fsf) if start is None else fsf_fen(parse_position(variant, start))
        for game in range(entry.games):
            rng = random.Random(f"{entry.spec}/{start}/{game}")
            moves: list[str] = []
            side = 0 if fen.split()[1] == "w" else 1
            ending, winner = _verdict(sf, entry.fsf, fen, moves, side)
            now = fen
            while not ending and len(moves) < entry.plies:
                # Moves are chosen from the current FEN (cheap); verdicts see the history.
                legal = sf.legal_moves(entry.fsf, now, [])
                roll = rng.random()
                pool = legal
                if roll < 0.4:
                    pool = [m for m in legal if sf.gives_check(entry.fsf, now, [m])] or legal
                elif roll < 0.7:
                    pool = [m for m in legal if sf.is_capture(entry.fsf, now, [], m)] or legal
                moves.append(rng.choice(pool))
                now = sf.get_fen(entry.fsf, fen, moves)
                side ^= 1
                ending, winner = _verdict(sf, entry.fsf, fen, moves, side)
            last = sf.get_fen(entry.fsf, fen, moves)
            row = "\t".join(
                [
                    entry.spec,
                    entry.fsf,
                    start or "-",
                    " ".join(moves),
                    ending or "-",
                    winner or "-",
                    last,
                ]
            )
            rows.append(row)
            print(row[-60:], file=sys.stderr)
    return rows


def main(argv: list[str]) -> int:
    wanted = set(argv[1:])
    kept: list[str] = []
    if TABLE.exists() and wanted:
        kept = [
            line
            for line in TABLE.read_text(encoding="utf-8").splitlines()[1:]
            if line and line.split("\t")[0] not in wanted
        ]
    rows = list(kept)
    for entry in REGISTRY:
        if not wanted or entry.spec in wanted:
            rows.extend(rows_for(entry))
    order = {entry.spec: i for i, entry in enumerate(REGISTRY)}
    rows.sort(key=lambda row: order.get(row.split("\t")[0], len(order)))
    TABLE.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} ({len(rows)} rows)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
