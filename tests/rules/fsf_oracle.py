"""Regenerate `data/fsf-oracle.tsv`: Fairy-Stockfish's own counts for the games Fairy Post
plays under Fairy-Stockfish's ids (and players' files that say how Fairy-Stockfish knows
them), which `test_fsf_oracle.py` compares with ours, row by row.

    .venv/bin/python -m tests.rules.fsf_oracle [ID ...]    # all registered, or these

Needs pyffish 0.0.90 (`make bench` installs it); Debian's `fairy-stockfish` 11.1
(`/usr/games/fairy-stockfish`, or FAIRYPOST_FSF11) is asked too where it knows the game, and
its counts are kept beside pyffish's: the newer one is the reference where they differ. The
positions are the start and the ends of random games played with pyffish's own legal moves
(preferring captures, drops and promotions, so the mechanisms are reached), written in
Fairy-Stockfish's UCI form: the test replays them through Fairy Post's move parser. Rows of
variants not named on the command line are kept as they were.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
TABLE = DATA / "fsf-oracle.tsv"
REPO = Path(__file__).resolve().parents[2]
HEADER = "spec\tfsf\tmoves\tpyffish\tfsf11\tfen\tlegal"


@dataclass(frozen=True, slots=True)
class Entry:
    """One game to count: `spec` as `python -m rules` takes it (an id, or a .toml path
    relative to the repository), `fsf` its Fairy-Stockfish name, `ini` a variants.ini file
    (relative to tests/rules/data) that defines `fsf` for pyffish when it is not built in."""

    spec: str
    fsf: str
    ini: str | None = None
    games: int = 5
    start_depth: int = 3
    depth: int = 2
    plies: tuple[int, int] = (6, 60)
    start: str | None = None
    """A start FEN of our own (a Chess960 array pinned by the spec's `+setup-...`)."""


REGISTRY: tuple[Entry, ...] = (
    Entry("chess", "chess"),
    Entry("grand", "grand", start_depth=2),
    Entry("xiangqi", "xiangqi", start_depth=2),
    Entry("minixiangqi", "minixiangqi"),
    Entry("manchu", "manchu", games=4),
    Entry("janggi", "janggi", start_depth=2),
    Entry("janggicasual", "janggicasual", games=3, start_depth=2),
    Entry("janggimodern", "janggimodern", games=3, start_depth=2),
    Entry("janggitraditional", "janggitraditional", games=3, start_depth=2),
    Entry("makruk", "makruk", games=5, plies=(20, 120)),
    Entry("makpong", "makpong", games=4, plies=(20, 120)),
    Entry("cambodian", "cambodian", games=5, plies=(4, 80)),
    Entry("karouk", "karouk", games=6, plies=(4, 80)),
    Entry("ai-wok", "ai-wok", games=4, plies=(20, 120)),
    Entry("asean", "asean", games=5, plies=(20, 120)),
    Entry("sittuyin", "sittuyin", games=8, plies=(6, 160)),
    Entry("shatar", "shatar", games=5, plies=(20, 120)),
    Entry("shogi", "shogi", games=5, plies=(20, 90)),
    Entry("minishogi", "minishogi", games=5, plies=(10, 70)),
    Entry("kyotoshogi", "kyotoshogi", games=5, plies=(10, 70)),
    Entry("micro", "micro", games=5, plies=(10, 70)),
    Entry("dobutsu", "dobutsu", games=6, plies=(4, 40)),
    Entry("euroshogi", "euroshogi", games=5, plies=(20, 90)),
    Entry("judkins", "judkins", games=5, plies=(10, 70)),
    Entry("gorogoro", "gorogoro", games=5, plies=(10, 70)),
    Entry("nocastle", "nocastle", games=4),
    Entry("amazon", "amazon", games=4),
    Entry("almost", "almost", games=4),
    Entry("hoppelpoppel", "hoppelpoppel", games=5),
    Entry("newzealand", "newzealand", games=5),
    Entry("chigorin", "chigorin", games=5),
    Entry("gardner", "gardner", games=5, plies=(4, 40)),
    Entry("losalamos", "losalamos", games=5, plies=(4, 50)),
    Entry("capablanca", "capablanca", games=4),
    Entry("gothic", "gothic", games=4),
    Entry("janus", "janus", games=4),
    Entry("embassy", "embassy", games=4),
    Entry("centaur", "centaur", games=4),
    Entry("chancellor", "chancellor", games=4),
    Entry("modern", "modern", games=4),
    Entry("3check", "3check", games=6, plies=(10, 80)),
    Entry("5check", "5check", games=4, plies=(10, 80)),
    Entry("kingofthehill", "kingofthehill", games=5, plies=(10, 60)),
    Entry("racingkings", "racingkings", games=8, plies=(6, 60)),
    Entry("shatranj", "shatranj", games=5, plies=(20, 120)),
    Entry("courier", "courier", games=4, plies=(20, 120)),
    Entry("shako", "shako", games=4),
    Entry("crazyhouse", "crazyhouse", games=6),
    Entry("capahouse", "capahouse", games=4),
    Entry("seirawan", "seirawan", games=6),
    Entry("shouse", "shouse", games=5, start_depth=2),  # depth 3, 546,694, takes 4 s
    Entry("loop", "loop", games=5, plies=(20, 90)),
    Entry("chessgi", "chessgi", games=5, plies=(20, 90)),
    Entry("antichess", "antichess", games=6, plies=(10, 70)),
    Entry("giveaway", "giveaway", games=6, plies=(6, 40)),
    Entry("suicide", "suicide", games=5, plies=(20, 80)),
    Entry("losers", "losers", games=6, plies=(10, 70)),
    Entry("pocketknight", "pocketknight", games=5, plies=(4, 60)),
    Entry("breakthrough", "breakthrough", games=6, plies=(10, 70)),
    Entry("extinction", "extinction", games=6, plies=(10, 70)),
    Entry("kinglet", "kinglet", games=5, plies=(10, 70)),
    Entry("threekings", "threekings", games=5, plies=(10, 70)),
    Entry("codrus", "codrus", games=5, plies=(6, 50)),
    Entry("jesonmor", "jesonmor", games=8, plies=(3, 40)),
    Entry("horde", "horde", games=8, plies=(10, 90)),
    Entry("knightmate", "knightmate", games=6, plies=(10, 70)),
    Entry("placement", "placement", games=6, plies=(8, 60)),
    Entry("atomic", "atomic", games=10, plies=(6, 60)),
    Entry(
        "tests/rules/data/pseudo-royal-king.toml",
        "pseudoking",
        ini="pseudo-royal.ini",
        games=6,
        plies=(10, 70),
    ),
    Entry(
        "tests/rules/data/pseudo-royal-threekings.toml",
        "pseudothreekings",
        ini="pseudo-royal.ini",
        games=6,
        plies=(10, 70),
    ),
    Entry("clobber", "clobber", games=6, plies=(4, 20)),
    Entry("clobber10", "clobber10", games=5, start_depth=2, plies=(6, 60)),  # depth 3: 5,231,000
    Entry("fischerandom", "fischerandom", games=4),
    *(
        Entry(
            f"fischerandom+setup-{a.lower()}",
            "fischerandom",
            games=3,
            start=f"{a.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{a} w KQkq - 0 1",
        )
        for a in ("BQNBRKRN", "RKRNNQBB", "NRKBBNQR", "BBRKNRQN", "RNKRQBBN", "QRBKNBRN")
    ),
    Entry("caparandom", "caparandom", games=3),
    *(
        Entry(
            f"caparandom+setup-{a.lower()}",
            "caparandom",
            games=3,
            start=f"{a.lower()}/pppppppppp/10/10/10/10/PPPPPPPPPP/{a} w KQkq - 0 1",
        )
        for a in ("BRQNKANCRB", "RKBRNQCBAN", "ANRBKQCRBN")
    ),
)
"""Every game compared with Fairy-Stockfish. Helpers adding a game add its entry here."""


class Binary:
    """Debian's fairy-stockfish 11.1 over UCI: `go perft` from the start position."""

    def __init__(self, path: str) -> None:
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.variants = set()
        for line in self.read_until("uciok"):
            if line.startswith("option name UCI_Variant"):
                self.variants = set(line.split(" var ")[1:])
                self.variants = {v.strip() for v in self.variants}

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, marker: str) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("\n".join(lines))
            lines.append(line.rstrip("\n"))
            if line.startswith(marker):
                return lines

    def perft(self, variant: str, moves: list[str], depth: int, start: str | None = None) -> int:
        self.send(f"setoption name UCI_Variant value {variant}")
        where = "startpos" if start is None else f"fen {start}"
        self.send(f"position {where}" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go perft {depth}")
        return int(self.read_until("Nodes searched")[-1].split()[-1])


class Library:
    """pyffish 0.0.90: legal moves, FEN; perft by recursion (it has none of its own)."""

    def __init__(self) -> None:
        import pyffish

        self.sf = pyffish
        self.loaded: set[str] = set()
        self.start: str | None = None  # the entry's own start FEN, if any

    def load(self, ini: str | None) -> None:
        if ini is not None and ini not in self.loaded:
            self.sf.load_variant_config((DATA / ini).read_text(encoding="utf-8"))
            self.loaded.add(ini)

    def _start(self, variant: str) -> str:
        return self.start or str(self.sf.start_fen(variant))

    def legal(self, variant: str, moves: list[str]) -> list[str]:
        return sorted(self.sf.legal_moves(variant, self._start(variant), moves))

    def perft(self, variant: str, moves: list[str], depth: int) -> int:
        legal = self.legal(variant, moves)
        if depth == 1:
            return len(legal)
        return sum(self.perft(variant, [*moves, m], depth - 1) for m in legal)

    def fen(self, variant: str, moves: list[str]) -> str:
        return str(self.sf.get_fen(variant, self._start(variant), moves))

    def over(self, variant: str, moves: list[str]) -> bool:
        fen = self._start(variant)
        ended, _ = self.sf.is_immediate_game_end(variant, fen, moves)
        return bool(ended) or not self.sf.legal_moves(variant, fen, moves)

    def occupied(self, variant: str, moves: list[str]) -> set[str]:
        """The occupied squares of the position after `moves`, read from its FEN."""
        rows = self.fen(variant, moves).split()[0].split("[")[0].split("/")
        out = set()
        for i, row in enumerate(rows):
            file = 0
            for count, _piece in re.findall(r"(\d+)|(\+?[A-Za-z*])", row):
                if count:
                    file += int(count)
                    continue
                out.add(f"{'abcdefghijklmnop'[file]}{len(rows) - i}")
                file += 1
        return out


def interesting(move: str, occupied: set[str]) -> bool:
    """Drops, promotions, gating and captures: what reaches a game's mechanisms."""
    m = re.fullmatch(r"([a-p]\d+)([a-p]\d+)(.?)", move)
    if m is not None and m.group(1) == m.group(2):
        return False  # a pass (Janggi): the King's square twice
    return m is None or bool(m.group(3)) or m.group(2) in occupied


def random_game(lib: Library, entry: Entry, seed: int) -> list[str]:
    rng = random.Random(f"{entry.spec}-{seed}")
    moves: list[str] = []
    for _ in range(rng.randint(*entry.plies)):
        legal = lib.legal(entry.fsf, moves)
        if not legal:
            break
        occupied = lib.occupied(entry.fsf, moves)
        good = [m for m in legal if interesting(m, occupied)]
        pool = good if good and rng.random() < 0.6 else legal
        moves.append(rng.choice(pool))
        if lib.over(entry.fsf, moves):
            moves.pop()
            break
    return moves


def rows_for(entry: Entry, lib: Library, binary: Binary | None) -> list[str]:
    lib.load(entry.ini)
    lib.start = None if entry.start is None else str(lib.sf.get_fen(entry.fsf, entry.start, []))
    games = [[]] + [random_game(lib, entry, seed) for seed in range(entry.games)]
    rows = []
    for i, moves in enumerate(games):
        depth = entry.start_depth if i == 0 else entry.depth
        counts = [lib.perft(entry.fsf, moves, d) for d in range(1, depth + 1)]
        old = "n/a"
        if binary is not None and entry.ini is None and entry.fsf in binary.variants:
            old = ",".join(
                str(binary.perft(entry.fsf, moves, d, lib.start)) for d in range(1, depth + 1)
            )
        fen = lib.fen(entry.fsf, moves)
        counted = ",".join(map(str, counts))
        legal = " ".join(lib.legal(entry.fsf, moves))
        rows.append(
            f"{entry.spec}\t{entry.fsf}\t{' '.join(moves)}\t{counted}\t{old}\t{fen}\t{legal}"
        )
        print(rows[-1][:150], file=sys.stderr)
    return rows


def main(argv: list[str]) -> int:
    wanted = set(argv[1:])
    lib = Library()
    path = os.environ.get("FAIRYPOST_FSF11", "/usr/games/fairy-stockfish")
    binary = Binary(path) if Path(path).exists() else None
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
            rows.extend(rows_for(entry, lib, binary))
    order = {entry.spec: i for i, entry in enumerate(REGISTRY)}
    rows.sort(key=lambda row: order.get(row.split("\t")[0], len(order)))
    TABLE.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} ({len(rows)} rows)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
