// Rummy 51's groups in the browser: what a tentative group of the opening tray is worth, in what
// order its cards go to the server so that each joker means what the tray shows, and whether a
// card looks like it fits a group on the table. The server is the judge of every move; this
// module only lets the tray show its totals against 51 before anything is sent, and the table
// light up the groups a picked card may go on. It follows the engine's group rules
// (src/rummyhall/games/rummy51/groups.py, docs/rules/rummy-51.md) and names nothing else.
//
//   meldValue(card)                 what a natural card adds to a group (2-9 face, 10 J Q K A: 10)
//   makeGroup(cards, {opening})     -> {kind: 'set'|'run', cards, stands, value, jokers} or null:
//                                      the group the cards make read in the order given (a run
//                                      read low to high, else high to low), as the server reads
//                                      an `open` or `meld`; opening: at most one joker a group
//   groupChoices(cards, {opening})  -> the orders the cards can be sent in: a set by suit; a run
//                                      low to high with its jokers in the gaps and its spare
//                                      jokers at either end, one order per way of placing them,
//                                      the most valuable first (cards that make no group: as given)
//   arrangeGroup(cards, {choice, opening}) -> groupChoices(...)[choice] (the best by default)
//   fitsAdd(group, card, end?)      -> whether `card` may be laid off on a table group
//                                      ({kind, cards, stands}: the view's `table` entry)
//   fitsSwap(group, card)           -> whether a joker of the table group stands for `card`

const RANKS = { A: 1, J: 11, Q: 12, K: 13 };
const SUITS = ['S', 'H', 'D', 'C'];
const HIGH_ACE = 14;
const LONGEST_RUN = 13;
const LARGEST_SET = 4;
const SMALLEST_GROUP = 3;

function parse(text) {
  const code = String(text).split('#')[0].toUpperCase();
  if (code === 'JK') return { text: code, joker: true, rank: null, suit: null };
  const suit = code.slice(-1);
  const rankText = code.slice(0, -1) === 'T' ? '10' : code.slice(0, -1);
  const rank = RANKS[rankText] || Number(rankText);
  return { text: code, joker: false, rank, suit };
}

function rankText(rank) {
  return { 1: 'A', 11: 'J', 12: 'Q', 13: 'K', 14: 'A' }[rank] || String(rank);
}

const rankAt = (position) => (position === HIGH_ACE ? 1 : position);
const cardAt = (position, suit) => `${rankText(rankAt(position))}${suit}`;
// The run position of a natural card in a run starting at `low` (an ace: 1 or 14).
const positionOf = (card, low) => (card.rank === 1 ? (low === 1 ? 1 : HIGH_ACE) : card.rank);

export function meldValue(card) {
  const c = typeof card === 'string' ? parse(card) : card;
  if (c.joker) return 0;
  return c.rank === 1 || c.rank >= 10 ? 10 : c.rank;
}

function build(kind, cards, stands) {
  const value = cards.reduce((sum, card, i) => sum + meldValue(stands[i] || card.text), 0);
  return {
    kind,
    cards: cards.map((c) => c.text),
    stands,
    value,
    jokers: cards.filter((c) => c.joker).length,
  };
}

function asSet(naturals, jokers) {
  const ordered = [...naturals].sort((a, b) => SUITS.indexOf(a.suit) - SUITS.indexOf(b.suit));
  const held = new Set(ordered.map((c) => c.suit));
  const missing = SUITS.filter((s) => !held.has(s)).map((s) => `${rankText(ordered[0].rank)}${s}`);
  const stands = [...ordered.map(() => null), ...jokers.map((_, i) => missing[i])];
  return build('set', [...ordered, ...jokers], stands);
}

function asRun(cards, low) {
  const suit = cards.find((c) => !c.joker).suit;
  return build('run', cards, cards.map((c, i) => (c.joker ? cardAt(low + i, suit) : null)));
}

// The first position of the run the cards make read low to high as given, or null.
function runStart(cards) {
  const first = cards.findIndex((c) => !c.joker);
  const { rank } = cards[first];
  const starts = rank === 1 ? [rank - first, HIGH_ACE - first] : [rank - first];
  for (const low of starts) {
    if (low < 1 || low + cards.length - 1 > HIGH_ACE) continue;
    if (cards.every((c, i) => c.joker || c.rank === rankAt(low + i))) return low;
  }
  return null;
}

export function makeGroup(texts, { opening = false } = {}) {
  const cards = texts.map(parse);
  if (cards.length < SMALLEST_GROUP) return null;
  const naturals = cards.filter((c) => !c.joker);
  const jokers = cards.filter((c) => c.joker);
  if (!naturals.length) return null;
  const suits = new Set(naturals.map((c) => c.suit));
  const ranks = new Set(naturals.map((c) => c.rank));
  if (ranks.size === 1 && suits.size === naturals.length && cards.length <= LARGEST_SET && jokers.length <= 1) {
    return asSet(naturals, jokers);
  }
  if (suits.size !== 1 || cards.length > LONGEST_RUN || (opening && jokers.length > 1)) return null;
  if (!jokers.length) {
    for (const highAce of [false, true]) {
      const ordered = [...naturals].sort((a, b) => positionOf(a, highAce ? 2 : 1) - positionOf(b, highAce ? 2 : 1));
      const low = runStart(ordered);
      if (low !== null) return asRun(ordered, low);
    }
    return null;
  }
  for (const ordered of [cards, [...cards].reverse()]) {
    const low = runStart(ordered);
    if (low !== null) return asRun(ordered, low);
  }
  return null;
}

// The orders a run of these cards can be sent in: naturals low to high (the ace low, then high),
// jokers in the gaps, and the spare jokers split between the two ends in every way that fits
// 1..14; each with the value it makes. The most valuable first.
function runOrders(texts, opening) {
  const cards = texts.map(parse);
  const naturals = cards.filter((c) => !c.joker);
  const jokers = cards.filter((c) => c.joker).map((c) => c.text);
  if (!naturals.length || new Set(naturals.map((c) => c.suit)).size !== 1) return [];
  const orders = [];
  for (const highAce of [false, true]) {
    const positions = naturals.map((c) => positionOf(c, highAce ? 2 : 1));
    if (new Set(positions).size !== positions.length) continue;
    const at = new Map(naturals.map((c, i) => [positions[i], c.text]));
    const low = Math.min(...positions);
    const high = Math.max(...positions);
    const spare = jokers.length - (high - low + 1 - naturals.length);
    if (spare < 0) continue;
    const middle = [];
    for (let p = low; p <= high; p += 1) middle.push(at.has(p) ? at.get(p) : 'JK');
    for (let below = 0; below <= spare; below += 1) {
      if (low - below < 1 || high + spare - below > HIGH_ACE) continue;
      const order = [...jokers.slice(0, below), ...middle, ...jokers.slice(0, spare - below)];
      const made = makeGroup(order, { opening });
      if (!made || orders.some((o) => o.cards.join(' ') === order.join(' '))) continue;
      orders.push({ cards: order, value: made.value });
    }
  }
  return orders.sort((a, b) => b.value - a.value);
}

// The ways a tentative group can be laid: one for a set (or for cards that make no group: as
// given), and for a run each placing of its spare jokers, the most valuable first.
export function groupChoices(texts, { opening = false } = {}) {
  const made = makeGroup(texts, { opening });
  if (made && made.kind === 'set') return [made.cards];
  const orders = runOrders(texts, opening).map((o) => o.cards);
  return orders.length ? orders : [[...texts]];
}

export function arrangeGroup(texts, { choice = 0, opening = false } = {}) {
  const choices = groupChoices(texts, { opening });
  return choices[((choice % choices.length) + choices.length) % choices.length];
}

// ---- the table's groups -------------------------------------------------------------------

// A table group's meaning per position: the card itself, or what its joker stands for.
function meanings(group) {
  return group.cards.map((card, i) => parse((group.stands && group.stands[i]) || card));
}

export function fitsAdd(group, text, end = null) {
  if (!group || !text) return false;
  const card = parse(text);
  if (group.kind === 'set') {
    const naturals = group.cards.map(parse).filter((c) => !c.joker);
    if (card.joker || group.cards.length >= LARGEST_SET) return false;
    return card.rank === naturals[0].rank && !naturals.some((c) => c.suit === card.suit);
  }
  // A run: its first position (an ace reads 1 at the start, 14 at the end).
  const m = meanings(group);
  const low = m[0].rank;
  const top = low + group.cards.length - 1;
  if (card.joker) {
    const side = end || (top === HIGH_ACE ? 'low' : 'high');
    if (side === 'low') return !(low === 1 || (low === 2 && top === HIGH_ACE));
    return !(top === HIGH_ACE || (low === 1 && top === HIGH_ACE - 1));
  }
  if (card.suit !== m[0].suit) return false;
  const fitsLow = low > 1 && card.rank === low - 1 && !(low === 2 && top === HIGH_ACE);
  const fitsHigh = top < HIGH_ACE && positionOf(card, 2) === top + 1 && !(low === 1 && top === 13);
  if (end === 'low') return fitsLow;
  if (end === 'high') return fitsHigh;
  return fitsLow || fitsHigh;
}

export function fitsSwap(group, text) {
  if (!group || !text) return false;
  const card = parse(text);
  if (card.joker) return false;
  const stands = group.stands || [];
  if (group.kind === 'run') return stands.some((s) => s && parse(s).text === card.text);
  const naturals = group.cards.map(parse).filter((c) => !c.joker);
  if (!stands.some(Boolean) || !naturals.length) return false;
  return card.rank === naturals[0].rank && !naturals.some((c) => c.suit === card.suit);
}
