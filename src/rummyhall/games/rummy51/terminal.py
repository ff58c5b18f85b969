"""The terminal table of ``rummyhall play rummy51``: one person (seat 1) against bots, game after
game, in a scrolling terminal, on the shared terminal base (:mod:`rummyhall.terminal.base`).

A thin driver around the engine, like the other tables: the house deals a provably-fair deck per
game (and refills the stock from the same seeds), bots act at once from their own views, and the
person's short commands become the engine's notation (``d`` -> ``draw closed``, ``o 6S 7S 8S |
10D 10C 10H`` -> ``open ...``, ``a 3 7H`` -> ``add 3 7H``, ``x 7H JK`` -> ``discard 7H JK``...);
whatever the engine refuses is shown with its error code and the person is asked again. A turn
is several actions, so the person is asked until their throw ends it.

At their turn the person sees their hand, the discard pile, the stock, who has opened and every
group on the table with its number, its owner and what its jokers stand for; until they open,
what the best opening their hand holds is worth against 51 (``hint`` shows its groups, from the
exact search the bot uses too). The first game's first player is drawn at random (our decision),
then the first move passes one seat on each game (:func:`~rummyhall.games.rummy51.rules.
next_first`). Every player puts in the stake (``--stake``, none by default) and the player who
goes out takes it all. The session ends when the person quits; it closes with a summary of the
games played. There are no timers at a terminal.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final, TextIO

from rummyhall.cards import Card, CardError, format_groups, parse, parse_groups, sort_key
from rummyhall.catalog import PlayRequest
from rummyhall.games.protocol import HOUSE, Deal, Event, GameError, Result, data_of, next_first
from rummyhall.games.rummy51.engine import PLAY, RESHUFFLE, START, Rummy51
from rummyhall.games.rummy51.events import DiscardEvent
from rummyhall.games.rummy51.groups import Group
from rummyhall.games.rummy51.opening import Opening, best_opening
from rummyhall.games.rummy51.rules import OPENING, Rummy51Config
from rummyhall.games.rummy51.text import Rummy51Text, chips_of
from rummyhall.games.rummy51.views import Rummy51View
from rummyhall.shuffle import FairDeal
from rummyhall.terminal.base import (
    HUMAN,
    NO_LIMIT_MS,
    Bot,
    QuitTable,
    Style,
    TerminalBase,
    canonical_card,
    draw_first,
    house_bots,
    pad,
    play,
    record_path,
    rpad,
)

HELP: Final = """\
Commands (cards as 7H, 10S, QD, JK; groups separated by |; [3] is group 3 on the table):
  d               draw from the stock               t       take the top of the discard pile
  o 6S 7S 8S | 10D 10C 10H                          open: groups worth 51 or more together
  o               open with the best opening your hand holds (hint shows it)
  m 4H 5H 6H      lay down more groups once you have opened; m alone: the best ones
  a 3 7H          add the 7H to group [3]; a 3 JK low / a 3 JK high: a joker at that end of a run
  s 3 7H          swap: put the 7H in place of the joker of [3] that stands for it, take the joker
  x 7H            throw the 7H (ends your turn)     x       throw the card you just drew
  x 7H JK         throw the 7H with a joker buried under it (nobody can take the joker)
  r               put back the discard you took without opening (then draw from the stock)
  hint            the best opening in your hand (after opening: groups and lay-offs you have)
  h               this help        q    quit        Enter    show the table again
Any other line is sent to the engine as notation, e.g. "draw closed" or "add 3 7H high".
There are no timers here: take your time. The bots move at once."""

_MOST_BOT_ACTIONS: Final = 60
"""A bot's actions in one turn before the table throws a card for it (a turn is a draw, a few
groups and lay-offs, and a throw: far fewer)."""

_BOT_REFUSALS: Final = 5
"""Refused actions a bot may make in one turn before the table moves for it."""

_LINE: Final = 100
"""The width the table's own lines keep within (a terminal of 100 columns)."""

_PILE_SHOWN: Final = 6
"""Cards of the discard pile shown, its top card included."""


_PLAIN: Final = Style(colour=False)
"""Cards in prompts: suit symbols, no colours (a line editor would count the escape codes)."""

make_bot = house_bots(Rummy51.name)
"""The house bot of each seat (:func:`rummyhall.terminal.base.house_bots`)."""


@dataclass(frozen=True, slots=True)
class Rummy51Settings:
    """What ``rummyhall play rummy51`` was asked for."""

    players: int = 4
    stake: int = 0
    """Chips each player puts in each game; the player who goes out takes them all."""
    seed: int = 0
    name: str = "You"
    record: Path | None = None
    client_seed: str | None = None

    def config(self, first: int = 1) -> Rummy51Config:
        """A game's config at this table (ValueError for one the rules refuse), with a turn time
        too long to ever run out."""
        return Rummy51Config(seats=self.players, stake=self.stake, first=first, turn_ms=NO_LIMIT_MS)


def _cards(texts: Sequence[str]) -> list[Card]:
    return [parse(text) for text in texts]


def _table_groups(view: Rummy51View) -> list[tuple[int, Group]]:
    """The groups on the table as :class:`Group`\\ s (to ask what fits them), with their ids."""
    return [
        (
            entry["id"],
            Group(
                "set" if entry["kind"] == "set" else "run",
                tuple(_cards(entry["cards"])),
                tuple(None if stand is None else parse(stand) for stand in entry["stands"]),
            ),
        )
        for entry in view["table"]
    ]


def _groups_text(groups: Sequence[Group]) -> str:
    return format_groups(group.cards for group in groups)


def translate(command: str, view: Rummy51View) -> str | None:
    """The engine action for one of the person's commands (anything else is passed on as
    notation); None for a command that is not an action (``hint``). ValueError with a message
    for the person when the command cannot be completed here."""
    words = command.split()
    word, rest = words[0].lower(), words[1:]
    simple = {
        "d": "draw closed",
        "draw": "draw closed",
        "t": "draw open",
        "take": "draw open",
        "r": "return",
    }
    if word in simple and not rest:
        return simple[word]
    if word in ("o", "m"):
        verb = "open" if word == "o" else "meld"
        if rest:
            return f"{verb} {_canonical_groups(' '.join(rest))}"
        opened = any(seat["opened"] for seat in view["seats"] if seat["seat"] == view["viewer"])
        if not view["drawn"] or view["first_round"] or opened != (verb == "meld"):
            return verb  # not the moment: the engine says why
        return f"{verb} {_groups_text(_best(view, verb).groups)}"
    if word == "a" and len(rest) in (2, 3):
        end = [rest[2].lower()] if rest[2:] else []
        return " ".join(["add", rest[0], canonical_card(rest[1]), *end])
    if word == "s" and len(rest) == 2:
        return f"swap {rest[0]} {canonical_card(rest[1])}"
    if word == "x":
        if rest:
            return "discard " + " ".join(canonical_card(card) for card in rest)
        drew = view.get("drew")
        if not view["drawn"] or view["turn"] != HUMAN:
            raise ValueError("draw first (d or t), then throw a card: x CARD")
        if drew is None or drew == "JK":
            raise ValueError("say which card to throw, e.g. x 7H")
        return f"discard {drew}"
    return " ".join(words)


def _canonical_groups(text: str) -> str:
    """Groups in canonical notation (``7h 8h 9h|10♠...``); text that does not parse goes to the
    engine as it is, to be refused with its reason."""
    try:
        groups = parse_groups(text)
    except CardError:
        return text
    return format_groups(groups)


def _best(view: Rummy51View, verb: str) -> Opening:
    """The best opening (``open``) or new groups (``meld``) of the person's hand now; ValueError
    when there is none worth laying."""
    hand = _cards(view.get("hand", []))
    if verb == "open":
        best = best_opening(hand, keep=1, opening=True)
        if not best.opens:
            raise ValueError(
                f"your best opening is worth {best.value}: {OPENING} needed "
                "(hint shows it; o GROUPS opens with groups of your own)"
            )
        return best
    best = best_opening(hand, keep=1, opening=False)
    if not best.groups:
        raise ValueError("no new group in your hand (a card always stays to throw)")
    return best


class Rummy51Table(TerminalBase[Rummy51, Rummy51View]):
    """A session of Rummy 51 games at the terminal."""

    help_text = HELP
    quit_question = "Quit? The game in play is abandoned."

    def __init__(
        self,
        settings: Rummy51Settings,
        *,
        out: TextIO,
        ask: Callable[[str], str],
        colour: bool | None,
        clock: Callable[[], int] | None = None,
        bot_factory: Callable[[int, int], Bot] | None = None,
        deal_source: Callable[[str, int], FairDeal] | None = None,
        first: Callable[[int], int] | None = None,
    ) -> None:
        """``bot_factory`` and ``first`` default to this module's :data:`make_bot` and
        :func:`draw_first`, ``deal_source`` to :func:`rummyhall.terminal.base.new_fair_deal`;
        ``colour`` None: colours on a terminal only."""
        self.settings = settings
        self.game = Rummy51(settings.config((first or draw_first)(settings.players)))
        super().__init__(
            settings,
            out=out,
            ask=ask,
            colour=colour,
            clock=clock,
            bot_factory=bot_factory or make_bot,
            deal_source=deal_source,
        )
        self.number = 1
        self.fair: FairDeal | None = None
        self.refills = 0
        """Refills of the stock in the current game (each derived from its deal's seeds)."""
        self.results: list[Result] = []
        """The results of the session's finished games, in order."""
        self.saved: list[Path] = []
        self.pending: tuple[int, str] | None = None
        """A bot's draw, told together with its throw when nothing happens in between."""
        self.text = Rummy51Text().speaking(self.voice)
        """The game's renderer: the words of the narration."""

    # --- the session ---------------------------------------------------------------------------

    def run(self) -> int:
        settings = self.settings
        stake = f"stake {settings.stake}" if settings.stake else "no stake"
        self.say(self.style.bold(f"Rummy Hall · Rummy 51 · {settings.players} players · {stake}"))
        bots = [self.who(s) for s in self.bots]
        against = bots[0] if len(bots) == 1 else f"{', '.join(bots[:-1])} and {bots[-1]}"
        self.say(f"You are {self.who(HUMAN)}, against {against}.")
        self.say("Type h for help. No timers: take your time.")
        self.say(
            self.style.dim(
                f"Open with {OPENING} or more in one turn, then lay off and swap jokers; throw "
                "your last card to win.\n"
                f"Deals are provably fair; client seed {self.client_seed}."
            )
        )
        try:
            while True:
                while not self.game.over:
                    self._step()
                self._flush()
                result = self.game.result
                assert result is not None
                self.results.append(result)
                self._save()
                answer = self.ask(f"Enter: game {self.number + 1} · q: quit › ")
                if answer.strip().lower() in ("q", "quit"):
                    break
                self._next_game()
        except (QuitTable, KeyboardInterrupt):
            self._flush()
            self.say("You left the table.")
            if not self.game.over:
                self._save()
        self.say(self._summary())
        return 0

    def _next_game(self) -> None:
        config = self.game.config
        self.number += 1
        self.game = Rummy51(self.settings.config(next_first(config.first, config.seats)))

    def _step(self) -> None:
        game = self.game
        awaited = game.awaited()
        if not awaited:  # pragma: no cover - the engine awaits someone until it is over
            raise RuntimeError(f"nobody to wait for in phase {game.phase}")
        seat = awaited[0].seat
        if seat == HOUSE:
            self._house()
        elif seat == HUMAN:
            self._flush()
            self._human()
        else:
            self._bot(seat)

    def _house(self) -> None:
        game = self.game
        if game.phase == RESHUFFLE and self.fair is not None:
            # The pile under its top card, in the order the deal's seeds give this refill.
            number = self.refills + 1
            self._apply(HOUSE, "deal", Deal.of_refill(self.fair, number, game.refill_source()))
            self.refills = number
            return
        assert game.phase == START
        self.fair = self.deal_source(self.client_seed, self.number - 1)
        self.refills = 0
        self._apply(HOUSE, "deal", Deal.of_fair(self.fair, *game.shoe()))

    def _bot(self, seat: int) -> None:
        """A bot's turn: its actions until it throws. A turn is several actions, so a bot is
        stopped only when it is refused :data:`_BOT_REFUSALS` times, gives none or fails; the
        table then finishes the turn for it (:meth:`_fallback`), one action at a time."""
        bot = self.bots[seat]
        refused = 0
        for _ in range(_MOST_BOT_ACTIONS):
            if self.game.phase != PLAY or self.game.turn != seat:
                return
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
                refused += 1
                if refused >= _BOT_REFUSALS:
                    self.say(self.style.dim(f"({self.who(seat)}: {action!r} refused: {exc.code})"))
                    break
        if self.game.phase == PLAY and self.game.turn == seat:
            self._apply(seat, self._fallback(seat))

    def _fallback(self, seat: int) -> str:
        """The next step of a turn the bot did not finish: draw from the stock, put back a
        discard taken without opening, throw the card drawn (or the first card it may)."""
        legal = self.game.legal(seat)
        for action in ("draw closed", "return"):
            if action in legal:
                return action
        drew = self.view(seat).get("drew")
        if drew is not None and f"discard {drew}" in legal:
            return f"discard {drew}"
        return next(a for a in legal if a.startswith("discard ") and "<" not in a)

    # --- the person --------------------------------------------------------------------------

    def _command(self, command: str, view: Rummy51View) -> bool:
        if command.split(maxsplit=1)[0].lower() == "hint":
            self.say("\n".join(self._hint_lines(view)))
            return False
        try:
            action = translate(command, view)
        except ValueError as exc:
            self._warn(str(exc), self.style.yellow)
            return False
        if action is None or not self._attempt(action):
            return False
        after = self.view(HUMAN)
        if self.game.over or after["turn"] != HUMAN:
            return True
        if action.split()[0] in ("open", "meld", "add", "swap"):
            self.say(self._table_block(after))
        self.say(self._turn_block(after))
        return False

    def _attempt(self, action: str) -> bool:
        """Apply the person's action; False, with the engine's refusal shown (wrapped to the
        screen), if refused."""
        try:
            self._apply(HUMAN, action)
        except GameError as exc:
            self._warn(f"{exc.code}: {exc.message}", self.style.red)
            return False
        return True

    def _warn(self, text: str, colour: Callable[[str], str]) -> None:
        for line in textwrap.wrap(text, _LINE - 1, initial_indent=" ", subsequent_indent="   "):
            self.say(colour(line))

    def _prompt(self, view: Rummy51View) -> str:
        if not view["drawn"]:
            if view["may_take_open"]:
                return f"Draw: d stock · t take {_PLAIN.card(view['open'][-1])} › "
            return "Draw from the stock: d › "
        if view["must_open"]:
            return "Open (o …) or put the card back (r) › "
        if view["first_round"]:
            return "Throw a card: x CARD › "
        if not self._opened(view, HUMAN):
            return "Open (o …) or throw a card (x CARD) › "
        return "Lay down (m …), add (a …), swap (s …) or throw (x CARD) › "

    @staticmethod
    def _opened(view: Rummy51View, seat: int) -> bool:
        return any(entry["opened"] for entry in view["seats"] if entry["seat"] == seat)

    def _hint_lines(self, view: Rummy51View) -> list[str]:
        """What ``hint`` shows: the best opening of the hand (also with the top of the pile,
        before drawing), or, after opening, the new groups and lay-offs it holds."""
        st = self.style
        hand = _cards(view.get("hand", []))
        if not hand:
            return [" Nothing to hint: you hold no cards."]
        if self._opened(view, HUMAN):
            return self._play_hints(view, hand)
        hint = view.get("opening_hint")
        if hint is not None:
            groups = hint["groups"]
            value = hint["value"]
        else:
            # Before the draw the hand may lay every card: the card drawn stays to throw.
            best = best_opening(hand, keep=0 if not view["drawn"] else 1, opening=True)
            groups = [[str(card) for card in group.cards] for group in best.groups]
            value = best.value
        lines = [" Best opening in your hand: " + self._against(value)]
        if groups:
            lines.append("   " + st.groups(groups))
        if value >= OPENING and view["drawn"] and not view["first_round"]:
            lines.append(st.dim("   o lays it down"))
        if not view["drawn"] and view["open"] and view["may_take_open"]:
            top = view["open"][-1]
            with_top = best_opening([*hand, parse(top)], keep=1, opening=True)
            lines.append(f" With the {st.card(top)} from the pile: {self._against(with_top.value)}")
            if with_top.groups:
                lines.append("   " + st.groups([group.cards for group in with_top.groups]))
        if view["first_round"]:
            lines.append(st.dim(" (nobody may open before everyone has had a turn)"))
        return lines

    def _against(self, value: int) -> str:
        """An opening's value against the 51 it needs."""
        if value >= OPENING:
            return self.style.green(f"{value} of {OPENING}: enough to open")
        return f"{value} of {OPENING}: {OPENING - value} short"

    def _play_hints(self, view: Rummy51View, hand: list[Card]) -> list[str]:
        st = self.style
        lines = []
        keep = 1 if view["drawn"] or view["turn"] != HUMAN else 0
        melds = best_opening(hand, keep=keep, opening=False)
        if melds.groups:
            lines.append(
                f" New groups you could lay down (worth {melds.value}): "
                + st.groups([group.cards for group in melds.groups])
            )
        table = _table_groups(view)
        fits: list[str] = []
        swaps: list[str] = []
        for card in sorted({str(c): c for c in hand}.values(), key=sort_key):
            ids = [str(number) for number, group in table if group.add(card) is not None]
            if ids and not card.is_joker:
                fits.append(f"{st.card(card)} → [{'] ['.join(ids)}]")
            swapped = [str(number) for number, group in table if group.swap(card) is not None]
            if swapped:
                swaps.append(f"{st.card(card)} for the joker of [{'] ['.join(swapped)}]")
        if fits:
            lines.append(" Cards that fit the table: " + " · ".join(fits))
        if swaps:
            lines.append(" Jokers you could swap: " + " · ".join(swaps))
        if len(hand) == 1:
            lines.append(" Your last card goes out with x.")
        return lines or [" Nothing to lay down or add: throw a card (x CARD)."]

    # --- rendering ---------------------------------------------------------------------------

    def render(self, view: Rummy51View) -> str:
        """The table as seat 1 sees it."""
        st = self.style
        head = f"Game {self.number} · stock {view['closed']}"
        if self.settings.stake:
            head += f" · stake {self.settings.stake}"
        lines = [st.rule(head), self._pile_line(view), ""]
        lines.append(self._seats_block(view))
        lines.append("")
        lines.append(self._table_block(view))
        lines.append("")
        lines.append(self._turn_block(view))
        return "\n".join(lines)

    def _pile_line(self, view: Rummy51View) -> str:
        st = self.style
        pile = view["open"]
        if not pile:
            return " Discard pile empty"
        under = [st.card(card) for card in pile[-_PILE_SHOWN:-1]]
        shown = (["…"] if len(pile) > _PILE_SHOWN else []) + under
        line = " Discard pile " + "".join(f"{card} " for card in shown) + f"[{st.card(pile[-1])}]"
        if len(pile) > 1 and pile[-2] == "JK":
            line += st.dim("  (a buried joker under it)")
        return line

    def _seats_block(self, view: Rummy51View) -> str:
        st = self.style
        rows = [st.dim("  " + pad("seat", 15) + rpad("cards", 5) + "  opened")]
        for entry in view["seats"]:
            seat = entry["seat"]
            row = "  " + pad(self.who(seat), 15) + rpad(str(entry["cards"]), 5)
            row += "  " + ("yes" if entry["opened"] else "—")
            notes = []
            if seat == view["first"]:
                notes.append(st.dim("moved first"))
            if view["turn"] == seat and view["phase"] in (PLAY, RESHUFFLE):
                notes.append(st.green("◀ your turn" if seat == HUMAN else "◀ to move"))
            if notes:
                row = pad(row, 32) + "  ".join(notes)
            rows.append(st.bold(row) if seat == HUMAN else row)
        return "\n".join(rows)

    def _table_block(self, view: Rummy51View) -> str:
        """The groups on the table: number, cards, kind, owner, what the jokers stand for."""
        st = self.style
        table = view["table"]
        if not table:
            return st.dim(" Nothing on the table yet.")
        texts = [st.cards(group["cards"]) for group in table]
        width = max(22, *(len(" ".join(group["cards"])) for group in table))
        lines = [st.bold(" On the table")]
        for group, text in zip(table, texts, strict=True):
            number = rpad(f"[{group['id']}]", 5)
            jokers = self.text.jokers(group)
            row = f" {number} {pad(text, width)}  {group['kind']}  {self.who(group['owner'])}"
            if jokers:
                row += st.dim("  " + ", ".join(jokers))
            lines.append(row)
        return "\n".join(lines)

    def _hand_line(self, view: Rummy51View) -> str:
        st = self.style
        hand = sorted(_cards(view.get("hand", [])), key=sort_key)
        by_suit: list[list[Card]] = []
        for card in hand:
            if by_suit and by_suit[-1][0].suit == card.suit:
                by_suit[-1].append(card)
            else:
                by_suit.append([card])
        text = "   ".join(st.cards(group) for group in by_suit)
        line = st.bold(" Your hand") + f" ({len(hand)})  {text}"
        drew = view.get("drew")
        if drew is not None and view["turn"] == HUMAN:
            line += st.dim("   drew ") + st.card(drew)
        return line

    def _turn_block(self, view: Rummy51View) -> str:
        """The person's hand, and during their turn where they stand and what they may do."""
        lines = [self._hand_line(view)]
        if view["turn"] == HUMAN and view["phase"] == PLAY:
            lines += self._status_lines(view)
        return "\n".join(lines)

    def _status_lines(self, view: Rummy51View) -> list[str]:
        st = self.style
        opened = self._opened(view, HUMAN)
        top = view["open"][-1] if view["open"] else None
        lines = []
        if view["first_round"]:
            lines.append(
                " Opening round: nobody opens before everyone has had a turn"
                + ("; the discard is free to take." if not view["drawn"] else ".")
            )
        if view["must_open"]:
            lines.append(
                st.yellow(
                    f" You took the {st.card(view.get('drew') or '?')} without having opened: "
                    "open this turn (o …), or put it back (r)."
                )
            )
        hint = view.get("opening_hint")
        if hint is not None:
            lines.append(
                " Your best opening: "
                + self._against(hint["value"])
                + st.dim(" · o lays it down" if hint["opens"] else "")
                + st.dim(" · hint shows it")
            )
        if view["may_take_open"] and not view["first_round"] and not opened and top is not None:
            cards = _cards(view.get("hand", []))
            with_top = best_opening([*cards, parse(top)], keep=1, opening=True)
            lines.append(
                f" Taking the {st.card(top)} obliges you to open this turn; with it your "
                f"best opening is {self._against(with_top.value)}."
            )
        hand = view.get("hand", [])
        natural = [card for card in hand if card != "JK"]
        if opened and view["drawn"] and len(hand) == 1:
            lines.append(st.green(f" Throw your last card to go out: x {hand[0]}"))
        elif opened and view["drawn"] and len(hand) == 2 and len(natural) == 1:
            lines.append(
                st.green(f" Bury the joker under your last card to go out: x {natural[0]} JK")
            )
        elif opened and view["drawn"]:
            lines.append(" You have opened: lay down (m), add (a), swap jokers (s), then throw.")
        lines.append(st.dim(" " + self._commands(view, opened) + " · hint · h help · q quit"))
        return lines

    def _commands(self, view: Rummy51View, opened: bool) -> str:
        if not view["drawn"]:
            return "d draw" + (" · t take" if view["may_take_open"] else "")
        if view["must_open"]:
            return "o GROUPS open · r put it back"
        parts = []
        if not view["first_round"]:
            parts += ["m GROUPS · a ID CARD · s ID CARD"] if opened else ["o GROUPS open"]
        parts.append("x CARD throw")
        if "JK" in view.get("hand", []):
            parts.append("x CARD JK bury a joker")
        return " · ".join(parts)

    # --- narration ---------------------------------------------------------------------------

    def _narrate(self, actor: int, action: str, events: Sequence[Event]) -> None:
        for event in events:
            if not event.visible_to(HUMAN):
                continue
            line = self._event_line(event)
            if line is None:
                continue
            kind = event.kind
            if actor not in (HUMAN, HOUSE) and kind == "draw":
                self._flush()
                self.pending = (actor, line)
                continue
            if kind == "discard" and self.pending is not None:
                seat, drawn = self.pending
                if data_of(event, DiscardEvent)["seat"] == seat:
                    self.pending = None
                    prefix = f" {self.who(seat)} "
                    line = drawn + "," + line.removeprefix(prefix[:-1])
            self._flush()
            self.say(line)

    def _flush(self) -> None:
        """Tell a bot's draw that is still waiting for its throw."""
        if self.pending is not None:
            self.say(self.pending[1])
            self.pending = None

    def _event_line(self, event: Event) -> str | None:
        """The renderer's words for the event, and the table's own frame: the deal's commitment,
        and at the end the chips and the deal's seeds."""
        self.text.number = self.number
        line = self.text.narrate(event)
        fair = self.fair
        if event.kind == "game_end":
            line = "\n" + self.style.rule(f"Game {self.number} over") + "\n" + (line or "")
        if line is None or fair is None:
            return line
        if event.kind == "deal":
            line += "\n" + self.style.dim(f" Commitment  {fair.commitment}")
        elif event.kind == "game_over":
            lines = [
                f" Server seed {fair.server_seed.hex()}",
                f" Client seed {fair.client_seed}, nonce {fair.nonce} (rummyhall verify-deal "
                "--decks 2 --jokers 2 checks the deck)",
            ]
            if self.refills:
                lines.append(
                    f" The stock was refilled {self.refills} time(s) from the same seeds "
                    "(verify-deal --refill checks each)"
                )
            line += "\n" + self.style.dim("\n".join(lines))
        return line

    # --- the session's end ---------------------------------------------------------------------

    def _summary(self) -> str:
        """The session in figures: per seat, games won, total score, mean place and chips."""
        st = self.style
        results = self.results
        games = len(results)
        if not games:
            return st.dim("No game was finished.")
        seats = range(1, self.settings.players + 1)
        wins = {seat: sum(seat in r.winners for r in results) for seat in seats}
        score = {seat: sum(r.points.get(seat, 0) for r in results) for seat in seats}
        places = {
            seat: sum(r.detail["places"][str(seat)]["place"] for r in results) / games
            for seat in seats
        }
        chips = {seat: 0 for seat in seats}
        for r in results:
            for seat, amount in chips_of(
                [{"account": p.account, "amount": p.amount} for p in r.postings]
            ).items():
                chips[seat] += amount
        plural = "game" if games == 1 else "games"
        lines = [
            "",
            st.rule(f"Session · {games} {plural}"),
            st.dim(
                "  "
                + pad("seat", 15)
                + rpad("won", 5)
                + rpad("score", 7)
                + rpad("mean place", 12)
                + (rpad("chips", 8) if self.settings.stake else "")
            ),
        ]
        for seat in seats:
            row = "  " + pad(self.who(seat), 15) + rpad(str(wins[seat]), 5)
            row += rpad(str(score[seat]), 7) + rpad(f"{places[seat]:.2f}", 12)
            if self.settings.stake:
                row += rpad(f"{chips[seat]:+d}", 8)
            lines.append(st.bold(row) if seat == HUMAN else row)
        lines.append(st.dim("  (scores: lower is better; going out scores -40)"))
        return "\n".join(lines)

    # --- records -------------------------------------------------------------------------------

    def _save(self) -> None:
        """Write this game's record when ``--record`` was given (game N of the session to a
        numbered file)."""
        path = self.settings.record
        if path is None or not self.game.log:
            return
        target = record_path(path, self.number)
        if self._write_record(target):
            self.saved.append(target)


def start(request: PlayRequest, out: TextIO) -> Callable[[], int]:
    """``rummyhall play rummy51`` (its catalog entry's terminal, a
    :data:`rummyhall.catalog.PlayEntry`): the settings from the request, checked (the first game's
    config is built from them) before the table opens; the session to play."""
    stake = request.options.get("stake")
    settings = Rummy51Settings(
        players=request.players,
        stake=0 if stake is None else stake,
        seed=request.seed,
        name=request.name,
        record=request.record,
        client_seed=request.client_seed,
    )
    settings.config()
    return partial(play, Rummy51Table, settings, out=out)
