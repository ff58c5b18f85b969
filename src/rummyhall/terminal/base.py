"""What every terminal table of ``rummyhall play`` shares: one person (seat 1) against bots, in a
scrolling terminal, with nothing but the standard library. Each game's table is in its folder
(``games/<name>/terminal.py``, reached through its catalog entry) and builds on
:class:`TerminalBase`.

A table is a thin driver around the engine: the house deals provably-fair decks (a fresh
:class:`~rummyhall.shuffle.FairDeal` per deal, :func:`new_fair_deal`), bots act at once from their
own views (:func:`house_bots`), and the person's commands are translated into the engine's
notation. Whatever the engine refuses is shown with its error code and message, and the person is
asked again.

Time runs with the wall clock (the record keeps real times) but nobody is hurried: the table's
timers are set so long that no deadline is ever reached at a terminal.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final, Generic, Protocol, TextIO, TypeVar, cast

from rummyhall import catalog
from rummyhall.cards import Card, CardError, parse
from rummyhall.games.protocol import HOUSE, Deal, Event, Game, GameError, View
from rummyhall.games.text import Voice
from rummyhall.shuffle import FairDeal

HUMAN: Final = 1
"""The person always sits in seat 1."""

NO_LIMIT_MS: Final = 7 * 24 * 3600 * 1000
"""Turn and declare time at a terminal table: a week, i.e. no timer in practice."""

BOT_NAMES: Final = ("Asha", "Ravi", "Meera", "Kiran", "Dev")

WIDTH: Final = 78

_BOT_PATIENCE: Final = 5
"""Tries a bot gets per turn (refused moves, or non-moves such as ``group``) before the table
makes its fallback move."""

_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")


class Bot(Protocol):
    """What the table needs from a bot: the next action for the seat whose view it gets."""

    def act(self, view: View) -> str | None: ...


BotFactory = Callable[[int, int], Bot]
"""(table seed, seat) -> the bot of that seat."""


def house_bots(game: str) -> BotFactory:
    """The house bots of a game's terminal table: its catalog entry's bot, each seat with its own
    seed derived from the table's (``seed * 1000 + seat``)."""

    def make_bot(seed: int, seat: int) -> Bot:
        return catalog.get(game).bot(seed * 1000 + seat)

    return make_bot


def draw_first(players: int) -> int:
    """The first player of a session's first game, drawn at random (our decision for the tables
    that play game after game)."""
    return secrets.randbelow(players) + 1


def record_path(path: Path, number: int) -> Path:
    """Where game ``number`` of a session is saved: ``path`` itself for the first game, then
    ``name-2.json``, ``name-3.json``..."""
    return path if number == 1 else path.with_name(f"{path.stem}-{number}{path.suffix}")


def new_fair_deal(client_seed: str, nonce: int) -> FairDeal:
    """A provably-fair deal with a fresh secret server seed."""
    return FairDeal.new(client_seed, nonce)


def wall_clock() -> Callable[[], int]:
    """Milliseconds since this call, from the monotonic clock (records keep real times)."""
    start = time.monotonic()
    return lambda: int((time.monotonic() - start) * 1000)


def use_colour(out: TextIO) -> bool:
    """ANSI colours only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def visible_len(text: str) -> int:
    return len(_ANSI.sub("", text))


def pad(text: str, width: int) -> str:
    return text + " " * max(0, width - visible_len(text))


def rpad(text: str, width: int) -> str:
    return " " * max(0, width - visible_len(text)) + text


class Style:
    """Display forms: suit symbols, and ANSI colours when enabled (red suits, wild cards)."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def _sgr(self, codes: str, text: str) -> str:
        return f"\x1b[{codes}m{text}\x1b[0m" if self.colour else text

    def bold(self, text: str) -> str:
        return self._sgr("1", text)

    def dim(self, text: str) -> str:
        return self._sgr("2", text)

    def red(self, text: str) -> str:
        return self._sgr("31", text)

    def green(self, text: str) -> str:
        return self._sgr("32", text)

    def yellow(self, text: str) -> str:
        return self._sgr("33", text)

    def card(self, card: Card | str, wild_rank: str | None = None) -> str:
        """``10♥`` (red on a colour terminal); a wild card is highlighted, or marked ``*``."""
        if isinstance(card, str):
            card = parse(card)
        text = str(card)
        wild = card.is_joker or (wild_rank is not None and text[:-1] == wild_rank)
        if card.suit is not None:
            text = text[:-1] + card.suit.symbol
        if not self.colour:
            return text + "*" if wild and not card.is_joker else text
        codes = []
        if card.is_joker:
            codes.append("1;35")
        elif card.suit is not None and card.suit.letter in "HD":
            codes.append("31")
        if wild and not card.is_joker:
            codes.append("1;4")
        return self._sgr(";".join(codes), text) if codes else text

    def cards(self, cards: Sequence[Card | str], wild_rank: str | None = None) -> str:
        return " ".join(self.card(card, wild_rank) for card in cards)

    def groups(self, groups: Sequence[Sequence[Card | str]], wild_rank: str | None = None) -> str:
        return self.dim(" │ ").join(self.cards(group, wild_rank) for group in groups)

    def rule(self, title: str) -> str:
        head = f"── {title} "
        return self.bold(head + "─" * max(3, WIDTH - visible_len(head)))


class TerminalVoice(Voice):
    """A game renderer's voice at the terminal: the table's seat names, "You" for the person,
    suit symbols and colours (:class:`Style`)."""

    def __init__(self, style: Style, names: Mapping[int, str]) -> None:
        self.style = style
        self.names = names
        self.you = HUMAN

    def seat(self, seat: int) -> str:
        name = self.names.get(seat, "house")
        return f"p{seat} {name if len(name) <= 10 else name[:9] + '…'}"

    def subject(self, seat: int, you: str, other: str) -> str:
        if seat == HUMAN:
            return f"{self.style.bold('You')} {you}"
        return f"{self.seat(seat)} {other}"

    def card(self, card: str, wild_rank: str | None = None) -> str:
        return self.style.card(card, wild_rank)

    def groups(self, groups: Sequence[Sequence[str]], wild_rank: str | None = None) -> str:
        return self.style.groups(groups, wild_rank)

    def bold(self, text: str) -> str:
        return self.style.bold(text)

    def dim(self, text: str) -> str:
        return self.style.dim(text)

    def red(self, text: str) -> str:
        return self.style.red(text)

    def green(self, text: str) -> str:
        return self.style.green(text)

    def rule(self, title: str) -> str:
        return self.style.rule(title)

    def pad(self, text: str, width: int) -> str:
        return pad(text, width)

    def rpad(self, text: str, width: int) -> str:
        return rpad(text, width)


class QuitTable(Exception):
    """The person asked to leave (or the input ran out)."""


class SeatSettings(Protocol):
    """What a terminal table's settings (either game's) say about its seats."""

    @property
    def players(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def client_seed(self) -> str | None: ...


G = TypeVar("G", bound=Game)
V = TypeVar("V", bound=View)
"""The game's view type (``games/<name>/views.py``)."""


class TerminalBase(Generic[G, V]):
    """What every terminal table shares: the person in seat 1 and a house bot in each other seat,
    the input and output (colours on a terminal unless ``colour`` says otherwise), the clock, the
    provably-fair deal source, and applying an action without ever letting a deadline pass."""

    game: G
    help_text: ClassVar[str]
    """What ``h`` shows (unless :meth:`help` says otherwise)."""
    quit_question: ClassVar[str] = "Quit?"
    retry_refused: ClassVar[bool] = False
    """Whether a bot whose move was refused is asked again (else it makes the fallback move)."""

    def __init__(
        self,
        settings: SeatSettings,
        *,
        out: TextIO,
        ask: Callable[[str], str],
        colour: bool | None,
        clock: Callable[[], int] | None,
        bot_factory: BotFactory,
        deal_source: Callable[[str, int], FairDeal] | None = None,
    ) -> None:
        """``deal_source`` defaults to :func:`new_fair_deal`."""
        self.out = out
        self._ask = ask
        self.style = Style(use_colour(out) if colour is None else colour)
        self.clock = clock or wall_clock()
        self.deal_source = deal_source or new_fair_deal
        self.client_seed = settings.client_seed or secrets.token_hex(8)
        seats = range(2, settings.players + 1)
        self.bots = {seat: bot_factory(settings.seed, seat) for seat in seats}
        self.names = {HUMAN: settings.name, **{s: BOT_NAMES[s - 2] for s in self.bots}}
        self.voice = TerminalVoice(self.style, self.names)
        """How the game's renderer names the seats and styles its words here."""

    # --- input and output --------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.flush()
        try:
            return self._ask(prompt)
        except (EOFError, KeyboardInterrupt):
            self.say()
            raise QuitTable from None

    def confirm(self, question: str) -> bool:
        return self.ask(f"{question} [y/N] ").strip().lower() in ("y", "yes")

    def who(self, seat: int) -> str:
        return self.voice.seat(seat)

    def view(self, seat: int | None) -> V:
        """``seat``'s view of the game, typed as the game's own view (the engine's ``view`` is
        typed as the protocol's general one; each game's engine returns its own shape)."""
        return cast("V", self.game.view(seat))

    def run(self) -> int:
        """Play until the game (or session) ends or the person leaves; the exit status."""
        raise NotImplementedError

    # --- the game ------------------------------------------------------------------------------

    def _bot(self, seat: int) -> None:
        """A bot's move; a bot that fails, gives none or keeps being refused makes the game's
        fallback move, so the person's game always goes on."""
        bot = self.bots[seat]
        for _ in range(_BOT_PATIENCE):
            try:
                action = bot.act(self.view(seat))
            except Exception as exc:  # a broken bot must not end the person's game
                self.say(self.style.dim(f"({self.who(seat)}'s bot failed: {exc!r})"))
                break
            if action is None:
                break
            try:
                self._apply(seat, action)
            except GameError as exc:
                self.say(self.style.dim(f"({self.who(seat)}: {action!r} refused: {exc.code})"))
                if self.retry_refused:
                    continue
                break
            if not self._keeps_turn(action):
                return
        self._apply(seat, self._fallback(seat))

    def _keeps_turn(self, action: str) -> bool:
        """Whether an accepted action leaves the bot still to move (e.g. rearranging cards)."""
        return False

    def _fallback(self, seat: int) -> str:
        """A legal move for a bot that gave none."""
        raise NotImplementedError

    def _apply(self, seat: int, action: str, deal: Deal | None = None) -> list[Event]:
        game = self.game
        at = max(self.clock(), game.clock)
        deadline = next((a.deadline for a in game.awaited() if a.seat == seat), None)
        if seat != HOUSE and deadline is not None:
            at = min(at, deadline)  # no timers at a terminal: never let a deadline pass
        events = game.apply(seat, action, at, deal=deal)
        self._narrate(seat, action, events)
        return events

    def _narrate(self, actor: int, action: str, events: Sequence[Event]) -> None:
        """Tell the person what ``actor``'s ``action`` did."""
        raise NotImplementedError

    # --- the person ----------------------------------------------------------------------------

    def _human(self) -> None:
        """The person's turn: commands until one makes a move (help, quitting and showing the
        table again, on an empty line, are the same at every table)."""
        self.say()
        self.say(self.render(self.view(HUMAN)))
        while True:
            view = self.view(HUMAN)
            command = self.ask(self._prompt(view)).strip()
            if not command:
                self.say(self.render(view))
                continue
            word = command.split()[0].lower()
            if word in ("h", "help", "?"):
                self.say(self.help())
            elif word in ("q", "quit", "exit"):
                if self.confirm(self.quit_question):
                    raise QuitTable
            elif self._command(command, view):
                return

    def help(self) -> str:
        """What ``h`` shows: :attr:`help_text`, or words that depend on the game (a hand size)."""
        return self.help_text

    def _attempt(self, action: str) -> bool:
        """Apply the person's action; False, with the engine's refusal shown, if refused."""
        try:
            self._apply(HUMAN, action)
        except GameError as exc:
            self.say(self.style.red(f"{exc.code}: {exc.message}"))
            return False
        return True

    def render(self, view: V) -> str:
        """The table as the person sees it."""
        raise NotImplementedError

    def _prompt(self, view: V) -> str:
        raise NotImplementedError

    def _command(self, command: str, view: V) -> bool:
        """Carry out one of the person's commands; whether it made their move."""
        raise NotImplementedError

    def _write_record(self, path: Path) -> bool:
        """Save the game's record to ``path`` and say so (or why not); whether it was saved."""
        try:
            path.write_text(json.dumps(self.game.record(), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            self.say(self.style.red(f"could not write the record: {exc}"))
            return False
        self.say(f"Record saved to {path}; replay it with: rummyhall replay {path} --verbose")
        return True


def canonical_card(text: str) -> str:
    """``7h`` -> ``7H``, ``10♥`` -> ``10H``; anything unparsable is left for the engine."""
    text = text.strip()
    try:
        return str(parse(text))
    except CardError:
        return text


def play(
    table: Callable[..., TerminalBase[Any, Any]],
    settings: SeatSettings,
    *,
    out: TextIO,
    ask: Callable[[str], str] = input,
    colour: bool | None = None,
    clock: Callable[[], int] | None = None,
) -> int:
    """Play at the terminal: ``table`` (a :class:`TerminalBase` subclass) made from ``settings``
    runs until the game or session ends or the person leaves; the exit status."""
    return table(settings, out=out, ask=ask, colour=colour, clock=clock).run()
