// The player's own grouping of a rummy hand (any size), as plain data: an array of groups, each an array
// of cards in notation ("7H", "JK"). Two copies of a card may both be held; they are equal here.
// Nothing in this module touches the DOM, so it is easy to reason about (and to test by eye):
//
//   reconcile(groups, hand, place?) -> groups that hold exactly `hand` (a multiset): cards the
//                                      hand lost leave their group, new cards go to `place`
//                                      ({group, index}) or to a new group at the end
//   addDrawn(groups, hand, untouched) -> {groups, untouched}: like reconcile without a place,
//                                      but new cards join the "new cards" group at the end (see
//                                      isNewGroup) or, when the last group is a lone card, that
//                                      card (which becomes part of the new cards); else they
//                                      start a new group at the end
//   isNewGroup(group, untouched)    -> every card of the group was drawn and not moved since
//   without(cards, gone)            -> the multiset `cards` less `gone`; keep(cards, hand) ->
//                                      the cards of `cards` still in `hand`
//   sortedGroups(hand, isWild?)     -> one group per suit (the cards isWild(card) says are wild,
//                                      and jokers, apart), by rank
//   moveCard(groups, from, to)      -> {groups, at}: one card moved; from/to/at: {group, index};
//                                      to.group === groups.length makes a new group
//   withoutCard(groups, card)       -> the grouping without one copy of `card`
//   notation(groups)                -> "AS 2S 3S | 4H 5H 6H"
//   arrangementKey(storage, table, gameNo, deal) -> the localStorage key of one deal's grouping
//                                      (storage: the game's name for it, e.g. "i13")
//   loadArrangement(key) / saveArrangement(key, groups) / forgetTable(storage, table, keepKey)

const SUIT_ORDER = ['S', 'H', 'C', 'D'];
const RANK_ORDER = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];

export function rankOf(card) {
  return card === 'JK' ? null : card.slice(0, -1);
}

export function suitOf(card) {
  return card === 'JK' ? null : card.slice(-1);
}

function counts(cards) {
  const map = new Map();
  for (const card of cards) map.set(card, (map.get(card) || 0) + 1);
  return map;
}

export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const left = counts(a);
  for (const card of b) {
    const n = left.get(card) || 0;
    if (!n) return false;
    left.set(card, n - 1);
  }
  return true;
}

export function flat(groups) {
  return groups.flat();
}

// The groups less the cards the hand no longer holds (empty groups kept), and the hand's cards
// that are in no group yet.
function split(groups, hand) {
  const left = counts(hand);
  const kept = [];
  for (const group of groups || []) {
    const row = [];
    for (const card of group) {
      const n = left.get(card) || 0;
      if (n) {
        row.push(card);
        left.set(card, n - 1);
      }
    }
    kept.push(row);
  }
  const fresh = [];
  for (const card of hand) {
    const n = left.get(card) || 0;
    if (n) {
      fresh.push(card);
      left.set(card, n - 1);
    }
  }
  return { kept, fresh };
}

export function reconcile(groups, hand, place) {
  const { kept, fresh } = split(groups, hand);
  if (fresh.length) {
    if (place && place.group < kept.length) {
      const row = kept[place.group];
      row.splice(Math.min(place.index, row.length), 0, ...fresh);
    } else {
      kept.push(fresh);
    }
  }
  return kept.filter((group) => group.length);
}

export function isNewGroup(group, untouched) {
  if (!group || !group.length) return false;
  return without(group, untouched || []).length === 0;
}

export function addDrawn(groups, hand, untouched) {
  const { kept, fresh } = split(groups, hand);
  const rows = kept.filter((group) => group.length);
  const still = keep(untouched || [], hand);
  if (!fresh.length) return { groups: rows, untouched: still };
  const last = rows[rows.length - 1];
  if (last && isNewGroup(last, still)) {
    last.push(...fresh);
  } else if (last && last.length === 1) {
    still.push(last[0]);
    last.push(...fresh);
  } else {
    rows.push(fresh);
  }
  return { groups: rows, untouched: [...still, ...fresh] };
}

export function without(cards, gone) {
  const left = counts(gone);
  const rest = [];
  for (const card of cards) {
    const n = left.get(card) || 0;
    if (n) left.set(card, n - 1);
    else rest.push(card);
  }
  return rest;
}

export function keep(cards, hand) {
  const left = counts(hand);
  const kept = [];
  for (const card of cards) {
    const n = left.get(card) || 0;
    if (n) {
      kept.push(card);
      left.set(card, n - 1);
    }
  }
  return kept;
}

function rankIndex(card) {
  const rank = rankOf(card);
  return rank === null ? 99 : RANK_ORDER.indexOf(rank);
}

export function sortCards(cards) {
  return [...cards].sort((a, b) => {
    const sa = suitOf(a);
    const sb = suitOf(b);
    if (sa !== sb) return SUIT_ORDER.indexOf(sa) - SUIT_ORDER.indexOf(sb);
    return rankIndex(a) - rankIndex(b);
  });
}

export function sortedGroups(hand, isWild) {
  const wild = [];
  const bySuit = new Map(SUIT_ORDER.map((suit) => [suit, []]));
  for (const card of hand) {
    if (card === 'JK' || (isWild && isWild(card))) wild.push(card);
    else bySuit.get(suitOf(card)).push(card);
  }
  const groups = [];
  for (const suit of SUIT_ORDER) {
    const cards = bySuit.get(suit).sort((a, b) => rankIndex(a) - rankIndex(b));
    if (cards.length) groups.push(cards);
  }
  if (wild.length) groups.push(sortCards(wild));
  return groups;
}

export function moveCard(groups, from, to) {
  const next = groups.map((group) => [...group]);
  const source = next[from.group];
  if (!source || from.index < 0 || from.index >= source.length) return { groups, at: null };
  const [card] = source.splice(from.index, 1);
  let index = to.index;
  let target = to.group;
  if (target === from.group && index > from.index) index -= 1;
  if (target >= next.length) {
    next.push([card]);
    target = next.length - 1;
    index = 0;
  } else {
    const row = next[target];
    index = Math.max(0, Math.min(index, row.length));
    row.splice(index, 0, card);
  }
  const result = [];
  let at = null;
  next.forEach((group, g) => {
    if (!group.length) return;
    if (g === target) at = { group: result.length, index };
    result.push(group);
  });
  return { groups: result, at };
}

export function withoutCard(groups, card) {
  let done = false;
  const next = [];
  for (const group of groups) {
    const row = [];
    for (const c of group) {
      if (!done && c === card) {
        done = true;
        continue;
      }
      row.push(c);
    }
    if (row.length) next.push(row);
  }
  return next;
}

export function notation(groups) {
  return groups.filter((group) => group.length).map((group) => group.join(' ')).join(' | ');
}

// --- persistence (localStorage, keyed by game, table, game number and deal) -------------------

const prefix = (storage) => `rummyhall.${storage}.`;

export function arrangementKey(storage, table, gameNo, deal) {
  return `${prefix(storage)}${table}.${gameNo}.${deal}`;
}

export function loadArrangement(key) {
  try {
    const raw = localStorage.getItem(key);
    if (!raw) return null;
    const data = JSON.parse(raw);
    if (!Array.isArray(data.groups)) return null;
    return data;
  } catch {
    return null;
  }
}

export function saveArrangement(key, groups, extra = {}) {
  try {
    localStorage.setItem(key, JSON.stringify({ groups, ...extra }));
  } catch {
    // storage full or disabled: the arrangement lives on in memory only
  }
}

// Drop the saved arrangements of this table's earlier deals.
export function forgetTable(storage, table, keepKey) {
  try {
    const start = `${prefix(storage)}${table}.`;
    for (let i = localStorage.length - 1; i >= 0; i -= 1) {
      const key = localStorage.key(i);
      if (key && key.startsWith(start) && key !== keepKey) localStorage.removeItem(key);
    }
  } catch {
    // nothing to clean
  }
}
