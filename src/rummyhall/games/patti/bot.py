"""A bot for Rummy Patti (``patti``).

It sees what its seat sees and nothing more: ``act`` gets ``game.view(seat)`` and answers with the
next action in the game's notation (docs/records.md), or None. Its measure of a hand is the share
of all 22,100 hands it beats (:func:`rummyhall.games.patti.hands.share_beaten`), a tie counting
half; against ``k`` opponents it counts on winning about ``share ** k``. On top of that:

* **Sideshow information.** A hand it saw in a sideshow, whose player has not exchanged since, is
  compared exactly: an opponent known to be better makes it pack, one known to be worse no longer
  counts against it.
* **Raises and position.** Each raise (a 2x) by an opponent still in weighs like an extra
  opponent for that player; when every player who acted since its last turn only paid the chaal
  it raises more readily (the others look weak), and a late seat steals a little more.
* **Exchanges.** The open card is known: the best card to give up for it is found exactly. The
  closed card is not: for each card it could give up, the average over the cards it has not seen.
  It exchanges when the better of the two gains at least :attr:`Style.exchange_gain`.
* **Betting.** It packs when its chance is too small for the price (which rises with the chaal
  and with raises), raises strong hands, calls a show when two are left and it is ahead, and asks
  the previous player for a sideshow with middling hands, to learn. It accepts a sideshow with a
  decent hand and refuses with a weak one (which would tell too much).
* **Randomness.** Every threshold is blurred by noise from its own ``random.Random(seed)``, and
  it sometimes plays a weak hand on, so a fixed counter-rule does not beat it. Same seed, same
  views in the same order: same actions.

Like every bot it never sends an action twice in the same state: a refused action is followed by
its next preference, so a bot cannot loop.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from rummyhall.cards import shoe
from rummyhall.games.patti.hands import TABLE, share_beaten
from rummyhall.games.patti.views import MoveView, PattiSeatView, PattiView, patti_view

View = Mapping[str, Any]
"""Any game's view, as the ``Bot`` protocol hands it over (the bot reads it as its game's own)."""

_CODES: Final = {str(card): card.code for card in shoe(1, 0)}
"""Card notation -> card code, for the 52 cards of a pack."""

_RAISES: Final = frozenset({"chaal 2x", "exchange open 2x", "exchange closed 2x"})
_EXCHANGES: Final = frozenset({"exchange open", "exchange closed", *_RAISES} - {"chaal 2x"})


@dataclass(frozen=True, slots=True)
class Style:
    """The bot's rules of thumb, as numbers (tuned by self-play with ``rummyhall simulate``)."""

    noise: float = 0.06
    """Spread of the random blur on every comparison (uniform, plus or minus)."""
    pack_base: float = 0.25
    """Chance of winning below which it packs when the chaal is the boot ..."""
    pack_per_doubling: float = 0.04
    """... plus this for each doubling of the chaal since the boot."""
    pack_price: float = 0.6
    """... or, when more, this times the price's share of the pot after paying it."""
    play_on: float = 0.06
    """Chance of playing a hand on anyway instead of packing (a bluff)."""
    raise_above: float = 0.7
    """Chance of winning above which it raises (2x) when it may ..."""
    raise_per_doubling: float = 0.06
    """... plus this for each doubling of the chaal since the boot (raise wars end) ..."""
    raise_quiet: float = 0.1
    """... less this when everyone who acted since its last turn only paid the chaal ..."""
    raise_late: float = 0.05
    """... and less this when it is the last player in before the first player."""
    raise_bluff: float = 0.03
    """Chance of raising whatever the hand."""
    raise_weight: float = 0.6
    """Each raise by an opponent counts as this many extra opponents for that player."""
    show_above: float = 0.55
    """With two left, call a show when the chance of winning is above this."""
    show_stake: float = 0.25
    """... or when the chaal is above this share of what it has left (it cannot stay long)."""
    sideshow_band: tuple[float, float] = (0.35, 0.8)
    """Hands whose share beaten lies in this band ask for a sideshow ..."""
    sideshow_chance: float = 0.5
    """... this often."""
    accept_above: float = 0.45
    """Share beaten above which it accepts a sideshow."""
    exchange_gain: float = 0.04
    """Gain in share beaten an exchange must bring (expected, for the closed card)."""


DEFAULT_STYLE: Final = Style()


def _share(a: int, b: int, c: int) -> float:
    return share_beaten(TABLE[a][b][c])


def best_open_swap(hand: Sequence[int], open_code: int) -> tuple[float, int]:
    """(share beaten after, index of the card to give up) of the best swap for the open card."""
    best = (-1.0, 0)
    for index in range(3):
        kept = [code for i, code in enumerate(hand) if i != index]
        best = max(best, (_share(kept[0], kept[1], open_code), -index))
    return best[0], -best[1]


def _pair_totals() -> list[list[float]]:
    """``[a][b]``: the shares beaten of the hands ``a``, ``b`` and a third card, summed over every
    third card. Less the few cards the bot has seen, that makes the average over the cards it has
    not seen one subtraction instead of fifty lookups (the closed card is one of those)."""
    totals = [[0.0] * 52 for _ in range(52)]
    for a in range(52):
        for b in range(a + 1, 52):
            row = TABLE[a][b]
            total = sum(share_beaten(row[c]) for c in range(52) if c not in (a, b))
            totals[a][b] = totals[b][a] = total
    return totals


_PAIR_TOTALS: Final = _pair_totals()


def best_closed_swap(hand: Sequence[int], seen: Sequence[int]) -> tuple[float, int]:
    """(expected share beaten after, index of the card to give up) of the best blind swap for the
    closed card, which is any card but the ``seen`` ones (the hand among them) with equal
    chance."""
    others = set(seen)
    best = (-1.0, 0)
    for index in range(3):
        a, b = (code for i, code in enumerate(hand) if i != index)
        row = TABLE[a][b]
        total = _PAIR_TOTALS[a][b]
        for code in others:
            if code not in (a, b):
                total -= share_beaten(row[code])
        best = max(best, (total / (52 - len(others)), -index))
    return best[0], -best[1]


@dataclass(slots=True)
class _Read:
    """What the bot makes of the table at its turn."""

    share: float
    chance: float
    """Estimated chance of winning against everyone still in."""
    beaten_by_known: bool
    """A hand it saw in a sideshow, unchanged since, beats its own."""
    opponents: int
    quiet: bool
    """Everyone who acted since its last turn only paid the chaal."""
    late: bool


class PattiBot:
    """A Rummy Patti player for one seat (see the module docstring)."""

    def __init__(self, seed: int = 0, *, style: Style = DEFAULT_STYLE) -> None:
        self.seed = seed
        self.style = style
        # A seeded generator of its own: play is reproducible, and nothing here is a secret.
        self.rng = random.Random(seed)  # noqa: S311
        self._state: tuple[Any, ...] | None = None
        self._tried: set[str] = set()
        self._plan: list[str] = []

    # --- the protocol --------------------------------------------------------------------

    def act(self, view: View) -> str | None:
        """The next action for the seat whose view this is, or None when it has nothing to do."""
        return self._act(typed) if (typed := patti_view(view)) is not None else None

    def _act(self, view: PattiView) -> str | None:
        seat = view["viewer"]
        if seat is None or seat < 1:
            return None
        mine = [a.get("kind") for a in view.get("awaited") or () if a.get("seat") == seat]
        if not mine:
            return None
        state = (len(view.get("moves") or ()), view.get("phase"), tuple(view.get("hand") or ()))
        if state != self._state:
            self._state, self._tried = state, set()
            self._plan = list(self._choose(view, seat, str(mine[0])))
        for action in self._plan:
            if action not in self._tried:
                self._tried.add(action)
                return action
        return None

    # --- decisions -----------------------------------------------------------------------

    def _blur(self) -> float:
        return self.rng.uniform(-self.style.noise, self.style.noise)

    def _choose(self, view: PattiView, seat: int, kind: str) -> Iterable[str]:
        """Actions in order of preference (the later ones are fallbacks)."""
        hand = [_CODES[text] for text in view.get("hand") or ()]
        if len(hand) != 3:
            return ()
        if kind == "sideshow":
            share = _share(*hand)
            accept = share + self._blur() > self.style.accept_above
            return ("accept", "refuse") if accept else ("refuse", "accept")
        if kind != "turn":
            return ()
        return self._turn(view, seat, hand)

    def _turn(self, view: PattiView, seat: int, hand: list[int]) -> list[str]:
        style = self.style
        entries = {int(entry["seat"]): entry for entry in view["seats"]}
        me = entries[seat]
        stack = int(me["stack"])
        chaal = int(view["chaal"])
        double = view.get("chaal_2x")
        can_double = isinstance(double, int) and stack >= double
        pot = int(view["pot"])
        active = [s for s in view["order"] if entries[s]["status"] == "playing"]

        # Exchange first: everything after is judged on the (expected) hand after it.
        swap, after, share = self._exchange(view, hand)
        read = self._read(view, seat, after, share, active)

        # Pack?
        doublings = max(0, (chaal // max(1, int(view["boot"]))).bit_length() - 1)
        price_share = chaal / (pot + chaal)
        floor = max(
            style.pack_base + style.pack_per_doubling * doublings, style.pack_price * price_share
        )
        weak = read.chance + self._blur() < floor
        if read.beaten_by_known or (weak and self.rng.random() >= style.play_on):
            return ["pack", "chaal"]
        raise_at = style.raise_above + style.raise_per_doubling * doublings
        raise_at -= style.raise_quiet if read.quiet else 0.0
        raise_at -= style.raise_late if read.late else 0.0
        raising = can_double and (
            read.chance + self._blur() > raise_at or self.rng.random() < style.raise_bluff
        )
        suffix = " 2x" if raising else ""
        if swap is not None:
            return [swap + suffix, swap, "chaal", "pack"]
        # With two left and no raise in mind: settle it when ahead, or when the price is high.
        if len(active) == 2 and not raising:
            ahead = read.chance + self._blur() > style.show_above
            if ahead or chaal > style.show_stake * stack:
                return ["show", "chaal", "pack"]
        # A sideshow to learn about a middling hand (it pays the chaal and gives up the raise).
        low, high = style.sideshow_band
        if (
            len(active) >= 3
            and not raising
            and low <= read.share <= high
            and self._may_sideshow(view, seat, active, entries)
            and self.rng.random() < style.sideshow_chance
        ):
            return ["sideshow", "chaal", "pack"]
        return [f"chaal{suffix}", "chaal", "pack"]

    def _exchange(self, view: PattiView, hand: list[int]) -> tuple[str | None, list[int], float]:
        """The exchange worth making, if any (``exchange open 7H``), the hand after it (for the
        closed card: the hand as it is, since the new card is unknown) and its share beaten
        (expected, for the closed card)."""
        current = _share(*hand)
        open_cards = view.get("open") or []
        if not open_cards:
            return None, hand, current
        open_code = _CODES[open_cards[0]]
        open_after, open_index = best_open_swap(hand, open_code)
        closed_after, closed_index = best_closed_swap(hand, [*hand, open_code])
        gain = self.style.exchange_gain + self._blur() / 2
        names = view["hand"]
        if open_after >= closed_after and open_after - current > gain:
            after = [*(c for i, c in enumerate(hand) if i != open_index), open_code]
            return f"exchange open {names[open_index]}", after, open_after
        if closed_after - current > gain:
            return f"exchange closed {names[closed_index]}", hand, closed_after
        return None, hand, current

    def _read(
        self, view: PattiView, seat: int, hand: list[int], share: float, active: list[int]
    ) -> _Read:
        """The table as the bot reads it, holding ``hand`` whose share beaten is ``share``."""
        style = self.style
        mine = TABLE[hand[0]][hand[1]][hand[2]]
        moves: list[MoveView] = list(view.get("moves") or ())
        known: dict[int, int] = {}
        for entry in view.get("seen") or ():
            other = int(entry["seat"])
            since = moves[int(entry["after_move"]) :]
            if any(m["seat"] == other and m["move"] in _EXCHANGES for m in since):
                known.pop(other, None)  # it changed its hand since
                continue
            codes = [_CODES[text] for text in entry["cards"]]
            known[other] = TABLE[codes[0]][codes[1]][codes[2]]
        last = max((i for i, m in enumerate(moves) if m["seat"] == seat), default=-1)
        recent = [m for m in moves[last + 1 :] if m["seat"] != seat]
        raises: dict[int, int] = {}
        for move in moves:
            if move["move"] in _RAISES:
                raises[int(move["seat"])] = raises.get(int(move["seat"]), 0) + 1
        chance = 1.0
        beaten = False
        opponents = [s for s in active if s != seat]
        for other in opponents:
            if other in known:
                if known[other] > mine:
                    beaten = True
                    chance *= 0.02
                elif known[other] == mine:
                    chance *= 0.5
                continue
            chance *= share ** (1 + style.raise_weight * raises.get(other, 0))
        quiet = bool(recent) and all(m["move"] not in _RAISES for m in recent)
        late = bool(opponents) and active[-1] == seat
        return _Read(share, chance, beaten, len(opponents), quiet, late)

    @staticmethod
    def _may_sideshow(
        view: PattiView, seat: int, active: list[int], entries: Mapping[int, PattiSeatView]
    ) -> bool:
        """The previous player still in has played a turn (the rules want it) and the bot has
        not already seen that player's hand unchanged."""
        before = active[active.index(seat) - 1]
        if not entries[before]["moved"]:
            return False
        moves: list[MoveView] = list(view.get("moves") or ())
        for entry in view.get("seen") or ():
            if int(entry["seat"]) == before:
                since = moves[int(entry["after_move"]) :]
                if not any(m["seat"] == before and m["move"] in _EXCHANGES for m in since):
                    return False
        return True
