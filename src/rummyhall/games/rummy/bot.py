"""The bot of the draw-and-discard rummy games (:class:`RummyBot`): what 13-card Indian Rummy's
bot and Marriage's share. A game's bot (its ``bot.py``) subclasses it with the game's name, its
meld profile and its rules of thumb (:class:`Style`).

It sees what its seat sees and nothing more: ``act`` gets ``game.view(seat)`` and answers with the
next action in the game's notation (docs/records.md), or None. Every decision starts from the
exact solver (:func:`rummyhall.melds.arrange`, with the game's meld profile), with a few cheap
rules of thumb on top; none of them counts the cards, so they hold for any hand size:

* **Draw.** A wild card on the open pile is always taken (when the view says it may be). Another
  open card is taken when it makes the hand declarable, or when it goes into one of the solver's
  groups and lowers the solver's penalty by at least :attr:`Style.take_gain` points, about what a
  blind draw from the closed deck is worth. Otherwise the bot draws from the closed deck.
* **Discard.** The candidates are the cards the solver leaves out of its groups (its own best
  discard among them); a wild card only if nothing else is left. A candidate costs the points it
  would keep in the hand, less what it is worth for later: neighbours of its suit (a draw towards
  a sequence) and its rank in other suits (towards a set) among the other loose cards. The
  cheapest goes, so high, isolated cards go first.
* **Declare** as soon as the solver says the hand is declarable after a discard, with its groups.
* **Drop** a hopeless hand (fewer pure sequences than :attr:`Style.pure_to_keep`): at the first
  turn with few wild cards and sequence draws (:attr:`Style.first_drop`), later by
  :attr:`Style.middle_drop`. Never when the drop (its cost is in the view) would knock the bot
  out of a pool.
* **Show** the solver's best groups (loose cards one by one) after someone else declared.
* **Rejoin** a pool when the rules allow it.

Arrangements are memoised per hand across bots (the solver memoises too), so a turn costs one or
two solver calls; none where the cards alone prove the answer (:attr:`RummyBot.shortcuts`: an open
card no group could hold is worth taking only to declare, a hand without three cards for a pure
sequence has none among the solver's groups). Besides that the bot remembers only how many turns
it has started in the current deal (the first has its own drop limits) and which actions it
already sent in the current state: an action the game refused is never sent twice, so a bot
cannot loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final, cast

from rummyhall.cards import (
    CODE_POINTS,
    JOKER_CODE,
    Card,
    format_cards,
    from_code,
    indian_points,
    parse,
)
from rummyhall.games.rummy.views import RummySeatView, RummyView
from rummyhall.melds import Arrangement, Wilds, get_profile
from rummyhall.melds import arrange as _arrange
from rummyhall.native import mypyc_attr

View = Mapping[str, Any]
"""Any game's view, as the ``Bot`` protocol hands it over (the bot reads it as its game's own)."""


@dataclass(frozen=True, slots=True)
class Style:
    """The bot's rules of thumb, as numbers: each game tunes its own by self-play with
    ``rummyhall simulate`` (:attr:`RummyBot.default_style`)."""

    take_gain: int
    """Penalty points an open card must save (and meld) to be taken instead of a blind draw."""
    adjacent: int
    """Worth of a loose card for each loose neighbour of its suit (e.g. 8H next to 7H or 9H)."""
    gapped: int
    """... for each loose card two places away in its suit (8H with 6H or 10H)."""
    same_rank: int
    """... for each other suit of its rank among the loose cards (a set in the making)."""
    twin: int
    """... for an identical loose card."""
    pure_to_keep: int
    """A hand with at least this many pure sequences (in the solver's groups) is never dropped."""
    first_drop: tuple[int, ...]
    """First turn, too few pure sequences: drop holding ``k`` wild cards with at most
    ``first_drop[k]`` sequence draws (pairs of one suit one or two places apart); never with more
    wild cards."""
    middle_drop: tuple[int, ...]
    """The same, from turn :attr:`middle_drop_turn` on (a middle drop costs more)."""
    middle_drop_turn: int
    rejoin: bool
    """Buy back into a pool when allowed."""


arrange: Callable[..., Arrangement] = _arrange
"""The solver the bots ask, read from the module at every call: bench/simulate.py and
bench/instructions.py put a counting or replaying one in its place. (Compiled, a call of the
imported function itself would go straight to it, past any replacement.)"""

_CARDS: dict[str, Card] = {card.text: card for card in map(from_code, range(JOKER_CODE + 1))}
"""Cards by name: the canonical names a view uses, and any other spelling once parsed."""
_WILDS: dict[tuple[str, str], frozenset[int]] = {}
_MEMO: dict[tuple[str, str, tuple[str, ...]], Arrangement] = {}
_MEMO_LIMIT: Final = 100_000


def _card(text: str) -> Card:
    card = _CARDS.get(text)
    if card is None:
        card = _CARDS[text] = parse(text)
    return card


def _cards(texts: Sequence[str]) -> list[Card]:
    """The cards named: views name them canonically, which one C-level map looks up (a
    spelling not seen yet goes through :func:`_card`)."""
    try:
        return list(map(_CARDS.__getitem__, texts))
    except KeyError:
        return [_card(t) for t in texts]


def _wild_codes(profile: str, cut: str) -> frozenset[int]:
    codes = _WILDS.get((profile, cut))
    if codes is None:
        codes = _WILDS[profile, cut] = Wilds.of(_card(cut), get_profile(profile)).codes
    return codes


def solve(profile: str, cut: str, hand: Sequence[str]) -> Arrangement:
    """The solver's best arrangement of ``hand`` (cards in notation), memoised across calls."""
    return _solve_sorted(profile, cut, tuple(sorted(hand)))


def _solve_sorted(profile: str, cut: str, cards: tuple[str, ...]) -> Arrangement:
    """:func:`solve` of a hand already sorted by name (the memo's key)."""
    key = (profile, cut, cards)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        found = arrange(_cards(cards), joker=_card(cut), profile=profile)
        _MEMO[key] = found
    return found


def _positions_of(rank: int) -> tuple[int, ...]:
    return (1, 14) if rank == 1 else (rank,)


_PLACE_BITS: Final = tuple(
    sum(1 << place for place in _positions_of(code % 13 + 1)) for code in range(JOKER_CODE)
)
"""By natural card code: a bit for each place of its rank in its suit (the ace at both ends)."""


def sequence_draws(cards: Sequence[Card], wild: frozenset[int]) -> int:
    """Pairs of natural cards of one suit one or two places apart: the start of a sequence."""
    places = [0, 0, 0, 0]  # by suit: a bit for each place held
    for card in cards:
        code = card.code
        if code not in wild and card.suit is not None:
            places[code // 13] |= _PLACE_BITS[code]
    # Each place with the places one and two above it (a pair once, from its lower card); the
    # ace sits at both ends: A-2 and Q-A/K-A count once each.
    return sum(
        (mask & (mask >> 1)).bit_count() + (mask & (mask >> 2)).bit_count() for mask in places
    )


def _gap(rank: int, other: int) -> int:
    """How many places apart two ranks of one suit are, the ace at both ends."""
    return min(abs(p - q) for p in _positions_of(rank) for q in _positions_of(other))


_NEAR: Final = (
    (),
    *(
        tuple((other, _gap(rank, other)) for other in range(1, 14) if 0 < _gap(rank, other) <= 2)
        for rank in range(1, 14)
    ),
)
"""By rank (1 to 13): the other ranks one or two places away in a suit, with their gap."""


_ADJACENT: Final = tuple(
    tuple(code + other - (code % 13 + 1) for other, gap in _NEAR[code % 13 + 1] if gap == 1)
    for code in range(JOKER_CODE)
)
"""By natural card code: the codes of its suit one place away (the ace at both ends)."""
_GAPPED: Final = tuple(
    tuple(code + other - (code % 13 + 1) for other, gap in _NEAR[code % 13 + 1] if gap == 2)
    for code in range(JOKER_CODE)
)
"""By natural card code: the codes of its suit two places away."""
_NO_CODE: Final = JOKER_CODE
"""A code no natural card has: its count among the loose natural cards stays 0."""
_PAIRS: Final = tuple(
    (
        *_ADJACENT[code],
        *[_NO_CODE] * (2 - len(_ADJACENT[code])),
        *_GAPPED[code],
        *[_NO_CODE] * (2 - len(_GAPPED[code])),
    )
    for code in range(JOKER_CODE)
)
"""By natural card code: two codes one place away, then two codes two places away, padded with
:data:`_NO_CODE` (a card has one or two of each), so that :func:`_worths` reads four counts."""


def _worths(codes: Sequence[int], style: Style) -> list[int]:
    """What each of the loose natural cards (their ``codes``) is worth for later, given the
    others: one pass to count them by card and rank, then a look at each card's few neighbours,
    in lists indexed by code (a hand has so few cards that clearing 53 counts is cheaper than
    hashing them)."""
    held = [0] * (JOKER_CODE + 1)  # card code -> copies
    suits = [0] * 13  # rank - 1 -> suits holding it
    for code in codes:
        if not held[code]:
            suits[code % 13] += 1
        held[code] += 1
    twin, same_rank, adjacent, gapped = style.twin, style.same_rank, style.adjacent, style.gapped
    worths = []
    for code in codes:
        a, b, c, d = _PAIRS[code]
        worths.append(
            twin * (held[code] - 1)
            + same_rank * (suits[code % 13] - 1)
            + adjacent * (held[a] + held[b])
            + gapped * (held[c] + held[d])
        )
    return worths


_NEAR_CODES: Final = tuple(frozenset(_ADJACENT[code] + _GAPPED[code]) for code in range(JOKER_CODE))
"""By natural card code: the codes of its suit one or two places away."""


def may_meld(card: Card, others: Iterable[Card], wild: frozenset[int]) -> bool:
    """Whether some group of some arrangement of ``others`` and ``card`` (a natural card) could
    hold ``card``, told from the cards alone: any group with it holds an identical card (a
    tunnela, a dublee), or two more cards of its rank or wild (a set), or two more cards of its
    suit one or two places away or wild (a sequence: its two nearest places). False proves the
    solver leaves ``card`` loose; True proves nothing."""
    code, rank = card.code, card.rank
    near_codes = _NEAR_CODES[code]
    wilds = same_rank = near = 0
    # Two more cards for a set or a sequence: said as soon as they are found.
    for other in others:
        other_code = other.code
        if other_code in wild:
            wilds += 1
            if wilds + max(same_rank, near) >= 2:
                return True
        elif other_code == code:
            return True
        elif other.rank == rank:
            same_rank += 1
            if same_rank + wilds >= 2:
                return True
        elif other_code in near_codes:
            near += 1
            if near + wilds >= 2:
                return True
    return False


def may_declare(cards: Sequence[Card], wild: frozenset[int], dublees: bool) -> bool:
    """Whether ``cards`` (a hand of the hand size) could be declarable, told from the cards
    alone: a declaration melds every natural card (vengala shows loose jokers apart, which are
    wild), so a natural card that no group could hold (:func:`may_meld`) rules it out. Marriage's
    special shapes (``dublees``) need not meld every card: there it proves nothing."""
    if dublees:
        return True
    for index, card in enumerate(cards):
        if card.code not in wild and not may_meld(
            card, [*cards[:index], *cards[index + 1 :]], wild
        ):
            return False
    return True


def may_hold_pure(cards: Iterable[Card]) -> bool:
    """Whether some group of some arrangement of ``cards`` could be a pure sequence (a tunnela
    included), told from the cards alone: three cards of one suit on consecutive places (wild
    cards in their own places count), or three identical cards. False proves that the solver's
    groups hold no pure sequence."""
    places = [0, 0, 0, 0]  # by suit: a bit for each place held, the ace at both ends
    copies: dict[int, int] = {}
    for card in cards:
        code = card.code
        held = copies.get(code, 0) + 1
        if held >= 3:
            return True
        copies[code] = held
        if card.suit is not None:
            places[code // 13] |= _PLACE_BITS[code]
    return any(mask & (mask >> 1) & (mask >> 2) for mask in places)


_KEPT_FIELDS: Final = tuple(f.name for f in fields(Arrangement) if f.name != "discard")
"""What an arrangement of the rest keeps of the one with the discard: all but the discard."""


def _remember_rest(profile: str, cut: str, cards: tuple[str, ...], best: Arrangement) -> None:
    """Seed the memo with the cards the solver keeps after its discard: their best arrangement
    is the one it found for the hand with the drawn card (the same groups, the same penalty), so
    next turn needs no solver call. ``cards``: the hand sorted by name, as :func:`solve` keys
    it (without one copy of the discard it is the rest's key, still sorted)."""
    assert best.discard is not None
    at = cards.index(best.discard.text)
    key = (profile, cut, cards[:at] + cards[at + 1 :])
    if key not in _MEMO:
        # dataclasses.replace(best, discard=None), with the fields read once at import.
        kept = {name: getattr(best, name) for name in _KEPT_FIELDS}
        _MEMO[key] = Arrangement(discard=None, **kept)


def _groups_text(arr: Arrangement, wild: frozenset[int]) -> str:
    """Groups for a declaration or a show: the solver's groups, then the loose cards (wild ones
    together, the others one by one)."""
    groups = [format_cards(group) for group in arr.groups]
    loose_wild = [card for card in arr.leftover if card.code in wild]
    if loose_wild:
        groups.append(format_cards(loose_wild))
    groups += [str(card) for card in arr.leftover if card.code not in wild]
    return " | ".join(groups)


@mypyc_attr(allow_interpreted_subclasses=True)
class RummyBot:
    """A rummy player for one seat (see the module docstring). Deterministic: the same views in
    the same order give the same actions (``seed`` is kept for variety in later versions; this
    one needs no randomness).

    A game's bot sets :attr:`game` and :attr:`default_style` and answers :meth:`meld_profile`."""

    game: ClassVar[str]
    """The game whose views the bot plays (their ``game``); it lets any other view pass."""
    default_style: ClassVar[Style]
    """The game's rules of thumb, used unless the bot is given others."""
    shortcuts: bool = True
    """Answer from the cards alone where that proves what the solver would say (an open card
    that no group could hold, a hand without three cards for a pure sequence), instead of asking
    it. The decisions are the same either way (tests play both and compare every action)."""

    def __init__(self, seed: int = 0, *, style: Style | None = None) -> None:
        self.seed = seed
        self.style = self.default_style if style is None else style
        self._deal: tuple[Any, ...] | None = None
        self._turns = 0
        self._turn_state: tuple[Any, ...] | None = None
        self._state: tuple[Any, ...] | None = None
        self._tried: set[str] = set()

    # --- the protocol --------------------------------------------------------------------

    @classmethod
    def meld_profile(cls, view: RummyView) -> str:
        """The meld profile (:mod:`rummyhall.melds.profiles`) the hands of ``view``'s table are
        judged by: the view names the game's rule profile, whose rules name it."""
        raise NotImplementedError

    def act(self, view: View) -> str | None:
        """The next action for the seat whose view this is, or None when it has nothing to do."""
        if view.get("game") != self.game:
            return None
        # Compiled, a RummyView is checked to be a dict where it is passed on: another mapping
        # (a read-only proxy, say) is read as a copy of it.
        return self._act(cast(RummyView, view if isinstance(view, dict) else dict(view)))

    def _act(self, view: RummyView) -> str | None:
        seat = view["viewer"]
        if seat is None or seat < 1 or "hand" not in view:
            return None
        deal = (
            view.get("deal"),
            view.get("cut"),
            tuple(view.get("order") or ()),
            view.get("first"),
            tuple([(t.get("seat"), t.get("card")) for t in view.get("toss") or ()]),
        )
        if deal != self._deal:
            self._deal, self._turns, self._turn_state = deal, 0, None
        else:
            deal = self._deal  # the one kept: the states compare it by identity first
        state = (
            deal,
            view.get("phase"),
            view.get("turn"),
            view.get("drawn"),
            tuple(view["hand"]),
            tuple(view.get("open") or ()),
            view.get("closed"),
            tuple([(a["seat"], a["kind"]) for a in view.get("awaited") or ()]),
        )
        if state != self._state:
            self._state, self._tried = state, set()
        for action in self._choices(view, seat):
            if action not in self._tried:
                self._tried.add(action)
                return action
        return None

    # --- decisions -----------------------------------------------------------------------

    def _choices(self, view: RummyView, seat: int) -> Iterable[str]:
        """Actions in order of preference, lazily; the first not yet tried in this state is sent."""
        for me in view.get("seats") or ():
            if me.get("seat") == seat:
                break
        else:
            return ()
        phase = view.get("phase")
        if phase == "between":
            pool = view.get("pool")
            rejoin_open = pool is not None and pool["rejoin_open"]
            if me["status"] == "eliminated" and rejoin_open and self.style.rejoin:
                return ("rejoin",)
            return ()
        kinds = [a["kind"] for a in view.get("awaited") or () if a.get("seat") == seat]
        if "turn" in kinds and phase == "play" and view.get("turn") == seat:
            return self._finish_turn(view) if view.get("drawn") else self._start_turn(view, me)
        if "declare" in kinds or "show" in kinds:
            return self._show(view)
        return ()

    def _start_turn(self, view: RummyView, me: RummySeatView) -> list[str]:
        # The hand, the open pile and the closed deck, as _act has just read them into the state.
        turn_state = self._state[4:7] if self._state is not None else ()
        if turn_state != self._turn_state:
            self._turn_state = turn_state
            self._turns += 1
        profile, cut = self.meld_profile(view), str(view["cut"])
        hand: list[str] = list(view["hand"])
        wild = _wild_codes(profile, cut)
        if self._should_drop(view, me, profile, cut, hand, wild):
            return ["drop", "draw closed"]
        may_take = bool(view.get("may_take_open")) and bool(view.get("open"))
        if may_take and self._wants_open(profile, cut, hand, str(view["open"][-1]), wild):
            return ["draw open", "draw closed"]
        return ["draw closed", *(["draw open"] if may_take else [])]

    def _wants_open(
        self, profile: str, cut: str, hand: list[str], top: str, wild: frozenset[int]
    ) -> bool:
        card = _card(top)
        if card.code in wild:
            return True
        if self.shortcuts and not may_meld(card, _cards(hand), wild):
            # The card would stay loose whatever the hand (the solver's groups never hold it):
            # taking it only helps if the hand can declare throwing it, i.e. as it is.
            known = _MEMO.get((profile, cut, tuple(sorted(hand))))
            if known is not None:
                return known.declarable
            cards = _cards(hand)
            if not may_declare(cards, wild, get_profile(profile).dublees):
                return False
        after = solve(profile, cut, [*hand, top])
        if after.declarable:
            return True
        if after.discard is not None and after.discard == card:
            return False
        if not any(card in group for group in after.groups):
            return False  # it would not meld
        current = solve(profile, cut, hand)
        return current.penalty - after.penalty >= self.style.take_gain

    def _should_drop(
        self,
        view: RummyView,
        me: RummySeatView,
        profile: str,
        cut: str,
        hand: list[str],
        wild: frozenset[int],
    ) -> bool:
        first = self._turns <= 1
        if not first and self._turns < self.style.middle_drop_turn:
            return False
        limits = self.style.first_drop if first else self.style.middle_drop
        cards = _cards(hand)
        jokers = sum(card.code in wild for card in cards)
        if jokers >= len(limits) or sequence_draws(cards, wild) > limits[jokers]:
            return False
        pool = view.get("pool")
        cost = int(view.get("drop_cost") or 0)
        if pool is not None and int(me.get("total") or 0) + cost >= int(pool["elimination"]):
            return False
        if self.shortcuts and not may_hold_pure(cards):
            return self.style.pure_to_keep > 0  # no pure sequence in any grouping
        pure = sum(kind.is_pure for kind in solve(profile, cut, hand).kinds)
        return pure < self.style.pure_to_keep

    def _finish_turn(self, view: RummyView) -> Iterator[str]:
        profile, cut = self.meld_profile(view), str(view["cut"])
        hand: list[str] = list(view["hand"])
        wild = _wild_codes(profile, cut)
        cards = tuple(sorted(hand))
        best = _solve_sorted(profile, cut, cards)
        if best.discard is not None:
            _remember_rest(profile, cut, cards, best)
        if best.declarable and best.discard is not None:
            yield f"declare {best.discard} | {_groups_text(best, wild)}"
        for card in self._discards(best, hand, wild):
            yield f"discard {card}"

    def _discards(self, best: Arrangement, hand: list[str], wild: frozenset[int]) -> Iterator[Card]:
        """Cards to throw, best first: the cheapest loose card, then the other loose ones, then the
        rest of the hand, wild cards last (a refused discard falls back on the next)."""
        loose = best.leftover if best.discard is None else [*best.leftover, best.discard]
        natural = [card.code for card in loose if card.code not in wild]
        # By card: what throwing it costs, then ties by points and card. Copies of a card have
        # the same cost and the same name, so whole tuples sort the cards as their costs do.
        costs = []
        for code, worth in zip(natural, _worths(natural, self.style), strict=True):
            points = CODE_POINTS[code]
            costs.append((worth - points, -points, code))
        costs.sort()

        thrown: set[int] = set()
        for _, _, code in costs:
            if code not in thrown:
                thrown.add(code)
                yield from_code(code)
        rest = _cards(hand)
        rest.sort(key=lambda card: (card.code in wild, -indian_points(card), card.code))
        for card in rest:
            if card.code not in thrown:
                thrown.add(card.code)
                yield card

    def _show(self, view: RummyView) -> list[str]:
        profile, cut = self.meld_profile(view), str(view["cut"])
        hand: list[str] = list(view["hand"])
        wild = _wild_codes(profile, cut)
        best = solve(profile, cut, hand)
        return [f"show {_groups_text(best, wild)}", "show " + " | ".join(hand)]
