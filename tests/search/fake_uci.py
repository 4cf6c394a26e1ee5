"""A tiny UCI engine for the partner's tests, in the shape Fairy-Stockfish answers.

FAKE_UCI_MODE says how it behaves: `play` (bestmove FAKE_UCI_MOVE, score FAKE_UCI_SCORE; an
illegal move is just a FAKE_UCI_MOVE the rules refuse), `hang` (never answers `go`, not even
`stop`), `crash` (exits on `go`; `crash-once`: only while FAKE_UCI_MARK does not exist, which
it creates), `noload` (never confirms a variant), `think` (answers `go` only when stopped).
`go perft 1` lists FAKE_UCI_LEGAL (moves separated by spaces) as the legal moves.
FAKE_UCI_NAME is its `id name` (default `Fake-UCI 2.5 test build`).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path


def install(folder: Path) -> str:
    """The fake as an executable of its own in `folder`, as an operator would name one."""
    script = folder / "fake-engine"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__)}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = os.environ.get("FAKE_UCI_MODE", "play")
    move = os.environ.get("FAKE_UCI_MOVE", "e2e4")
    score = os.environ.get("FAKE_UCI_SCORE", "cp 31")
    variant = ""
    announce = False
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "uci":
            say(f"id name {os.environ.get('FAKE_UCI_NAME', 'Fake-UCI 2.5 test build')}")
            say("uciok")
        elif words[:3] == ["setoption", "name", "UCI_Variant"]:
            variant, announce = words[4], mode != "noload"
        elif words[0] == "isready":
            if announce:
                say(f"info string variant {variant} files 8 ranks 8 pocket 0 template fairy")
                announce = False
            say("readyok")
        elif words[:2] == ["go", "perft"]:
            legal = os.environ.get("FAKE_UCI_LEGAL", "").split()
            for legal_move in legal:
                say(f"{legal_move}: 1")
            say("")
            say(f"Nodes searched: {len(legal)}")
        elif words[0] == "go":
            if mode == "crash" or (
                mode == "crash-once" and not Path(os.environ["FAKE_UCI_MARK"]).exists()
            ):
                if mode == "crash-once":
                    Path(os.environ["FAKE_UCI_MARK"]).touch()
                sys.exit(3)
            if mode in ("hang", "think"):
                continue
            say(f"info depth 7 seldepth 9 multipv 1 score {score} nodes 1234 nps 1000 pv {move}")
            say(f"bestmove {move}")
        elif words[0] == "stop" and mode == "think":
            say(f"bestmove {move}")
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main()
