"""Conditional moves: "if they play this, I answer that", without Discord.

While the opponent is to move, a player enters lines such as `e7-e5 Ng1-f3 Nb8-c6 Bf1-b5`:
the opponent's expected move, the answer, the next expected move, the next answer, in any
form `/move` accepts. Each step is checked against the position it is played in, with the
same parser and the same refusals as `/move`, and the step is named when one is refused.

Lines merge into a `Tree` of branches between positions (`storage.conditional.Branch`): lines
that share a beginning share branches, and lines that reach the same position by different
orders (transpositions) meet there, so the answers left after either order apply. Two lines
may not answer the same move in the same position differently.

When the opponent moves, `reply_to` (called by `GameService.play` under the game's lock)
looks the move up in the waiting player's tree: a match plays the answer in the same storage
transaction as the opponent's move and keeps the branches ahead of it; anything else drops
the tree. An answer that is no longer legal (it cannot happen; it is checked anyway) drops the
tree with a private notice to its owner. Every ending and takeback drops the tree in storage.

Trees are private: only their owner's commands read them (`Storage.conditional.tree`), and
nothing else shows them until a move of theirs is played.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bot.service import limits
from bot.service.engine import storage_outcome, suggest
from bot.service.errors import (
    BadRequestError,
    LineStepError,
    NoGameHereError,
    NotPlayingError,
    ServiceError,
)
from bot.service.inputs import player_text
from bot.service.models import Suggestion, UserRef
from bot.service.offload import off_loop, within
from rules.errors import GameOverError, MoveError, RulesError
from rules.game import Game as RulesGame
from rules.game import LegalMove, PlayedMove
from rules.position import Position
from rules.record import ply_label
from storage.conditional import MAX_BRANCHES, Branch, ConditionalPlan, ConditionalTree
from storage.errors import StorageError
from storage.models import Color, Game, NewEffect, NewMove

if TYPE_CHECKING:
    from bot.service.games import GameService

DROPPED = "conditional.dropped"
"""The effect telling a player privately that their conditional moves were dropped."""

MAX_LINE_CHARS = 2000
"""The longest line `/conditional add` reads (its option declares it, so the client's check
of options allows as much)."""
MAX_LINE_STEPS = 100
STEP_CACHE = 256
"""Lines being typed whose next step's moves are kept (autocomplete)."""
"""Steps in one line: 50 expected moves and 50 answers."""

_MOVE_NUMBER = re.compile(r"^\d+\.+")
_EN_PASSANT = re.compile(r"^\(?e\.?p\.?\)?$", re.IGNORECASE)


def position_key(position: Position) -> str:
    """How a tree names a position: the rules engine's position hash (the one repetitions
    use), in the hex form of `PlayedMove.position_hash`."""
    return f"{position.hash:016x}"


# ---------------------------------------------------------------------------- the tree


@dataclass(frozen=True, slots=True)
class Step:
    """One checked step of a line: what was typed and the move it is."""

    number: int
    text: str
    notation: str
    coordinates: str
    mine: bool
    """True for the owner's answers, False for the opponent's expected moves."""


@dataclass(frozen=True, slots=True)
class Line:
    """A checked line from the current position, as branches to store."""

    steps: tuple[Step, ...]
    branches: tuple[Branch, ...]
    ends_game: str = ""
    """How the game ends after the last answer (a conditional mate), if it does."""


@dataclass(frozen=True, slots=True)
class Row:
    """One branch as `/conditional list` shows it, in the order of a walk from the root."""

    depth: int
    reply: str
    """The expected move with its move number (`2... Nb8-c6`)."""
    answer: str
    """The answer with its move number (`3. Bf1-b5`)."""
    joins: bool = False
    """The answer reaches a position shown earlier (lines converge): its continuation is
    listed there."""


@dataclass(frozen=True, slots=True)
class Tree:
    """A player's conditional moves as a graph of positions (frozen: every change makes a
    new tree). `root` is the current position, where the opponent is to move."""

    root: str
    branches: tuple[Branch, ...] = ()

    def at(self, node: str) -> tuple[Branch, ...]:
        return tuple(b for b in self.branches if b.node == node)

    def find(self, node: str, reply: str) -> Branch | None:
        return next((b for b in self.branches if b.node == node and b.reply == reply), None)

    def reachable(self, start: str) -> Tree:
        """The branches still ahead from the position `start`, as a tree rooted there."""
        by_node: dict[str, list[Branch]] = {}
        for b in self.branches:
            by_node.setdefault(b.node, []).append(b)
        seen = {start}
        todo = deque([start])
        kept: set[Branch] = set()
        while todo:
            for b in by_node.get(todo.popleft(), ()):
                kept.add(b)
                if b.child not in seen:
                    seen.add(b.child)
                    todo.append(b.child)
        return Tree(start, tuple(b for b in self.branches if b in kept))

    def conflict(self, branches: Iterable[Branch]) -> Branch | None:
        """The branch of this tree that answers one of `branches`' moves differently."""
        for new in branches:
            old = self.find(new.node, new.reply)
            if old is not None and old.answer != new.answer:
                return old
        return None

    def merged(self, branches: Iterable[Branch]) -> Tree:
        known = {b.key for b in self.branches}
        extra = []
        for b in branches:
            if b.key not in known:
                known.add(b.key)
                extra.append(b)
        return Tree(self.root, (*self.branches, *extra))

    def rows(self, variant_ply: int, label: PlyLabel) -> list[Row]:
        """The tree walked depth first from the root, in the order the lines were entered;
        `variant_ply` is the game's ply count (the opponent's next move is ply + 1)."""
        out: list[Row] = []
        shown: set[str] = {self.root}

        def walk(node: str, depth: int) -> None:
            for b in self.at(node):
                index = variant_ply + 2 * depth
                joins = b.child in shown
                out.append(
                    Row(
                        depth,
                        f"{label(index)} {b.reply_notation}",
                        f"{label(index + 1)} {b.answer_notation}",
                        joins and bool(self.at(b.child)),
                    )
                )
                if not joins:
                    shown.add(b.child)
                    walk(b.child, depth + 1)

        walk(self.root, 0)
        return out


class PlyLabel:
    """Move numbers of a variant (`12.`, `12...`), as game records write them."""

    def __init__(self, rules_game: RulesGame) -> None:
        self._variant = rules_game.variant

    def __call__(self, index: int) -> str:
        return ply_label(self._variant, index)


# ---------------------------------------------------------------------------- reading lines


def split_line(text: str) -> list[str]:
    """The moves of a line: separated by spaces, or by commas, semicolons or line breaks
    when the line has any (then a move may contain a space, `e2 e4`). Move numbers (`1.`,
    `12...`) are skipped, and `e.p.` stays with its move."""
    text = player_text("line", text, limit=MAX_LINE_CHARS, lines=True)
    if re.search(r"[,;\n]", text):
        parts = [p.strip() for p in re.split(r"[,;\n]+", text)]
    else:
        parts = text.split()
    out: list[str] = []
    for part in parts:
        part = _MOVE_NUMBER.sub("", part).strip()
        if not part:
            continue
        if _EN_PASSANT.match(part) and out:
            out[-1] = f"{out[-1]} {part}"
            continue
        out.append(part)
    if not out:
        raise BadRequestError(
            "Write the line as your opponent's expected move, then your answer, and so on, "
            "e.g. `e7-e5 Ng1-f3 Nb8-c6 Bf1-b5`."
        )
    if len(out) > MAX_LINE_STEPS:
        raise BadRequestError(
            f"That line has {len(out)} moves; a line holds at most {MAX_LINE_STEPS}. "
            "Enter the rest once the game gets there."
        )
    return out


def check_line(rules_game: RulesGame, owner: Color, words: Sequence[str]) -> Line:
    """Plays `words` from the current position on a copy, exactly as `/move` reads each one;
    the opponent of `owner` is to move. Refusals name the step (`LineStepError`)."""
    trial = RulesGame(rules_game.variant, rules_game.position)
    mine = 0 if owner is Color.WHITE else 1
    steps: list[Step] = []
    branches: list[Branch] = []
    node = position_key(trial.position)
    pending: PlayedMove | None = None
    for number, word in enumerate(words, start=1):
        is_mine = number % 2 == 0
        mover = mine if is_mine else 1 - mine
        if trial.side_to_move != mover:
            raise BadRequestError(
                f"Step {number} (`{word}`): after step {number - 1} "
                + ("your opponent moves again" if is_mine else "you move again")
                + ", so this position cannot take conditional moves: a line alternates one "
                "move of your opponent and one answer of yours."
            )
        ended = trial.outcome()
        if ended is not None:
            raise BadRequestError(
                f"Step {number} (`{word}`): the game would already be over after step "
                f"{number - 1} ({ended.result_text}), so nothing can follow it."
            )
        try:
            played = trial.play(word)
        except MoveError as exc:
            raise LineStepError(number, word, is_mine, exc) from None
        steps.append(Step(number, word, played.notation, played.coordinates, is_mine))
        if not is_mine:
            pending = played
            continue
        assert pending is not None
        child = position_key(trial.position)
        branches.append(
            Branch(
                node=node,
                reply=pending.coordinates,
                reply_notation=pending.notation,
                answer=played.coordinates,
                answer_notation=played.notation,
                child=child,
            )
        )
        node, pending = child, None
    if pending is not None:
        ended = trial.outcome()
        if ended is not None:
            raise BadRequestError(
                f"Step {len(words)} (`{words[-1]}`) would end the game ({ended.result_text}): "
                "there is nothing to answer. Leave it out."
            )
        raise BadRequestError(
            f"The line ends with your opponent's move (step {len(words)}, `{words[-1]}`): "
            "add your answer to it."
        )
    ended = trial.outcome()
    return Line(tuple(steps), tuple(branches), ended.result_text if ended else "")


# ---------------------------------------------------------------------------- the move hook


@dataclass(frozen=True, slots=True)
class Reply:
    """What the waiting player's tree does with the opponent's move: the storage plan, the
    answer to append in the same transaction (already played on the rules game), and, when
    the tree had to be dropped for a reason its owner should hear, that reason."""

    plan: ConditionalPlan
    answer: NewMove | None = None
    answer_notation: str = ""
    owner_id: int | None = None
    dropped: str = ""


def reply_to(
    waiting: ConditionalTree | None, game: Game, before: str, rules_game: RulesGame
) -> Reply:
    """The waiting player's answer to the move just played on `rules_game` (from the
    position `before`), played on `rules_game` too when there is one. Pure: no I/O."""
    if waiting is None or waiting.empty:
        return Reply(ConditionalPlan(None))
    owner = waiting.owner_id
    seen = frozenset(waiting.branches)
    none = ConditionalPlan(owner, seen)
    color = game.color_of(owner)
    owner_side = 0 if color is Color.WHITE else 1
    if color is None or rules_game.outcome() is not None or rules_game.side_to_move != owner_side:
        return Reply(none, owner_id=owner)
    tree = Tree(before, waiting.branches)
    last = rules_game.history[-1]
    if not tree.at(before):
        reason = (
            "they were made for another position than the game's (the rules engine was "
            "updated since), so none of them could be matched"
        )
        return _dropped(none, game, rules_game.ply, reason)
    branch = tree.find(before, last.coordinates)
    if branch is None:
        return Reply(none, owner_id=owner)
    try:
        played = rules_game.play(branch.answer)
    except (MoveError, GameOverError) as exc:
        reason = (
            f"your answer {branch.answer_notation} to {last.notation} is not legal in the "
            f"game ({exc})"
        )
        return _dropped(none, game, rules_game.ply, reason)
    outcome = rules_game.outcome()
    keep = frozenset() if outcome else frozenset(tree.reachable(played.position_hash).branches)
    answer = NewMove(
        notation=played.notation,
        coordinate=played.coordinates,
        position_hash=played.position_hash,
        position_text=rules_game.position_text,
        turn_after=Color.WHITE if rules_game.side_to_move == 0 else Color.BLACK,
        outcome=storage_outcome(outcome) if outcome else None,
        conditional=True,
    )
    return Reply(ConditionalPlan(owner, seen, keep), answer, played.notation, owner)


def _dropped(plan: ConditionalPlan, game: Game, ply: int, reason: str) -> Reply:
    """The tree is dropped and its owner told why, privately, by an effect recorded with
    the opponent's move (`bot/announce.py` sends it)."""
    assert plan.owner_id is not None
    notice = NewEffect(
        DROPPED,
        {"user_id": plan.owner_id, "ply": ply, "reason": reason[:500]},
        game.id,
        queue=f"notices:{game.id}",
    )
    return Reply(replace(plan, effects=(notice,)), owner_id=plan.owner_id, dropped=reason)


# ---------------------------------------------------------------------------- the commands


@dataclass(frozen=True, slots=True)
class TreeView:
    """A player's conditional moves in one game, as `/conditional list` shows them."""

    game: Game
    variant_name: str
    opponent_name: str
    rows: tuple[Row, ...]

    @property
    def count(self) -> int:
        return len(self.rows)


@dataclass(frozen=True, slots=True)
class Added:
    """The answer to `/conditional add`: the line as read, and the tree it joined."""

    line: Line
    new_branches: int
    tree: TreeView


class ConditionalService:
    """`/conditional add`, `list` and `clear`, over the game service (games, rules, locks)."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.storage = games.storage
        self.lines = limits.RateWindow(limits.CONDITIONAL_LINES_PER_MINUTE, 60)
        self._steps: OrderedDict[tuple[int, int, str], list[LegalMove]] = OrderedDict()

    async def _waiting_for(
        self, channel_id: int, user_id: int, game_id: int | None, guild_id: int | None = None
    ) -> tuple[Game, Color]:
        """The game the player names, theirs and running, with the opponent to move."""
        game, color = await self.games.own_active_game(
            channel_id, user_id, game_id, guild_id=guild_id
        )
        if color is game.turn:
            raise BadRequestError(
                f"It is your turn in game #{game.id}: play your move with /move. Conditional "
                "moves are entered while your opponent is to move."
            )
        return game, color

    async def add(
        self,
        *,
        channel_id: int,
        user: UserRef,
        text: str,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> Added:
        """Check a line step by step and add it to the player's tree."""
        words = split_line(text)
        wait = self.lines.take(user.id, self.games.clock.now())
        if wait is not None:
            raise limits.LimitError(
                f"That is {limits.CONDITIONAL_LINES_PER_MINUTE} lines in a minute, the most "
                f"Fairy Post checks for one player: add this one {limits.wait_words(wait)}."
            )
        game, _ = await self._waiting_for(channel_id, user.id, game_id, guild_id)
        async with self.games.lock(game.id):
            game, color = await self._waiting_for(0, user.id, game.id)
            game = await self.games.settled(game)  # deadlines win: the opponent's clock
            rules_game = await self.games.rules(game)
            # Off the loop (a line of 99 steps on 16x16 is a third of a second); the game's
            # lock keeps its rules state still meanwhile.
            line = await off_loop(check_line, rules_game, color, words)
            before = await self.storage.conditional.tree(game.id, user.id)
            tree = Tree(position_key(rules_game.position), before.branches)
            clash = tree.conflict(line.branches)
            if clash is not None:
                answers = [s for s in line.steps if s.mine]
                step = next(
                    s for s, b in zip(answers, line.branches, strict=True) if b.key == clash.key
                )
                raise BadRequestError(
                    f"Step {step.number} (`{step.text}`): another of your lines already answers "
                    f"{clash.reply_notation} with {clash.answer_notation} in that position, and "
                    "a position takes one answer per move. To change it, /conditional clear and "
                    "enter your lines again."
                )
            total = len(tree.merged(line.branches).branches)
            if total > MAX_BRANCHES:
                raise BadRequestError(
                    f"A game holds at most {MAX_BRANCHES} conditional moves of yours; with this "
                    f"line you would have {total}."
                )
            await self.games.seen(user)
            stored = await self.storage.conditional.add(
                game.id, user.id, game.ply_count, line.branches, self.games.clock.now()
            )
        view = await self._view(game, rules_game, user.id, stored.branches)
        return Added(line, len(stored.branches) - len(before.branches), view)

    async def show(
        self,
        *,
        channel_id: int,
        user_id: int,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> list[TreeView]:
        """The player's trees: of the game named or played here, else of all their games
        of this server (in direct messages, of every server)."""
        try:
            games = [await self.games.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)]
        except NoGameHereError:
            ids = await self.storage.conditional.games_of(user_id)
            games = [await self.storage.games.get(g) for g in ids]
            games = [g for g in games if guild_id in (None, g.guild_id)]
        out = []
        for game in games:
            if game.color_of(user_id) is None:
                raise NotPlayingError(game.id)
            tree = await self.storage.conditional.tree(game.id, user_id)
            rules_game = await self.games.rules(game)
            out.append(await self._view(game, rules_game, user_id, tree.branches))
        return out

    async def clear(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> tuple[Game, int]:
        """Drop all the player's conditional moves in the game; how many there were."""
        game = await self.games.find(channel_id, game_id, guild_id=guild_id, user_id=user.id)
        if game.color_of(user.id) is None:
            raise NotPlayingError(game.id)
        async with self.games.lock(game.id):
            count = await self.storage.conditional.clear(game.id, user.id)
        return game, count

    async def suggest(
        self,
        *,
        channel_id: int,
        user_id: int,
        typed: str,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> list[Suggestion]:
        """Autocomplete for a line: the legal moves of the step being typed, after the
        steps already typed (for the first step, the opponent's moves as `/move` lists
        them for the opponent). Nothing when the line so far does not play."""
        try:
            game, _ = await self._waiting_for(channel_id, user_id, game_id, guild_id)
        except (ServiceError, StorageError):
            return []
        cut = max(typed.rfind(c) for c in (",;\n" if re.search(r"[,;\n]", typed) else " \t"))
        head, last = typed[: cut + 1], typed[cut + 1 :]
        stepping = self._step_moves(game, head)
        budget = self.games.suggest_seconds
        if budget is None or not self.games.long_and_cold(game):
            listed: list[LegalMove] | None = await stepping
        else:
            listed = await within(stepping, budget)
        if listed is None:  # a long game's first touch: the next keystroke will have them
            return [Suggestion("Checking the line so far… keep typing", typed.strip()[:100] or "…")]
        if head and not head[-1].isspace() and head[-1] in ",;":
            head += " "
        out = []
        for s in suggest(listed, last.strip()):
            value = head + s.value
            if len(value) > 100:
                continue
            name = head + s.name
            out.append(Suggestion(name if len(name) <= 100 else "…" + name[-99:], value))
        return out

    async def _step_moves(self, game: Game, head: str) -> list[LegalMove]:
        """The legal moves after the steps `head` (empty when they do not play), played off
        the loop and kept per game revision and line (each keystroke of the step being
        typed reuses them instead of replaying the line)."""
        key = (game.id, game.revision, " ".join(head.split()))
        found = self._steps.get(key)
        if found is not None:
            self._steps.move_to_end(key)
            return found
        rules_game = await self.games.rules(game)
        # A copy taken on the loop: the cached game may move on while the thread plays.
        trial = RulesGame(rules_game.variant, rules_game.position)

        def work() -> list[LegalMove]:
            if head.strip():
                try:
                    for word in split_line(head):
                        trial.play(word)
                except (RulesError, ServiceError):
                    return []
            return trial.legal_moves()

        listed = await off_loop(work)
        self._steps[key] = listed
        while len(self._steps) > STEP_CACHE:
            self._steps.popitem(last=False)
        return listed

    async def _view(
        self, game: Game, rules_game: RulesGame, user_id: int, branches: Sequence[Branch]
    ) -> TreeView:
        tree = Tree(position_key(rules_game.position), tuple(branches))
        rows = tuple(tree.rows(game.ply_count, PlyLabel(rules_game)))
        return TreeView(
            game,
            rules_game.variant.name,
            await self.games.name_of(game.opponent_of(user_id)),
            rows,
        )
