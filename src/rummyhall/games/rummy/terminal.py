"""The terminal table of the rummy games (``rummyhall play <game>``): one person (seat 1) against
bots, one match (a points deal or a whole pool), on the shared terminal base
(:mod:`rummyhall.terminal.base`). A game's ``terminal.py`` subclasses :class:`RummySettings` (its
own options and its config) and :class:`RummyTable` (its engine), and gives its catalog entry's
``start``; the rest comes from the engine (its rules, its meld profile, its hand size) and the
catalog (the game's title, bots and text renderer).

The person's commands are translated into the engine's notation (``o`` -> ``draw open``...);
the meld hints and auto-arrangement come from the solver (:mod:`rummyhall.melds`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Final, Self, TextIO, TypeVar

from rummyhall import catalog
from rummyhall.cards import Card, CardError, format_groups, parse, parse_groups, sort_key
from rummyhall.catalog import PlayRequest
from rummyhall.games.protocol import HOUSE, Deal, Event, data_of
from rummyhall.games.rummy.engine import RummyGame
from rummyhall.games.rummy.events import DrawEvent, DrewEvent
from rummyhall.games.rummy.rules import RummyConfig
from rummyhall.games.rummy.text import RummyText
from rummyhall.games.rummy.views import DealSummary, RummyView
from rummyhall.melds import Arrangement, Hint, Kind, Role, arrange, check, hint
from rummyhall.shuffle import FairDeal
from rummyhall.terminal.base import (
    HUMAN,
    WIDTH,
    Bot,
    QuitTable,
    TerminalBase,
    canonical_card,
    house_bots,
    pad,
    play,
    rpad,
)

V = TypeVar("V", bound=RummyView)
"""The game's view type (the rummy view, or a game's own extension of it)."""

_KIND_TEXT: Final = {
    Kind.PURE_SEQUENCE: "pure sequence",
    Kind.IMPURE_SEQUENCE: "impure sequence",
    Kind.SET: "set",
    Kind.TUNNELA: "tunnela (pure)",
    Kind.DUBLEE: "pair",
    Kind.JOKERS: "jokers",
    Kind.INVALID: "loose",
}

HELP: Final = """\
Commands (cards as 7H, 10S, QD, JK; groups separated by |):
  o               draw the open card            c          draw from the closed deck
  d 7H            discard 7H                    d          discard the card you just drew
  x 7H            declare with 7H in the finish slot; the other {hand_size} are auto-arranged
  x 7H | AS 2S 3S | ...    declare with your own groups (cards left out form a last group)
  x               declare with the hint's discard, if the hint is a valid declaration
  g AS 2S 3S | ...         arrange your cards (cards left out form a last group)
  a               auto-arrange your cards (the hint's grouping)
  drop            give up the deal, at the start of your turn before you draw: a first drop
                  if you have not drawn yet this deal, else a middle drop (costs more)
  s               show your groups after someone declared (yours if you arranged, else auto)
  s AS 2S 3S | ...         show these groups
  h               this help        q    quit        Enter    show the table again
Any other line is sent to the engine as notation, e.g. "discard 7H" or "draw closed".
There are no timers here: take your time. The bots move at once."""
"""What ``h`` shows; ``{hand_size}`` is the game's hand size."""


@dataclass(frozen=True, slots=True)
class RummySettings:
    """What ``rummyhall play <game>`` was asked for that every rummy game takes. A game's settings
    add the fields of its own options (a rule profile, a mode) and build its config."""

    players: int = 4
    seed: int = 0
    name: str = "You"
    record: Path | None = None
    client_seed: str | None = None

    @classmethod
    def of(cls, request: PlayRequest, **rules: Any) -> Self:
        """The settings ``request`` asks for; ``rules``: the game's own fields, read from its
        options (:attr:`PlayRequest.options`)."""
        return cls(
            players=request.players,
            seed=request.seed,
            name=request.name,
            record=request.record,
            client_seed=request.client_seed,
            **rules,
        )

    def config(self) -> RummyConfig:
        """The game's config of this table, with timers too long to ever run out
        (:data:`rummyhall.terminal.base.NO_LIMIT_MS`); ValueError for a table the rules refuse."""
        raise NotImplementedError


def _cards(texts: Sequence[str]) -> list[Card]:
    return [parse(text) for text in texts]


def _minus(cards: Sequence[Card], taken: Sequence[Card]) -> list[Card] | None:
    """``cards`` without one copy of each of ``taken``; None if one of them is not there."""
    left = list(cards)
    for card in taken:
        if card not in left:
            return None
        left.remove(card)
    return left


def hint_groups(advice: Hint) -> list[list[Card]]:
    """The beginner's hint as groups (melds, near melds, loose cards, the discard last): every
    card exactly once."""
    return [list(group.cards) for group in advice.groups]


def auto_groups(arrangement: Arrangement) -> list[list[Card]]:
    """The solver's groups with the unmelded cards as a last group (and, for a hand with a drawn
    card, the discard on its own at the end): every card exactly once."""
    groups = [list(group) for group in arrangement.groups]
    if arrangement.leftover:
        groups.append(sorted(arrangement.leftover, key=sort_key))
    if arrangement.discard is not None:
        groups.append([arrangement.discard])
    return groups


class RummyTable(TerminalBase[RummyGame, V]):
    """One match (a points deal, or a whole pool) at the terminal. A game's table sets
    :attr:`engine`."""

    engine: ClassVar[type[RummyGame]]
    """The game's engine, made from :meth:`RummySettings.config`."""
    quit_question = "Quit? The game is abandoned."

    def __init__(
        self,
        settings: RummySettings,
        *,
        out: TextIO,
        ask: Callable[[str], str],
        colour: bool | None,
        clock: Callable[[], int] | None = None,
        bot_factory: Callable[[int, int], Bot] | None = None,
        deal_source: Callable[[str, int], FairDeal] | None = None,
    ) -> None:
        """``bot_factory`` defaults to the game's house bots
        (:func:`rummyhall.terminal.base.house_bots`), ``deal_source`` to
        :func:`rummyhall.terminal.base.new_fair_deal`; ``colour`` None: colours on a terminal
        only."""
        self.settings = settings
        self.game = self.engine(settings.config())
        super().__init__(
            settings,
            out=out,
            ask=ask,
            colour=colour,
            clock=clock,
            bot_factory=bot_factory or house_bots(self.engine.name),
            deal_source=deal_source,
        )
        self.fair: list[FairDeal] = []
        self.refills = 0
        """Refills of the closed deck in the current deal (each derived from its seeds)."""
        self.drawn: str | None = None
        """The card the person drew this turn (None: not drawn, or not known)."""
        self.quiet_moves = 0
        """Bot moves not narrated while the person is out of the deal."""
        renderer = catalog.get(self.engine.name).renderer()
        assert isinstance(renderer, RummyText), "a rummy game's text is a RummyText"
        self.text = renderer.speaking(self.voice)
        """The game's renderer (its catalog entry's): the words of the narration."""

    @classmethod
    def session(cls, settings: RummySettings, out: TextIO) -> Callable[[], int]:
        """What a game's ``start`` returns (a :data:`rummyhall.catalog.PlayEntry`'s session):
        the match to play at this table. The settings are checked first (the game's config is
        built from them), so a table the rules refuse raises ValueError before it opens."""
        settings.config()
        return partial(play, cls, settings, out=out)

    @property
    def melds(self) -> str:
        """The meld profile the game's rules judge hands by (hints, auto groups, checks)."""
        return self.game.rules.melds

    def help(self) -> str:
        """The commands, with the game's hand size."""
        return HELP.format(hand_size=self.game.common.hand_size)

    # --- the match ---------------------------------------------------------------------------

    def run(self) -> int:
        view = self.view(HUMAN)
        title = catalog.get(self.engine.name).title
        self.say(
            self.style.bold(
                f"Rummy Hall · {title} · {view['profile']} · {_mode(view)} · "
                f"{self.settings.players} players"
            )
        )
        self.say(
            f"You are {self.who(HUMAN)}; the bots are "
            + ", ".join(self.who(s) for s in self.bots)
            + ". Type h for help. No timers: take your time."
        )
        self.say(self.style.dim(f"Deals are provably fair; client seed {self.client_seed}."))
        try:
            while not self.game.over:
                self._step()
        except (QuitTable, KeyboardInterrupt):
            self.say("You left the table; the game is abandoned.")
        self._save()
        return 0

    def _step(self) -> None:
        game = self.game
        awaited = game.awaited()
        seats = [a.seat for a in awaited]
        if HOUSE in seats:
            if game.phase == "between":
                self._between_deals()
            self._house()
            return
        bots = [s for s in seats if s != HUMAN]
        if bots:
            self._bot(bots[0])
        elif HUMAN in seats:
            self._human()
        else:  # pragma: no cover - the engine always awaits someone until it is over
            raise RuntimeError(f"nobody to wait for in phase {game.phase}")

    def _house(self) -> None:
        game = self.game
        if game.phase == "reshuffle":
            # The open pile under its top card, in the order the deal's seeds give this refill.
            number = self.refills + 1
            self._apply(HOUSE, "deal", Deal.of_refill(self.fair[-1], number, game.refill_source()))
            self.refills = number
            return
        fair = self.deal_source(self.client_seed, len(self.fair))
        self.fair.append(fair)
        self.refills = 0
        self._apply(HOUSE, "deal", Deal.of_fair(fair, *game.shoe()))

    def _between_deals(self) -> None:
        game = self.game
        for seat, bot in self.bots.items():
            if "rejoin" in game.legal(seat) and bot.act(self.view(seat)) == "rejoin":
                self._apply(seat, "rejoin")
        view = self.view(HUMAN)
        if "rejoin" in game.legal(HUMAN):
            pool = view["pool"]
            highest = max(s["total"] for s in view["seats"] if s["status"] != "eliminated")
            fee = f" for {pool['entry_fee']} chips" if pool["entry_fee"] else ""
            if self.confirm(f"You are out of the pool. Rejoin{fee} on {highest + 1} points?"):
                self._apply(HUMAN, "rejoin")
        me = next(s for s in self.view(HUMAN)["seats"] if s["seat"] == HUMAN)
        if me["status"] != "eliminated":
            answer = self.ask(f"Enter: deal {game.deal_no + 1} · q: quit › ")
            if answer.strip().lower() in ("q", "quit"):
                raise QuitTable

    def _keeps_turn(self, action: str) -> bool:
        return action.split(maxsplit=1)[0] == "group"  # arranging one's cards is not a move

    def _fallback(self, seat: int) -> str:
        """A move for a bot that gave none: draw closed, throw the drawn card, show auto groups."""
        game = self.game
        legal = game.legal(seat)
        view = self.view(seat)
        if "draw closed" in legal:
            return "draw closed"
        if any(action.startswith("show") for action in legal):
            return "show " + format_groups(self._auto(view["hand"]))
        return next(a for a in legal if a.startswith("discard"))

    def _auto(self, hand: Sequence[str]) -> list[list[Card]]:
        cut = self.game.cut
        assert cut is not None
        return auto_groups(arrange(_cards(hand), joker=cut, profile=self.melds))

    # --- the person --------------------------------------------------------------------------

    def _command(self, command: str, view: V) -> bool:
        try:
            action = self.translate(command, view)
        except ValueError as exc:
            self.say(self.style.yellow(str(exc)))
            return False
        if action is None or not self._attempt(action):
            return False
        if action.startswith(("draw", "group")):
            self.say(self._hand_block(self.view(HUMAN)))
            return False
        return True

    def _prompt(self, view: V) -> str:
        phase = view["phase"]
        if phase == "show":
            return "Show your groups (s) › "
        if phase == "declare":
            return "Confirm your declaration (s) › "
        if view["drawn"]:
            return "Discard (d CARD) or declare (x CARD) › "
        return "Draw: o open, c closed (or drop) › "

    def translate(self, command: str, view: V) -> str | None:
        """The engine action for a command; None when there is nothing to send; ValueError with
        a message for the person when the command cannot be completed here."""
        word, _, rest = command.partition(" ")
        word = word.lower()
        rest = rest.strip()
        hand = _cards(view["hand"])
        if word == "o" and not rest:
            return "draw open"
        if word == "c" and not rest:
            return "draw closed"
        if word == "d":
            if not rest:
                if view["phase"] != "play" or not view["drawn"]:
                    raise ValueError("draw first (o or c), then discard")
                if self.drawn is None:
                    raise ValueError("say which card to discard, e.g. d 7H")
                return f"discard {self.drawn}"
            return f"discard {canonical_card(rest)}"
        if word == "x":
            return self._declare(rest, hand, view)
        if word == "g":
            if not rest:
                raise ValueError("give your groups, e.g. g AS 2S 3S | 7H 8H 9H")
            return "group " + _complete(rest, hand)
        if word == "a" and not rest:
            cut = self.game.cut
            assert cut is not None
            return "group " + format_groups(hint_groups(hint(hand, joker=cut, profile=self.melds)))
        if word == "s":
            if view["phase"] not in ("show", "declare"):
                raise ValueError("s shows your groups after a declaration; nobody has declared")
            if rest:
                text = _complete(rest, hand)
            else:
                mine = view["arrangement"]
                text = (
                    " | ".join(" ".join(group) for group in mine)
                    if mine
                    else format_groups(self._auto(view["hand"]))
                )
            if view["phase"] == "declare" and not self._sure(text):
                return None
            return f"show {text}"
        return command  # notation, or something for the engine to refuse

    def _declare(self, rest: str, hand: list[Card], view: V) -> str | None:
        cut = self.game.cut
        assert cut is not None
        if not rest:
            hint = arrange(hand, joker=cut, profile=self.melds)
            if hint.discard is None:
                raise ValueError("draw first, then declare: x CARD")
            if not hint.declarable:
                raise ValueError(
                    f"no valid declaration yet (the best grouping scores {hint.penalty}); "
                    "name the card to declare anyway: x CARD"
                )
            groups = [list(group) for group in hint.groups]
            return f"declare {hint.discard} | {format_groups(groups)}"
        card_text, bar, groups_text = rest.partition("|")
        card = canonical_card(card_text)
        try:
            finish = parse(card)
        except CardError:
            return f"declare {card}"  # the engine explains
        others = _minus(hand, [finish])
        if others is None:
            return f"declare {card}"  # not held: the engine explains
        if bar:
            text = _complete(groups_text, others)
        else:
            text = format_groups(auto_groups(arrange(others, joker=cut, profile=self.melds)))
        if not self._sure(text):
            return None
        return f"declare {card} | {text}"

    def _sure(self, groups_text: str) -> bool:
        """Ask before a declaration that the rules will judge wrong (it scores the game's
        ``wrong_declaration``)."""
        cut = self.game.cut
        assert cut is not None
        try:
            verdict = check(parse_groups(groups_text), joker=cut, profile=self.melds)
        except CardError:
            return True  # the engine explains
        if verdict.declarable:
            return True
        self.say(self.style.yellow(f" Not a valid declaration: {verdict.reason}."))
        wrong = self.game.common.wrong_declaration
        return self.confirm(f" A wrong declaration scores {wrong}. Declare anyway?")

    # --- rendering ---------------------------------------------------------------------------

    def render(self, view: V) -> str:
        """The table as seat 1 sees it."""
        st = self.style
        wild = view["wild_rank"]
        lines = [st.rule(f"Deal {view['deal']} · {view['profile']} · {_mode(view)}")]
        cut = view["cut"]
        closed = f"closed deck {view['closed']}"
        left = f" Cut joker {st.card(cut or '?', wild)}  wild: {self._wild_text(view)}"
        lines.append(pad(left, WIDTH - len(closed)) + closed)
        pile = view["open"]
        if pile:
            under = [st.card(c, wild) for c in pile[-6:-1]]
            top = st.card(pile[-1], wild)
            shown = (["…"] if len(pile) > 6 else []) + under
            line = " Open pile " + (" ".join(shown) + " " if shown else "") + f"[{top}]"
            if view["phase"] == "play" and view["turn"] == HUMAN and not view["drawn"]:
                line += (
                    st.green("  you may take it")
                    if view["may_take_open"]
                    else (st.yellow("  you may not take it"))
                )
            lines.append(line)
        else:
            lines.append(" Open pile empty")
        lines.append("")
        lines.append(self._seats_block(view))
        declarer = next((s for s in view["seats"] if s["status"] == "won" and s["shown"]), None)
        if view["phase"] == "show" and declarer is not None:
            finish = st.card(declarer["finish"], wild) if declarer.get("finish") else "?"
            lines.append("")
            lines.append(
                f" {self.who(declarer['seat'])} declared: "
                f"{st.groups(declarer['shown'] or [], wild)}   finish {finish}"
            )
        lines.append("")
        lines.append(self._hand_block(view))
        return "\n".join(lines)

    def _wild_text(self, view: V) -> str:
        """The deal's wild cards in words, for the table's head (a game with more wild cards than
        the cut rank and the printed jokers says so)."""
        return "every ace and JK" if view["cut"] == "JK" else f"every {view['wild_rank']} and JK"

    def _hand_block(self, view: V) -> str:
        """The person's hand, their groups and the hint, and the commands that fit the moment."""
        if view["phase"] in ("show", "declare"):
            commands = "s show (your groups, else the best) · s GROUPS · g … group · a auto"
        elif view["drawn"]:
            commands = "d CARD discard · d the drawn card · x CARD declare · g … group · a auto"
        else:
            commands = "o draw open · c draw closed · drop · g … group · a auto"
        return "\n".join(
            [
                self._hand_line(view),
                self._groups_block(view),
                self.style.dim(f" {commands} · h help · q quit"),
            ]
        )

    def _seats_block(self, view: V) -> str:
        st = self.style
        pool = view["mode"] != "points"
        header = "  " + pad("seat", 14) + rpad("cards", 5) + "  " + pad("status", 12)
        header += rpad("score", 5) + (rpad("total", 7) if pool else "")
        rows = [st.dim(header)]
        for entry in view["seats"]:
            seat = entry["seat"]
            status = entry["status"]
            if entry["how"] and status not in ("playing", "showing"):
                status = entry["how"]
            cards = str(entry["cards"]) if entry["cards"] else "—"
            score = "" if entry["score"] is None else str(entry["score"])
            row = "  " + pad(self.who(seat), 14) + rpad(cards, 5) + "  " + pad(status, 12)
            row += rpad(score, 5) + (rpad(str(entry["total"]), 7) if pool else "")
            if view["turn"] == seat and view["phase"] in ("play", "reshuffle"):
                row += st.green("  ◀ your turn" if seat == HUMAN else "  ◀ to move")
            elif seat in [a["seat"] for a in view["awaited"]]:
                row += st.green("  ◀ to show")
            if seat == HUMAN:
                row = st.bold(row)
            rows.append(row)
        if pool:
            info = view["pool"]
            rows.append(
                st.dim(
                    f"  out at {info['elimination']} · rejoin while every total ≤ "
                    f"{info['rejoin_limit']}"
                )
            )
        return "\n".join(rows)

    def _hand_line(self, view: V) -> str:
        st = self.style
        wild = view["wild_rank"]
        hand = _cards(view["hand"])
        by_suit: list[list[Card]] = []
        for card in sorted(hand, key=sort_key):
            if by_suit and by_suit[-1][0].suit == card.suit:
                by_suit[-1].append(card)
            else:
                by_suit.append([card])
        text = "   ".join(st.cards(group, wild) for group in by_suit)
        line = f" Your hand ({len(hand)})  {text}"
        if view["drawn"] and self.drawn is not None:
            line += st.dim("   drew ") + st.card(self.drawn, wild)
        return st.bold(" Your hand") + line[len(" Your hand") :]

    def _groups_block(self, view: RummyView) -> str:
        """The person's own groups (when they arranged) and the solver's hint."""
        st = self.style
        wild = view["wild_rank"]
        cut = self.game.cut
        if cut is None or not view["hand"]:
            return ""
        lines: list[str] = []
        mine = view.get("arrangement")
        hand = _cards(view["hand"])
        best = arrange(hand, joker=cut, profile=self.melds)
        advice = hint(hand, joker=cut, profile=self.melds)
        if mine:
            groups = [_cards(group) for group in mine]
            verdict = check(groups, joker=cut, profile=self.melds)
            state = st.green("valid declaration") if verdict.declarable else verdict.reason
            lines.append(st.bold(" Your groups") + f": {verdict.score} points · {state}")
            lines += self._group_rows([(g.cards, g.kind) for g in verdict.groups], wild)
            if _shape(groups) != _shape(hint_groups(advice)):
                lines.append(st.dim(" Best grouping (a): ") + self._hint_summary(best, wild))
                lines.append(" " + advice.summary)
        else:
            lines.append(
                st.dim(" Best grouping (hint; a to use it): ") + self._hint_summary(best, wild)
            )
            lines += self._hint_rows(advice, wild)
            lines.append(" " + advice.summary)
        return "\n".join(lines)

    def _hint_rows(self, advice: Hint, wild: str | None) -> list[str]:
        """The hint's groups with their words: melds dim, near melds and loose cards plain."""
        st = self.style
        out = []
        for group in advice.groups:
            text = st.cards(group.cards, wild)
            label = group.label if group.role is not Role.MELD else st.dim(group.label)
            out.append("   " + pad(text, 30) + "  " + label)
        return out

    def _hint_summary(self, hint: Arrangement, wild: str | None) -> str:
        text = f"{hint.penalty} points"
        if hint.discard is not None:
            text += " after discarding " + self.style.card(hint.discard, wild)
        if hint.declarable:
            ready = "you can declare: x" if hint.discard is not None else "every card melded"
            text += " · " + self.style.green(ready)
        return text

    def _group_rows(
        self, rows: Sequence[tuple[Sequence[Card], Kind]], wild: str | None
    ) -> list[str]:
        st = self.style
        out = []
        for cards, kind in rows:
            text = st.cards(cards, wild)
            label = _KIND_TEXT.get(kind, str(kind))
            out.append("   " + pad(text, 30) + "  " + (st.dim(label) if kind.is_meld else label))
        return out

    # --- narration ---------------------------------------------------------------------------

    def _narrate(self, actor: int, action: str, events: Sequence[Event]) -> None:
        st = self.style
        view = self.view(HUMAN)
        wild = view["wild_rank"]
        me = next(s for s in view["seats"] if s["seat"] == HUMAN)
        watching = me["status"] not in ("playing", "showing")
        for event in events:
            if not event.visible_to(HUMAN):
                continue
            kind = event.kind
            if kind in ("draw", "discard", "drew", "group", "turn") and watching:
                if kind == "discard":
                    self.quiet_moves += 1
                continue
            if self.quiet_moves and kind not in ("draw", "discard", "drew", "group", "turn"):
                turns = "turn" if self.quiet_moves == 1 else "turns"
                self.say(st.dim(f"   … {self.quiet_moves} more {turns} …"))
                self.quiet_moves = 0
            if kind == "deal":
                self.drawn = None
            elif kind == "drew":
                self.drawn = data_of(event, DrewEvent)["card"]
            elif kind == "draw" and (draw := data_of(event, DrawEvent))["seat"] == HUMAN:
                self.drawn = draw.get("card", self.drawn)
            line = self._event_line(event, wild)
            if line is not None:
                self.say(line)
            if kind == "deal_end":
                self.say(self._deal_end(data_of(event, DealSummary), self.view(HUMAN)))
            elif kind == "game_over":
                self.say("\n".join(self.text.game_over_lines(self.view(HUMAN))))
        if actor == HUMAN and action.startswith(("discard", "declare")):
            self.drawn = None

    def _event_line(self, event: Event, wild: str | None) -> str | None:
        """The renderer's words for the event, and the deal's commitment (the table's frame)."""
        self.text.wild = wild
        line = self.text.narrate(event)
        if event.kind == "deal" and line is not None and self.fair:
            line += "\n" + self.style.dim(f" Commitment  {self.fair[-1].commitment}")
        return line

    def _deal_end(self, data: DealSummary, view: V) -> str:
        """The renderer's table of the deal's scores, and the deal's seeds."""
        st = self.style
        lines = self.text.deal_end_lines(data, view)
        if self.fair and len(self.fair) >= data["deal"]:
            fair = self.fair[data["deal"] - 1]
            lines.append(st.dim(f" Server seed {fair.server_seed.hex()}"))
            lines.append(
                st.dim(
                    f" (client seed {fair.client_seed}, nonce {fair.nonce}: "
                    "rummyhall verify-deal recomputes the deck)"
                )
            )
            if self.refills:
                lines.append(
                    st.dim(
                        f" The closed deck was refilled {self.refills} time(s) from the same "
                        "seeds (verify-deal --refill recomputes each)"
                    )
                )
        return "\n".join(lines)

    # --- the record --------------------------------------------------------------------------

    def _save(self) -> None:
        path = self.settings.record
        if path is None:
            if not self.game.log:
                return
            try:
                answer = self._ask("Save the record? File name (Enter: no) › ").strip()
            except (EOFError, KeyboardInterrupt):
                self.say()
                return
            if not answer:
                return
            path = Path(answer)
        self._write_record(path)


def _mode(view: RummyView) -> str:
    """How a table is played, in words: ``points``, or the pool (``pool 101``)."""
    pool = view.get("pool")
    return view["mode"] if pool is None else f"pool {pool['elimination']}"


def _shape(groups: Sequence[Sequence[Card]]) -> list[list[str]]:
    """Groups compared as sets of cards (order inside and between groups ignored)."""
    return sorted(sorted(str(card) for card in group) for group in groups)


def _complete(groups_text: str, cards: Sequence[Card]) -> str:
    """The person's groups in canonical notation, with every card they left out as a last group.
    Text that does not parse, or names cards not held, goes to the engine unchanged."""
    try:
        groups = parse_groups(groups_text)
    except CardError:
        return groups_text.strip()
    rest = _minus(cards, [card for group in groups for card in group])
    if rest is None:
        return groups_text.strip()
    if rest:
        groups.append(sorted(rest, key=sort_key))
    return format_groups(groups)
