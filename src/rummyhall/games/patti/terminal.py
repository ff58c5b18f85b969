"""The terminal table of ``rummyhall play patti``: one person (seat 1) against bots, game after
game, in a scrolling terminal, on the shared terminal base (:mod:`rummyhall.terminal.base`).

A thin driver around the engine, like the 13-card table: the house deals a provably-fair deck per
game, bots act at once from their own views, and the person's short commands become notation
(``c`` -> ``chaal``, ``o 7H`` -> ``exchange open 7H``...); whatever the engine refuses is shown
with its error code and the person is asked again. The stacks carry over from game to game and
the first move passes one seat on (:meth:`Patti.next_config`); the first game's first player is
drawn at random. The session ends when the person quits, runs out of chips, or fewer than two
players can pay the boot. There are no timers at a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final, TextIO

from rummyhall.catalog import PlayRequest
from rummyhall.games.patti.engine import Patti
from rummyhall.games.patti.rules import PattiConfig
from rummyhall.games.patti.text import PattiText
from rummyhall.games.patti.views import PattiView
from rummyhall.games.protocol import HOUSE, Deal, Event
from rummyhall.shuffle import FairDeal
from rummyhall.terminal.base import (
    HUMAN,
    NO_LIMIT_MS,
    Bot,
    QuitTable,
    TerminalBase,
    canonical_card,
    draw_first,
    house_bots,
    pad,
    play,
    record_path,
    rpad,
)

STACK_BOOTS: Final = 100
"""The chips each player brings to a terminal table, in boots, unless told."""

HELP: Final = """\
Commands (cards as 7H, 10S, QD):
  c               chaal                          c2         chaal 2X
  o 7H            give up 7H for the open card   o 7H 2     the same, paying 2X
  b 7H            give up 7H for the closed (blind) card, unseen; b 7H 2 pays 2X
  s               sideshow: compare hands with the player before you (3+ players in)
  show            show: both hands turned over (2 players in)
  p               pack (leave this game)
  y / n           accept / refuse a sideshow you are asked for
  h               this help        q    quit        Enter    show the table again
Any other line is sent to the engine as notation, e.g. "chaal 2x" or "exchange open 7H".
There are no timers here: take your time. The bots move at once."""


make_bot = house_bots(Patti.name)
"""The house bot of each seat (:func:`rummyhall.terminal.base.house_bots`)."""


@dataclass(frozen=True, slots=True)
class PattiSettings:
    """What ``rummyhall play patti`` was asked for."""

    players: int = 4
    boot: int = 10
    stack: int = 0
    """Chips each player brings (0: :data:`STACK_BOOTS` boots)."""
    seed: int = 0
    name: str = "You"
    record: Path | None = None
    client_seed: str | None = None

    def config(self, first: int = 1) -> PattiConfig:
        stack = self.stack or STACK_BOOTS * self.boot
        return PattiConfig(
            seats=self.players,
            boot=self.boot,
            stacks=(stack,) * self.players,
            first=first,
            turn_ms=NO_LIMIT_MS,
        )


class PattiTable(TerminalBase[Patti, PattiView]):
    """A session of Rummy Patti games at the terminal."""

    help_text = HELP
    retry_refused = True

    def __init__(
        self,
        settings: PattiSettings,
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
        self.game = Patti(settings.config((first or draw_first)(settings.players)))
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
        self.saved: list[Path] = []
        self.text = PattiText().speaking(self.voice)
        """The game's renderer: the words of the narration."""

    # --- the session ---------------------------------------------------------------------------

    def run(self) -> int:
        settings = self.settings
        config = self.game.config
        self.say(
            self.style.bold(
                f"Rummy Hall · Rummy Patti · boot {config.boot} · {settings.players} players · "
                f"{config.stacks[0]} chips each"
            )
        )
        self.say(
            f"You are {self.who(HUMAN)}; the bots are "
            + ", ".join(self.who(s) for s in self.bots)
            + ". Type h for help. No timers: take your time."
        )
        self.say(
            self.style.dim(
                f"Max chaal {config.max_chaal}, pot limit {config.pot_limit}. "
                f"Deals are provably fair; client seed {self.client_seed}."
            )
        )
        try:
            while True:
                while not self.game.over:
                    self._step()
                self._save()
                if not self._next_game():
                    break
        except (QuitTable, KeyboardInterrupt):
            self.say("You left the table.")
            if not self.game.over:
                self._save()
        return 0

    def _next_game(self) -> bool:
        """Set up the next game; False when the session is over."""
        stacks = self.game.final_stacks()
        boot = self.game.config.boot
        if stacks[HUMAN - 1] < boot:
            self.say(self.style.bold(" You are out of chips. Thanks for playing!"))
            return False
        try:
            config = self.game.next_config()
        except ValueError:
            self.say(self.style.bold(" Nobody else has the chips for another game: you win!"))
            return False
        answer = self.ask(f"Enter: game {self.number + 1} · q: quit › ")
        if answer.strip().lower() in ("q", "quit"):
            return False
        self.number += 1
        self.game = Patti(config)
        return True

    def _step(self) -> None:
        awaited = self.game.awaited()
        if not awaited:  # pragma: no cover - the engine awaits someone until it is over
            raise RuntimeError(f"nobody to wait for in phase {self.game.phase}")
        seat = awaited[0].seat
        if seat == HOUSE:
            self.fair = self.deal_source(self.client_seed, self.number - 1)
            self._apply(HOUSE, "deal", Deal.of_fair(self.fair, *self.game.shoe()))
        elif seat == HUMAN:
            self._human()
        else:
            self._bot(seat)

    def _fallback(self, seat: int) -> str:
        return "refuse" if "refuse" in self.game.legal(seat) else "pack"

    # --- the person --------------------------------------------------------------------------

    def _command(self, command: str, view: PattiView) -> bool:
        return self._attempt(translate(command))

    def _prompt(self, view: PattiView) -> str:
        sideshow = view["sideshow"]
        if view["phase"] == "sideshow" and sideshow is not None:
            return f"{self.who(sideshow['asker'])} asks you for a sideshow: y / n › "
        price = f"chaal {view['chaal']}"
        if view["chaal_2x"] is not None:
            price += f", 2X {view['chaal_2x']}"
        return f"Your move ({price}) › "

    # --- rendering ---------------------------------------------------------------------------

    def render(self, view: PattiView) -> str:
        """The table as seat 1 sees it."""
        st = self.style
        double = "" if view["chaal_2x"] is None else f" (2X {view['chaal_2x']})"
        lines = [
            st.rule(f"Game {self.number} · chaal {view['chaal']}{double} · pot {view['pot']}"),
            f" Open card {st.cards(view['open'])}   closed card ▒   "
            + st.dim(f"pot limit {view['pot_limit']} · max chaal {view['max_chaal']}"),
            "",
            st.dim("  " + pad("seat", 14) + rpad("stack", 7) + rpad("paid", 7) + "  status"),
        ]
        for entry in view["seats"]:
            seat = entry["seat"]
            row = "  " + pad(self.who(seat), 14) + rpad(str(entry["stack"]), 7)
            row += rpad(str(entry["paid"]), 7) + "  " + pad(entry["status"], 8)
            if seat == view["dealer"]:
                row += st.dim(" dealer")
            if seat in [a["seat"] for a in view["awaited"]]:
                row += st.green("  ◀ your turn" if seat == HUMAN else "  ◀ to move")
            lines.append(st.bold(row) if seat == HUMAN else row)
        lines += ["", f" {st.bold('Your hand')}  {st.cards(view['hand'])}   {view['class']}"]
        for seen in view["seen"]:
            verdict = {"win": "yours was better", "lose": "theirs was better", "tie": "equal"}
            lines.append(
                f" Sideshow: {self.who(seen['seat'])} had {st.cards(seen['cards'])} "
                f"({seen['class']}): {verdict[seen['outcome']]}"
            )
        lines.append(
            st.dim(
                " c chaal · c2 chaal 2X · o/b CARD [2] exchange open/blind · s sideshow · "
                "show · p pack · h help"
            )
        )
        return "\n".join(lines)

    # --- narration ---------------------------------------------------------------------------

    def _narrate(self, actor: int, action: str, events: Sequence[Event]) -> None:
        for event in events:
            if event.visible_to(HUMAN):
                line = self._event_line(event)
                if line is not None:
                    self.say(line)

    def _event_line(self, event: Event) -> str | None:
        """The renderer's words for the event, and the deal's seeds (the table's own frame)."""
        self.text.number = self.number
        kind = event.kind
        line = self.text.narrate(event)
        if line is None or self.fair is None:
            return line
        fair = self.fair
        if kind == "deal":
            line += "\n" + self.style.dim(f" Commitment  {fair.commitment}")
        elif kind == "game_over":
            line += "\n" + self.style.dim(
                f" Server seed {fair.server_seed.hex()} (client seed "
                f"{fair.client_seed}, nonce {fair.nonce}: rummyhall "
                "verify-deal --decks 1 --jokers 0 recomputes the deck)"
            )
        return line

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


def translate(command: str) -> str:
    """The engine action for a short command (anything else is passed on as notation)."""
    words = command.split()
    word, rest = words[0].lower(), words[1:]
    simple = {
        "c": "chaal",
        "c2": "chaal 2x",
        "2x": "chaal 2x",
        "s": "sideshow",
        "p": "pack",
        "y": "accept",
        "n": "refuse",
    }
    if word in simple and not rest:
        return simple[word]
    if word in ("o", "b") and 1 <= len(rest) <= 2:
        where = "open" if word == "o" else "closed"
        card = canonical_card(rest[0])
        if rest[1:] and rest[1].lower() not in ("2", "2x"):
            return f"exchange {where} {card} {rest[1]}"  # the engine explains
        return f"exchange {where} {card}" + (" 2x" if rest[1:] else "")
    return " ".join(words)


def start(request: PlayRequest, out: TextIO) -> Callable[[], int]:
    """``rummyhall play patti`` (its catalog entry's terminal, a
    :data:`rummyhall.catalog.PlayEntry`): the settings from the request, checked (the first game's
    config is built from them) before the table opens; the session to play."""
    boot = request.options.get("boot")
    settings = PattiSettings(
        boot=10 if boot is None else boot,
        stack=request.options.get("stack") or 0,
        players=request.players,
        seed=request.seed,
        name=request.name,
        record=request.record,
        client_seed=request.client_seed,
    )
    settings.config()
    return partial(play, PattiTable, settings, out=out)
