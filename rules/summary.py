"""The rules of a variant in a few plain lines, generated from its data.

One summary for everyone: `/rules` shows it for the built-in games, `/variant define` for a
player's file, and `python -m rules check FILE.toml` prints it for the author.
"""

from __future__ import annotations

from functools import cache

from rules.betza import Component, Kind
from rules.movement import components_from_entry
from rules.regions import format_squares
from rules.shuffle import RandomSetup
from rules.variant import ANY_PIECE, PieceType, StandardCastling, Variant, Zone, catalogue


def describe_movement(piece: PieceType) -> str:
    """A short text for legends: the Betza sources, or the kind of special movement."""
    parts = []
    for c in piece.components:
        if c.kind is Kind.BENT:
            parts.append("bent rider")
        elif c.kind is Kind.PATHS:
            parts.append("multi-path leaper")
        elif c.kind is Kind.PATH_RIDE:
            parts.append("path rider")
        else:
            parts.append(c.source)
    parts.extend(f"once {c.source}" for c in piece.once_per_game)
    text = " ".join(dict.fromkeys(parts))
    if piece.royal:
        text += " (royal)"
    return text


@cache
def _catalogue_movements() -> frozenset[frozenset[Component]]:
    return frozenset(
        frozenset(components_from_entry(entry, "pieces.toml", pid))
        for pid, entry in catalogue().items()
    )


def new_pieces(variant: Variant) -> tuple[PieceType, ...]:
    """The pieces whose movement no piece of the catalogue has: what a player's variant
    brings that is new to Fairy Post (each gets its diagram when the variant is defined).
    Pawn-like double steps count as the catalogue's Pawn does."""
    known = _catalogue_movements()
    out = []
    for p in variant.pieces:
        plain = frozenset(c for c in p.components if not (c.pawnlike and c.initial))
        if plain not in known and frozenset(p.components) not in known:
            out.append(p)
    return tuple(out)


def _with_article(name: str) -> str:
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]


def _rows(v: Variant, rows: frozenset[int]) -> str:
    """Rows counted from each side (row 1 is a side's first rank), in words a player of
    either colour reads right: `its last row (rank 16 for White, rank 1 for Black)`."""
    ranks = v.geometry.ranks
    ordered = sorted(rows)
    white = _and([str(r) for r in ordered])
    black = _and([str(ranks + 1 - r) for r in ordered])
    plural = "s" if len(ordered) > 1 else ""
    if ordered == [ranks]:
        where = "its last row"
    elif ordered == list(range(ordered[0], ranks + 1)):
        where = f"its last {len(ordered)} rows"
    else:
        where = f"its row{plural} {white}"
    return f"{where} (rank{plural} {white} for White, {black} for Black)"


def _squares(variant: Variant, squares: frozenset[int]) -> str:
    names = sorted(variant.geometry.name(sq) for sq in squares)
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


def _region(v: Variant, name: str) -> str:
    """A region as players read it: its name and White's squares."""
    squares = format_squares(v.region(name).of(0), v.geometry)
    return f"{name.replace('-', ' ')} ({squares} for White)"


def _castling(v: Variant, c: StandardCastling) -> str:
    """One castling move in words, its own direction and distance (`O-O`: the King
    goes from e1 to i1, 4 squares, the Rook from j1 to h1)."""
    geo = v.geometry
    sign = "O-O" if c.king_to > c.king_from else "O-O-O"
    squares = abs(geo.file_of(c.king_to) - geo.file_of(c.king_from))
    return (
        f"{sign}, the King from {geo.name(c.king_from)} to {geo.name(c.king_to)} "
        f"({squares} square{'s' if squares != 1 else ''}), the Rook from "
        f"{geo.name(c.rook_from)} to {geo.name(c.rook_to)}"
    )


def _names(v: Variant, ids: frozenset[str] | tuple[str, ...]) -> str:
    return _or([v.piece(p).name for p in sorted(ids)])


def _or(items: list[str]) -> str:
    return ", ".join(items[:-1]) + (" or " if len(items) > 1 else "") + items[-1]


def _mate_rule(v: Variant) -> list[str]:
    rule = v.mate
    assert rule is not None
    out = []
    if rule.forbidden_by:
        out.append(
            f"A checkmate given by {_names(v, rule.forbidden_by)}s alone loses for the side "
            "that gives it."
        )
    if rule.series_needs:
        out.append(
            "A checkmate wins only if the unbroken series of checks that ends in it holds a "
            f"check by a {_names(v, rule.series_needs)}; otherwise it is a draw."
        )
    return out


def _counting(v: Variant) -> str:
    """The counting rule in one sentence: who counts, the limits, the draw."""
    rule = v.counting
    assert rule is not None
    pawns = _names(v, rule.pawns) if rule.pawns else "Pawn"
    limits = [
        f"{line.moves} against "
        + (
            f"{line.count} {v.piece(line.piece).name}s"
            if line.count > 1
            else _with_article(v.piece(line.piece).name)
        )
        for line in rule.pieces
    ]
    if rule.otherwise:
        limits.append(f"{rule.otherwise} otherwise")
    board = (
        f"; with no {pawns} left, the weaker side counts to {rule.board} (board's honour)"
        if rule.board
        else ""
    )
    return (
        f"Counting ({rule.style} rules): a side left with its King alone, no {pawns} on the "
        f"board, counts its moves up to {_and(limits)}{board}; the game is drawn when the "
        "count passes the limit (the count is in the position text, count:plies/limit)."
    )


def _asian_rules(v: Variant) -> list[str]:
    """The lines of Xiangqi's and Janggi's rules: facing Generals, passing, bikjang,
    points, perpetual check, repeated moves."""
    lines = []
    ended = "on points" if v.points is not None else "in a draw"
    if v.flying_general:
        lines.append(
            "The royal pieces may never face each other on an open file or rank: no move may "
            "leave them so."
        )
    if v.passing:
        lines.append(
            f"A player not in check may pass (pass); two passes in a row end the game {ended}."
        )
    if v.bikjang:
        lines.append(
            "Bikjang: when the royal pieces face each other on an open line, the player to "
            f"move must part them or pass, and that pass ends the game {ended}."
        )
    if v.points is not None:
        values = ", ".join(f"{v.piece(pid).name} {value:g}" for pid, value in v.points.values)
        bonus = f"; Black gets {v.points.black_bonus:g} more" if v.points.black_bonus else ""
        lines.append(f"Points: {values}{bonus}.")
    if v.perpetual_check == "loss":
        lines.append(
            "A repetition in which one side gave check on every one of its moves is lost by "
            "that side."
        )
    if v.chasing:
        lines.append(
            "Perpetual chasing loses: in a repetition without perpetual check, a side that "
            "attacked one same unprotected or stronger piece on every one of its moves loses."
        )
    if v.move_repetition == "loss":
        lines.append(
            "Playing the same move a third time by going back and forth, with a piece that "
            "can reach the other palace, loses."
        )
    return lines


def _ranks_text(v: Variant, name: str) -> str:
    """A region for White in words: `ranks 7, 8 and 9` when it is whole ranks."""
    squares = v.region(name).of(0)
    geo = v.geometry
    ranks = sorted({geo.rank_of(sq) for sq in squares})
    if len(squares) == len(ranks) * geo.files:
        numbers = _and([str(r + 1) for r in ranks])
        return f"rank{'s' if len(ranks) > 1 else ''} {numbers} for White"
    return f"{format_squares(squares, geo)} for White"


def _zone_promotions(v: Variant) -> list[str]:
    """Zone promotions, one line per kind of rule: who becomes what, and when."""
    groups: dict[tuple[str, bool, bool, bool], list[str]] = {}
    for p in v.pieces:
        if p.promotion is None or p.promotion.zone is None or p.promotion.in_place:
            continue
        back = p.demotes_to is not None and p.promotion.to == (p.demotes_to,)
        key = (p.promotion.zone, p.promotion.mandatory, p.promotion.on_capture, back)
        to = " or ".join(v.piece(t).name for t in p.promotion.to)
        groups.setdefault(key, []).append(f"{p.name} to {to}")
    lines = []
    for (zone, mandatory, on_capture, back), pieces in groups.items():
        verb = "turn back" if back else "promote"
        whole = all(len(sq) == v.geometry.size for sq in v.region(zone).squares)
        if whole:
            when = "on every capture" if on_capture else "after every move"
            must = "must" if mandatory else "may"
            lines.append(f"Pieces {verb} {when} ({must}): {', '.join(pieces)}.")
            continue
        must = "must" if mandatory else "may"
        moves = "captures" if on_capture else "moves"
        lines.append(
            f"Pieces {must} {verb} on {moves} into, out of or inside the "
            f"{zone.replace('-', ' ')} ({_ranks_text(v, zone)}): {', '.join(pieces)}."
        )
    return lines


def _in_place(v: Variant, p: PieceType) -> str:
    """An in-place promotion (Sittuyin's Pawn) in one sentence."""
    promo = p.promotion
    assert promo is not None
    to = " or ".join(_with_article(v.piece(t).name) for t in promo.to)
    where = f" on the {_region(v, promo.zone)}" if promo.zone else ""
    last = " (anywhere when it is your last one)" if promo.anywhere_if_last else ""
    limit = (
        ", while you have none on the board"
        if promo.limit_count == 1
        else f", while you have fewer than {promo.limit_count} on the board"
        if promo.limit_count
        else ""
    )
    calm = "; never to give check or to attack an enemy piece" if promo.peaceful else ""
    return (
        f"{p.name}: instead of a move, one standing{where}{last} may become {to} there "
        f"or on an empty square the new piece could move to (d5=F, d5-c6F){limit}{calm}."
    )


def _shogi_example(v: Variant) -> str:
    """A square of the board in Shogi notation (the middle file, the middle rank)."""
    geo = v.geometry
    return f"{(geo.files + 1) // 2}{'abcdefghijklmnop'[(geo.ranks - 1) // 2]}"


def _drop_rules(v: Variant) -> list[str]:
    """The restrictions on drops, one line each."""
    lines = []
    if v.drop_region:
        lines.append(f"Pieces are dropped only in the {_region(v, v.drop_region)}.")
    if v.drop_promoted:
        lines.append("A piece in hand may be dropped showing either side.")
    if v.immobility_illegal:
        lines.append(
            "No piece may be moved or dropped where it could never move again: it must "
            "promote there, or go elsewhere."
        )
    for p in v.pieces:
        if p.drop_region:
            lines.append(f"{p.name}: dropped only in the {_region(v, p.drop_region)}.")
        if p.drop_one_per_file:
            lines.append(f"{p.name}: never dropped on a file that has one of yours already.")
        if p.drop_mate == "loss":
            lines.append(f"{p.name}: mating by dropping it loses the game.")
        elif p.drop_mate == "illegal":
            lines.append(f"{p.name}: may not be dropped to give checkmate.")
    return lines


def _random_setup(v: Variant, spec: RandomSetup) -> list[str]:
    """`[setup.random]` in words, and Chess960's castling."""
    name = {p.letters: p.name for p in v.pieces if p.letters}
    rules = []
    for a, b in spec.opposite_colours:
        pair = f"the two {name.get(a, a)}s" if a == b else f"{name.get(a, a)} and {name.get(b, b)}"
        rules.append(f"{pair} on squares of different colours")
    if spec.between is not None:
        inner, outer = spec.between
        rules.append(f"the {name.get(inner, inner)} between the {name.get(outer, outer)}s")
    which = f": {', '.join(rules)}" if rules else ""
    lines = [
        f"Rank {spec.rank} is shuffled before each game, the same for both sides{which}; the "
        "array is drawn when the game starts and kept with it."
    ]
    if v.castling:
        ends = ", or ".join(
            f"{v.geometry.name(c.king_to)} and {v.geometry.name(c.rook_to)}" for c in v.castling
        )
        lines.append(
            f"Castling as in Chess960: King and Rook end on {ends}, wherever they started; the "
            "squares between must be empty and the King may not pass through check."
        )
    return lines


def rules_summary(v: Variant) -> tuple[str, ...]:
    """Short rule lines generated from the variant's data."""
    lines = []
    if v.goal == "royal-capture":
        lines.append("Win by capturing the royal piece; there is no check rule.")
    elif not any(p.royal for p in v.pieces):
        lines.append("No piece is royal: there is no check and no checkmate.")
    elif v.checkmate == "win":
        lines.append("Checkmate wins for the side that is checkmated.")
    else:
        lines.append("Checkmate wins.")
    if v.first:
        lines.append("Black makes the first move.")
    if v.check_count:
        lines.append(f"The side that gives check for the {_nth(v.check_count)} time wins at once.")
    if v.no_checks:
        lines.append("No move may give check.")
    if v.blast is not None:
        spared = ", ".join(sorted(v.piece(p).name for p in v.blast))
        lines.append(
            "Captures explode: the capturing piece and every piece around the square leave "
            f"the board{f' (but {spared})' if spared else ''}; exploding the King wins, a King "
            "never captures, and touching Kings give no check."
        )
    if v.walls:
        where = ", ".join(v.geometry.name(sq) for sq in sorted(v.walls))
        lines.append(
            f"Walls stand on {where}: no piece may enter, capture or pass them (a Cannon-like "
            "hopper may hop over one)."
        )
    if v.petrify:
        kinds = ", ".join(sorted(v.piece(p).name for p in v.petrify))
        lines.append(
            f"A capturing {kinds.replace(', ', ' or ')} turns into a wall on the square it "
            "captured on."
        )
    if v.must_capture:
        lines.append("Capturing is compulsory: a side that can capture must (any capture).")
    if v.extinction is not None:
        ext = v.extinction
        names = (
            "all its pieces"
            if not ext.pieces
            else "its " + " or ".join(sorted(v.piece(p).name for p in ext.pieces))
        )
        left = "loses" if ext.result == "loss" else "wins"
        what = f"no more than {ext.count} of " if ext.count else "none of "
        lines.append(
            f"A side left with {what}{names} {left} at once (extinction)."
            if ext.pieces
            else f"A side that has lost {names} {left} at once."
        )
        if ext.pseudo_royal:
            lines.append(
                "The last pieces of those kinds may not be left attacked, as a King: a side "
                "that cannot save one is checkmated."
            )
    if v.bare_king_win:
        lines.append("A side left with only its King wins at once.")
    if v.zone is not None:
        lines.extend(_zone_lines(v, v.zone))
    if v.bare_king:
        lines.append(
            "A side left with only its King loses, unless it bares the other King in its "
            "reply (a draw)."
        )
    if v.bare_king_draw:
        lines.append("The game is drawn as soon as a side has only its King left.")
    if v.mate is not None:
        lines.extend(_mate_rule(v))
    if v.stalemate == "win-on-points":
        lines.append("Stalemate scores 3/5 for the side that stalemates, 2/5 for the other.")
    elif v.stalemate == "loss":
        lines.append("Stalemate loses: the side that cannot move loses.")
    elif v.stalemate == "win":
        lines.append("Stalemate wins: the side that cannot move wins.")
    elif v.stalemate == "fewer-pieces":
        lines.append("Stalemate: the side with fewer pieces wins; equal numbers draw.")
    else:
        lines.append("Stalemate is a draw.")
    rule = f"the {v.move_rule}-move rule" if v.move_rule else "no move-count rule"
    fold = {2: "Twofold", 3: "Threefold", 4: "Fourfold"}.get(v.repetition, f"{v.repetition}-fold")
    if v.points is None:
        result = {
            "draw": "is a draw",
            "white-loses": "loses for White",
            "black-loses": "loses for Black",
            "repeater-loses": "loses for the side that repeats the position",
            "repeater-wins": "wins for the side that repeats the position",
        }[v.repetition_result]
        if v.repetition:
            lines.append(f"{fold} repetition {result}; {rule}. Endings by rule are automatic.")
        else:
            lines.append(f"No repetition rule; {rule}. Endings by rule are automatic.")
    else:
        lines.append(
            f"{fold} repetition and {rule} are decided on points, and so is any draw by rule."
        )
    lines.extend(_asian_rules(v))
    if v.counting is not None:
        lines.append(_counting(v))
    if v.insufficient_material and not v.captures_to_hand:
        lines.append(
            "Too little material to mate is a draw: King against King, against King and "
            "Bishop or King and Knight, or only Bishops on one colour."
        )
    if v.random_setup is not None:
        lines.extend(_random_setup(v, v.random_setup))
    elif v.castling:
        lines.append(f"Castling: {'; '.join(_castling(v, c) for c in v.castling)}.")
    elif v.fast_castling:
        lines.append(
            "Fast castling: the King jumps to any empty safe square toward an unmoved Rook, "
            "e.g. O-O(h1)."
        )
    for side in ("White", "Black"):
        winning = [c for c in v.castling if ("White", "Black").index(side) in c.wins]
        if winning:
            signs = " or ".join("O-O" if c.king_to > c.king_from else "O-O-O" for c in winning)
            lines.append(
                f"{side} wins by castling {signs}, and loses once it can no longer castle so."
            )
    if v.ep_capturers:
        names = ", ".join(v.piece(p).name for p in sorted(v.ep_capturers))
        lines.append(f"En passant: taken by {names}.")
    lines.extend(_zone_promotions(v))
    for p in v.pieces:
        if p.promotion and p.promotion.in_place:
            lines.append(_in_place(v, p))
        elif p.promotion and p.promotion.zone is None:
            to = ", ".join(v.piece(t).name for t in p.promotion.to)
            parts = []
            if p.promotion.compulsory_rows:
                parts.append(f"must promote on {_rows(v, p.promotion.compulsory_rows)}")
            if p.promotion.optional_rows:
                parts.append(f"may promote on {_rows(v, p.promotion.optional_rows)}")
            extra = (
                " (only to types below their starting count)"
                if p.promotion.limited_by_start_count
                else f" (while you have fewer than {p.promotion.limit_count} of it)"
                if p.promotion.limit_count
                else ""
            )
            lines.append(f"{p.name}: {' and '.join(parts)} to {to}{extra}.")
        if p.region:
            lines.append(f"{p.name}: never leaves the {_region(v, p.region)}.")
        for rm in p.region_moves:
            moves = " ".join(c.source for c in rm.components if c.source) or "more moves"
            lines.append(f"{p.name}: in the {_region(v, rm.region)} it also moves {moves}.")
        for refs, verb in ((p.cannot_capture, "captures"), (p.cannot_hop_over, "jumps over")):
            if refs:
                names = " or ".join(_with_article(v.piece(r).name) for r in refs)
                lines.append(f"{p.name}: never {verb} {names}.")
        if p.first_leaps:
            leaps = " ".join(c.source for c in p.first_leaps)
            lost = (
                f"; a {_names(v, p.first_leap_lost_by)} that moves to give it check takes "
                "that right away"
                if p.first_leap_lost_by
                else ""
            )
            lines.append(
                f"{p.name}: as its first move, when not in check, it may also leap {leaps} to "
                f"an empty square{lost}."
            )
        elif p.initial_leap:
            lines.append(f"{p.name}: on its first move it may leap two squares (Metamachy rule).")
        if p.capture_checker_only:
            lines.append(
                f"{p.name}: in check, it may not move away; it may only capture the checking piece."
            )
        first = [c.source for c in p.components if c.initial and not c.pawnlike]
        if first:
            lines.append(f"{p.name}: as its first move it may also move {' '.join(first)}.")
        if p.once_per_game:
            lines.append(f"{p.name}: once per game it may make a Knight's move.")
        if p.succession:
            heir = v.piece(p.succession).name
            lines.append(f"{p.name}: checkmated, it may swap places with a {heir} (Kf2<>Pe5).")
    if v.captures_to_hand:
        demoted = (
            " A captured promoted piece returns as the piece it was."
            if v.demote_to_hand or any(p.demotes_to for p in v.pieces)
            else ""
        )
        dropped = next((p for p in v.pieces if not p.royal and p.letters), None)
        example = "B*c3"
        if v.notation == "shogi" and dropped is not None:
            example = f"{dropped.letters}*{_shogi_example(v)}"
        lines.append(
            f"Captured pieces go to your hand; drop them on empty squares ({example}).{demoted}"
        )
        lines.extend(_drop_rules(v))
    elif v.reserve_drops:
        lines.extend(_drop_rules(v))
    if v.must_drop:
        lines.append("While you hold a piece in hand you must drop one, if you can.")
    if v.notation == "shogi":
        last = "abcdefghijklmnop"[v.geometry.ranks - 1]
        lines.append(
            f"Moves are written in Western Shogi notation: files {v.geometry.files} to 1 from "
            f"the left, ranks a to {last} from the top; a move is its piece, - or x and the "
            f"square ({_shogi_example(v)}), + to promote, = to decline, * for a drop; "
            "coordinates (c3c4, b2h8+, P@e5) work too."
        )
    if v.reserve:
        counted = {r: v.reserve.count(r) for r in v.reserve}
        names = _and(
            [
                _with_article(v.piece(r).name)
                if n == 1
                else f"{_NUMBERS.get(n, str(n))} {v.piece(r).name}s"
                for r, n in counted.items()
            ]
        )
        if v.reserve_drops:
            lines.append(
                f"Each side holds {names} in hand, to be dropped on any empty square instead "
                "of a move (N*e4)."
            )
        elif v.reserve_in_hand:
            lines.append(
                f"Each side holds {names} in hand: when a piece leaves its first-row square "
                "for the first time, one may enter the square it left (Nb1-c3/H; when "
                "castling, on the King's or the Rook's square: O-O/H, O-O/H@h1)."
            )
        else:
            lines.append(
                f"Before move 1 each side places {names} behind back-rank pieces (FA@c1); "
                "they enter when that piece first moves."
            )
    return tuple(lines)


_NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _nth(n: int) -> str:
    """3 -> 'third'."""
    words = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
    return words.get(n, f"{n}th")


def _zone_lines(v: Variant, zone: Zone) -> list[str]:
    """The goal zone in words: whose pieces, where, how many, how safely."""
    names = ["piece" if pid == ANY_PIECE else v.piece(pid).name for pid in zone.pieces]
    white, black = zone.squares
    goals: list[tuple[str, str]] = []  # (whose pieces, where)
    if names[0] == names[1] and white and black:
        where = _squares(v, white)
        if black != white:
            where = f"{where} (White), {_squares(v, black)} (Black)"
        goals.append(("", where))
    else:
        goals.extend(
            (f"{side} ", _squares(v, squares))
            for side, squares in (("White", white), ("Black", black))
            if squares
        )
    lines = []
    for side, where in goals:
        name = names[0] if side != "Black " else names[1]
        if zone.count > 1:
            lines.append(f"{zone.count} {side}{name}s that reach {where} win at once.")
        elif zone.hold:
            at_once = "; one standing there unattacked wins at once" if zone.safe else ""
            lines.append(
                f"A {side}{name} that reaches {where} and still stands there when its side "
                f"is next to move wins{at_once}."
            )
        else:
            safely = " without being attacked there" if zone.safe else ""
            lines.append(f"A {side}{name} that reaches {where}{safely} wins at once.")
    if zone.full:
        lines.append(f"So does a single {names[0]} there once every square of it is occupied.")
    if zone.reply:
        lines.append(
            f"Except that when White's {names[0]} gets there first, Black still moves if its "
            f"own {names[1]} can get there in that move, which draws."
        )
    return lines
