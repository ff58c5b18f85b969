// The Rummy 51 table (js/games/rummy51.js gives it to the shell as createView): the stock and the
// discard pile, the groups every player has laid on the table (grouped by owner, each joker
// labelled with the card it stands for), your hand in your own groups (rummy/hand.js: drag,
// keyboard, wrapping on a phone), the tray where you put together the groups to open with (or to
// lay down after opening) with their values against 51, and the result with places.
//
// The rules stay on the server: every control follows the message's `legal` and the view
// (src/rummyhall/games/rummy51/engine.py, views.py), and actions go out in the engine's notation:
// `draw closed`, `draw open`, `return`, `open 5S 6S 7S | KC KD KH`, `meld ...`,
// `add 3 7H`, `add 3 JK low`, `swap 2 6S`, `discard 7H`, `discard 7H JK`. The tray's values
// come from rummy51/groups.js (the engine's group rules) so that the total shows before anything
// is sent; the server judges.
//
// Your hand and the tray: click (or Enter on) cards to pick them; "Make group" moves the picked
// cards into a new group of the tray, "Hint" fills the tray with the best opening the server
// found (the view's `opening_hint`), "Open" / "Lay down" sends the tray. A picked card goes on a
// table group with the group's "+" (a run has one at each end where it fits), or by dragging it
// onto the group (a joker dropped on a run's left half goes low, else high); a natural card
// dropped on a joker, or picked and then the joker clicked, swaps it. Discard: pick a card and
// press Discard, or drag it onto the pile; pick a joker and a card to bury the joker.
//
// data-testid hooks:
//   felt centre: pile-closed (the stock), pile-count, pile-open (the discard pile, data-top),
//                turn-info (data-yours), turn-clock (your seconds left), last-move,
//                table-groups (every group on the table), table-owner (data-owner: one
//                player's groups, named), table-group (data-id, data-owner, data-kind,
//                data-fits when the picked card fits it), table-card (data-card; a joker:
//                data-stands, and its label table-stands, "=6♠"), add-<id> (a set's "+"),
//                add-<id>-low / add-<id>-high (a run's ends), table-empty
//   your area:   must-open (the note after taking the discard unopened), action-return,
//                opening-tray (data-mode: open | meld), tray-title, tray-total (data-total),
//                tray-need, tray-hint (the hint's value), tray-group (data-value, data-valid),
//                tray-flip (another placing of a run's spare jokers), tray-remove,
//                action-make-group, action-hint, action-clear-tray, action-open,
//                action-meld, hand / group / group-label / hand-card / group-new (rummy/hand.js),
//                hand-info, action-sort, action-discard, action-bury, action-note
//   seats:       opened-<n> (inside the shell's seat slot: the seat has opened)
//   result:      result (data-game), result-headline, result-rummy, result-row (data-seat,
//                data-place), result-place, result-name, result-score, result-left,
//                result-opened, result-chips (data-amount), result-close, action-last-result
// Disabled controls carry aria-disabled="true"; pressing one says why in a toast.

import {
  addDrawn,
  arrangementKey,
  flat,
  forgetTable,
  isNewGroup,
  keep,
  loadArrangement,
  moveCard,
  reconcile,
  sameCards,
  saveArrangement,
  sortCards,
  sortedGroups,
  without,
} from '../rummy/arrangement.js';
import { createHand } from '../rummy/hand.js';
import { fitsAdd, fitsSwap, groupChoices, makeGroup } from './groups.js';

const STORAGE = 'r51';
const GAME = 'rummy51';
const RESULT_MIN_MS = 8000;
const SUIT = { S: '♠', H: '♥', D: '♦', C: '♣' };

export function shortCard(card) {
  if (!card) return '';
  if (card === 'JK') return 'JK';
  return card.slice(0, -1) + (SUIT[card.slice(-1)] || card.slice(-1));
}

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th';
  return `${n}${tail}`;
}

// Cards in hand by rank: a group for each rank held twice or more (a set in the making), the
// rest by suit, the jokers apart.
function rankGroups(hand) {
  const jokers = hand.filter((card) => card === 'JK');
  const byRank = new Map();
  for (const card of hand) {
    if (card === 'JK') continue;
    const rank = card.slice(0, -1);
    if (!byRank.has(rank)) byRank.set(rank, []);
    byRank.get(rank).push(card);
  }
  const order = ['A', 'K', 'Q', 'J', '10', '9', '8', '7', '6', '5', '4', '3', '2'];
  const groups = [];
  const rest = [];
  for (const rank of order) {
    const cards = byRank.get(rank) || [];
    if (cards.length >= 2) groups.push(sortCards(cards));
    else rest.push(...cards);
  }
  if (rest.length) groups.push(sortCards(rest));
  if (jokers.length) groups.push(jokers);
  return groups;
}

export function createRummy51View(ctx) {
  const { ui, cards } = ctx;
  const { el } = ui;
  const st = {
    message: null,
    view: null,
    legal: new Set(),
    gameNo: null,
    key: null,
    groups: [], // your hand in your own groups (without the cards in the tray)
    hand: [], // the cards those groups hold
    untouched: [], // cards drawn and not moved since (the "new cards" group)
    fresh: new Set(),
    picks: [], // positions {group, index} of the picked cards, in the order picked
    tray: [], // [{cards, choice, order?}]: the tentative groups, `order` a fixed one (the hint's)
    hintShown: null, // the hint's value while the tray holds its groups
    sortBy: 'suit',
    busy: false,
    lastMove: '',
    freshGroups: new Set(),
    result: null, // {element, gameNo, shownAt, timer}
    dismissed: new Set(),
    lastResult: null, // {message} of the last finished game, for "Last game"
    ticker: null,
    destroyed: false,
  };

  // ---- the felt centre ----------------------------------------------------------------------
  const stockCount = el('span', { class: 'r51-count', 'data-testid': 'pile-count' }, '0');
  const stock = el('button', {
    class: 'r51-pile r51-stock', type: 'button', 'data-testid': 'pile-closed', 'aria-label': 'Stock: draw its top card',
  }, el('span', { class: 'r51-stack' }, cards.renderBack(), cards.renderBack(), cards.renderBack()), stockCount);
  const discardPile = el('button', {
    class: 'r51-pile r51-discard', type: 'button', 'data-testid': 'pile-open', 'aria-label': 'Discard pile',
  });
  const turnClock = el('span', { class: 'r51-clock', 'data-testid': 'turn-clock' });
  const turnText = el('span', { class: 'r51-turn-text' });
  const turnInfo = el('div', { class: 'r51-turn', 'data-testid': 'turn-info', role: 'status' }, turnText, turnClock);
  const lastMove = el('div', { class: 'r51-last', 'data-testid': 'last-move', 'aria-live': 'polite' });
  const lastResultButton = el('button', {
    class: 'btn btn-ghost btn-small r51-last-result', type: 'button', 'data-testid': 'action-last-result', hidden: true,
    onclick: () => showLastResult(),
  }, 'Last game');
  const tableBox = el('div', {
    class: 'r51-table', 'data-testid': 'table-groups', role: 'region', 'aria-label': 'Groups on the table', tabindex: '-1',
  });
  const centre = el('div', { class: 'r51-centre' },
    el('div', { class: 'r51-side' },
      el('div', { class: 'r51-piles' },
        el('div', { class: 'r51-pile-wrap' }, stock, el('span', { class: 'r51-pile-name' }, 'Stock')),
        el('div', { class: 'r51-pile-wrap' }, discardPile, el('span', { class: 'r51-pile-name' }, 'Discard'))),
      turnInfo, lastMove, lastResultButton),
    tableBox);
  ctx.centre.append(centre);

  stock.addEventListener('click', () => draw('closed'));
  discardPile.addEventListener('click', () => draw('open'));

  // ---- your area ----------------------------------------------------------------------------
  const mustOpenText = el('span', {});
  const returnButton = button('Put it back', 'action-return', () => send('return'), 'Put the card back on the discard pile and draw from the stock instead');
  const mustOpen = el('div', { class: 'r51-must', 'data-testid': 'must-open', role: 'status', hidden: true }, mustOpenText, returnButton);

  const trayTitle = el('span', { class: 'r51-tray-title', 'data-testid': 'tray-title' });
  const trayTotal = el('span', { class: 'r51-tray-total', 'data-testid': 'tray-total', 'data-total': '0' });
  const trayNeed = el('span', { class: 'r51-tray-need', 'data-testid': 'tray-need' });
  const trayHint = el('span', { class: 'r51-tray-hint', 'data-testid': 'tray-hint', hidden: true });
  const trayGroups = el('div', { class: 'r51-tray-groups', role: 'list', 'aria-label': 'Groups in the tray' });
  const makeButton = button('Make group', 'action-make-group', () => makeTrayGroup(), 'Put the picked cards together as one group in the tray');
  const hintButton = button('Hint', 'action-hint', () => useHint(), 'Fill the tray with the most valuable opening in your hand');
  const clearButton = button('Clear', 'action-clear-tray', () => clearTray(), 'Put the tray\'s cards back in your hand', 'btn-ghost');
  const openButton = button('Open', 'action-open', () => sendTray('open'), 'Lay the tray\'s groups down as your opening', 'btn-gold');
  const meldButton = button('Lay down', 'action-meld', () => sendTray('meld'), 'Lay the tray\'s groups down on the table', 'btn-primary');
  const tray = el('section', { class: 'r51-tray', 'data-testid': 'opening-tray', 'aria-label': 'Groups to lay down', hidden: true },
    el('div', { class: 'r51-tray-head' },
      el('div', { class: 'r51-tray-sum' }, trayTitle, trayTotal, trayNeed, trayHint),
      el('div', { class: 'r51-tray-tools' }, makeButton, hintButton, clearButton, openButton, meldButton)),
    trayGroups);

  const handInfo = el('span', { class: 'r51-hand-info', 'data-testid': 'hand-info' });
  const sortButton = button('Sort', 'action-sort', () => sortHand(), 'Sort your cards (by suit, then by rank)', 'btn-ghost');
  const discardButton = button('Discard', 'action-discard', () => discardPicked(), 'Throw the picked card onto the discard pile', 'btn-primary');
  const buryButton = button('Bury joker', 'action-bury', () => discardPicked(), 'Throw the picked card with the picked joker buried under it');
  const note = el('span', { class: 'r51-note', 'data-testid': 'action-note' });
  const handHost = el('div', { class: 'h13-hand-host r51-hand-host' });
  const actions = el('div', { class: 'r51-actions' },
    el('div', { class: 'r51-actions-left' }, handInfo, sortButton),
    note,
    el('div', { class: 'r51-actions-right' }, buryButton, discardButton));
  const liveNote = el('div', { class: 'sr-only', 'aria-live': 'polite' });
  const area = el('div', { class: 'h13-mine r51-mine' },
    mustOpen,
    tray,
    handHost,
    actions,
    liveNote);
  // On a phone with seats at the felt's sides the groups on the table get a band of their own
  // under the felt, the width of the screen (between the side seats only a sliver is free).
  const band = el('div', { class: 'r51-band', hidden: true });
  ctx.mine.append(band, area);
  const narrow = window.matchMedia ? window.matchMedia('(max-width: 640px)') : null;
  const onNarrow = () => placeTable();
  if (narrow && narrow.addEventListener) narrow.addEventListener('change', onNarrow);

  function placeTable() {
    const info = st.message && st.message.info;
    const seats = info && info.seats ? info.seats.length : 2;
    const below = Boolean(narrow && narrow.matches && seats >= 3 && st.view);
    const parent = below ? band : centre;
    if (tableBox.parentNode !== parent) parent.append(tableBox);
    band.hidden = !below;
    centre.classList.toggle('r51-no-table', below);
  }

  const hand = createHand(handHost, {
    cards,
    onMove: moveInHand,
    onSelect: (pos) => {
      if (!pos) st.picks = [];
      else if (st.picks.some((p) => same(p, pos))) st.picks = st.picks.filter((p) => !same(p, pos));
      else st.picks = [...st.picks, pos];
      render();
    },
    onKey: (what, pos) => {
      if (what !== 'discard') return;
      if (!st.picks.some((p) => same(p, pos))) st.picks = [pos];
      discardPicked();
    },
    onDropOut: (pos, target) => dropped(pos, target),
    outsideTarget: dropTarget,
  });

  const stopTrayKeys = ui.arrowKeys ? ui.arrowKeys(tableBox, 'button:not([disabled])', { orientation: 'both' }) : null;

  function button(text, testid, onClick, title, kind = '') {
    const node = el('button', { class: `btn btn-small ${kind}`.trim(), type: 'button', 'data-testid': testid, title }, text);
    node.addEventListener('click', (event) => {
      if (node.getAttribute('aria-disabled') === 'true') {
        event.preventDefault();
        if (node.dataset.why) ui.toast(node.dataset.why, 'info');
        return;
      }
      onClick(event);
    });
    return node;
  }

  function enable(node, ok, why) {
    node.setAttribute('aria-disabled', ok ? 'false' : 'true');
    node.classList.toggle('is-disabled', !ok);
    node.dataset.why = ok ? '' : why || '';
  }

  // ---- helpers ------------------------------------------------------------------------------
  const same = (a, b) => a && b && a.group === b.group && a.index === b.index;
  const you = () => (st.message ? st.message.you : null);
  const myTurn = () => Boolean(st.view && st.view.phase === 'play' && st.view.turn === you() && you());
  const seatOf = (seat) => ((st.view && st.view.seats) || []).find((s) => s.seat === seat) || null;
  const opened = () => Boolean(seatOf(you()) && seatOf(you()).opened);
  const say = (text) => { liveNote.textContent = text; };

  function nameOf(seat, { me = 'You' } = {}) {
    if (seat === you()) return me;
    const info = st.message && st.message.info;
    const entry = info && info.seats ? info.seats[seat - 1] : null;
    return entry ? entry.name : `Seat ${seat}`;
  }

  const pickedCards = () => st.picks.map((p) => (st.groups[p.group] || [])[p.index]).filter(Boolean);
  const trayMode = () => (st.legal.has('open <groups>') ? 'open' : st.legal.has('meld <groups>') ? 'meld' : null);
  const trayOrder = (group) => group.order || groupChoices(group.cards, { opening: trayMode() === 'open' })[group.choice || 0];
  const trayCards = () => st.tray.flatMap((group) => group.cards);

  async function send(action) {
    if (st.busy) return null;
    st.busy = true;
    render();
    try {
      return await ctx.act(action);
    } catch {
      return null; // the shell has explained the refusal in a toast
    } finally {
      st.busy = false;
      if (!st.destroyed) render();
    }
  }

  // ---- your hand: arrangement, picks ---------------------------------------------------------
  function persist() {
    if (st.key) saveArrangement(st.key, st.groups, { untouched: st.untouched });
  }

  // The tray keeps only cards still in the hand; the hand's groups hold the rest.
  function adoptHand(v) {
    const handNow = v.hand || [];
    let left = [...handNow];
    st.tray = st.tray.map((group) => {
      const kept = keep(group.cards, left);
      left = without(left, kept);
      const whole = kept.length === group.cards.length;
      return { ...group, cards: kept, order: whole ? group.order : null };
    }).filter((group) => group.cards.length);
    const rest = without(handNow, trayCards());
    const key = you() ? arrangementKey(STORAGE, ctx.table, st.gameNo, 1) : null;
    if (key !== st.key) {
      st.key = key;
      st.picks = [];
      st.fresh = new Set();
      const saved = key ? loadArrangement(key) : null;
      st.untouched = saved && Array.isArray(saved.untouched) ? keep(saved.untouched, rest) : [];
      let groups = saved ? saved.groups : null;
      if (!groups) groups = sortedGroups(rest);
      st.groups = reconcile(groups, rest);
      st.hand = [...rest];
      if (key) {
        forgetTable(STORAGE, ctx.table, key);
        persist();
      }
      return;
    }
    if (sameCards(st.hand, rest)) return;
    if (!st.hand.length && !st.tray.length) {
      // The deal (the first message may have come before it): a hand sorted by suit.
      st.untouched = [];
      st.fresh = new Set();
      st.picks = [];
      st.groups = sortedGroups(rest);
      st.hand = [...rest];
      persist();
      return;
    }
    const added = without(rest, st.hand);
    ({ groups: st.groups, untouched: st.untouched } = addDrawn(st.groups, rest, st.untouched));
    st.hand = [...rest];
    st.picks = [];
    st.fresh = new Set();
    for (const card of added) {
      for (let g = st.groups.length - 1; g >= 0; g -= 1) {
        const i = st.groups[g].lastIndexOf(card);
        if (i >= 0 && !st.fresh.has(`${g}:${i}`)) {
          st.fresh.add(`${g}:${i}`);
          break;
        }
      }
    }
    if (added.length) say(`You got the ${added.map((c) => cards.cardLabel(c)).join(', ')}.`);
    persist();
  }

  function setGroups(groups, { picks = [] } = {}) {
    st.groups = groups.filter((group) => group.length);
    st.hand = flat(st.groups);
    st.picks = picks;
    st.fresh = new Set();
    persist();
    render();
  }

  function moveInHand(from, to, { keyboard }) {
    const { groups, at } = moveCard(st.groups, from, to);
    if (!at) return;
    const card = groups[at.group][at.index];
    st.untouched = without(st.untouched, [card]);
    say(`${cards.cardLabel(card)} moved to group ${at.group + 1}, place ${at.index + 1}.`);
    setGroups(groups, { picks: keyboard ? [at] : [] });
    if (keyboard) hand.focusCard(at);
  }

  function sortHand() {
    if (!st.hand.length) return;
    st.untouched = [];
    setGroups(st.sortBy === 'suit' ? sortedGroups(st.hand) : rankGroups(st.hand));
    say(st.sortBy === 'suit' ? 'Cards sorted by suit.' : 'Cards sorted by rank.');
    st.sortBy = st.sortBy === 'suit' ? 'rank' : 'suit';
    render();
  }

  // The hand's groups without the cards at `positions`; returns [groups, cards taken].
  function takeFromHand(positions) {
    const taken = positions.map((p) => st.groups[p.group][p.index]);
    const gone = new Set(positions.map((p) => `${p.group}:${p.index}`));
    const groups = st.groups.map((group, g) => group.filter((_, i) => !gone.has(`${g}:${i}`)));
    return [groups, taken];
  }

  // The hand's groups without these cards (by value, each copy once).
  function takeCards(list) {
    let groups = st.groups.map((group) => [...group]);
    for (const card of list) {
      for (const group of groups) {
        const i = group.indexOf(card);
        if (i >= 0) {
          group.splice(i, 1);
          break;
        }
      }
    }
    groups = groups.filter((group) => group.length);
    return groups;
  }

  // ---- the tray -------------------------------------------------------------------------------
  function makeTrayGroup() {
    if (!st.picks.length) return;
    const [groups, taken] = takeFromHand(st.picks);
    st.tray = [...st.tray, { cards: taken, choice: 0 }];
    st.hintShown = null;
    st.untouched = without(st.untouched, taken);
    say(`Tray group ${st.tray.length}: ${taken.map(shortCard).join(' ')}.`);
    setGroups(groups);
  }

  function toTray(pos, index) {
    const [groups, [card]] = takeFromHand([pos]);
    if (index !== null && st.tray[index]) {
      st.tray = st.tray.map((group, i) => (i === index ? { cards: [...group.cards, card], choice: 0 } : group));
    } else {
      st.tray = [...st.tray, { cards: [card], choice: 0 }];
    }
    st.hintShown = null;
    st.untouched = without(st.untouched, [card]);
    setGroups(groups);
  }

  function backToHand(list) {
    if (!list.length) return;
    st.groups = [...st.groups.map((group) => [...group]), [...list]];
    st.hand = flat(st.groups);
    persist();
  }

  function removeTrayGroup(index) {
    const group = st.tray[index];
    if (!group) return;
    st.tray = st.tray.filter((_, i) => i !== index);
    st.hintShown = null;
    backToHand(group.cards);
    st.picks = [];
    render();
  }

  function clearTray() {
    const list = trayCards();
    st.tray = [];
    st.hintShown = null;
    backToHand(list);
    st.picks = [];
    render();
  }

  function flipTrayGroup(index) {
    const group = st.tray[index];
    if (!group) return;
    const choices = groupChoices(group.cards, { opening: trayMode() === 'open' });
    const now = choices.findIndex((order) => order.join(' ') === trayOrder(group).join(' '));
    st.tray = st.tray.map((g, i) => (i === index ? { cards: g.cards, choice: (now + 1) % choices.length } : g));
    st.hintShown = null;
    render();
  }

  function useHint() {
    const hint = st.view && st.view.opening_hint;
    if (!hint) return;
    if (!hint.groups.length) {
      ui.toast('Your hand holds no set or run to lay down yet.', 'info');
      return;
    }
    const back = trayCards();
    st.tray = [];
    backToHand(back);
    const wanted = hint.groups.flat();
    st.tray = hint.groups.map((group) => ({ cards: [...group], choice: 0, order: [...group] }));
    st.hintShown = hint.value;
    st.untouched = without(st.untouched, wanted);
    setGroups(takeCards(wanted));
    say(`Hint: ${hint.groups.length} group${hint.groups.length > 1 ? 's' : ''} worth ${hint.value}.`);
  }

  function trayState() {
    const mode = trayMode();
    const rows = st.tray.map((group) => {
      const order = trayOrder(group);
      const made = makeGroup(order, { opening: mode === 'open' });
      return { order, made, choices: groupChoices(group.cards, { opening: mode === 'open' }).length };
    });
    const total = rows.reduce((sum, row) => sum + (row.made ? row.made.value : 0), 0);
    const valid = rows.length > 0 && rows.every((row) => row.made);
    return { mode, rows, total, valid };
  }

  function sendTray(kind) {
    const { rows, valid, total } = trayState();
    if (!valid) return;
    if (kind === 'open' && total < st.view.opening) return;
    send(`${kind} ${rows.map((row) => row.order.join(' ')).join(' | ')}`);
  }

  // ---- moves ----------------------------------------------------------------------------------
  function drawRefusal(which) {
    if (!you()) return 'You are watching this table.';
    const v = st.view;
    if (!v || v.phase !== 'play') return 'Nobody draws right now.';
    if (!myTurn()) return `Wait for your turn: ${nameOf(v.turn)} is playing.`;
    if (v.drawn) {
      return v.first_round && v.turn === v.first
        ? 'You start the game by throwing a card: no draw on the first turn.'
        : 'You have drawn this turn: lay down, or throw a card.';
    }
    if (which === 'open') {
      if (!v.open.length) return 'The discard pile is empty.';
      return 'You may not take that card now: draw from the stock.';
    }
    return 'You cannot draw now.';
  }

  function draw(which) {
    if (st.busy) return;
    if (!st.legal.has(`draw ${which}`)) {
      ui.toast(drawRefusal(which), 'info');
      return;
    }
    send(`draw ${which}`);
  }

  // What Discard would send for the picked cards, or null.
  function discardAction(picked = pickedCards()) {
    const jokers = picked.filter((c) => c === 'JK');
    const natural = picked.filter((c) => c !== 'JK');
    if (natural.length === 1 && jokers.length === 0) {
      const action = `discard ${natural[0]}`;
      return st.legal.has(action) ? action : null;
    }
    if (natural.length === 1 && jokers.length === 1) {
      return st.legal.has('discard <card> JK') && st.legal.has(`discard ${natural[0]}`) ? `discard ${natural[0]} JK` : null;
    }
    if (!natural.length && jokers.length) {
      const action = `discard ${jokers.join(' ')}`;
      return st.legal.has(action) ? action : null;
    }
    return null;
  }

  function discardRefusal() {
    if (!you()) return 'You are watching this table.';
    if (!myTurn()) return 'You can discard only on your turn.';
    if (!st.view.drawn) return 'Draw a card first.';
    if (st.view.must_open) return 'You took the discard: open this turn, or put it back.';
    const picked = pickedCards();
    if (!picked.length) return 'Pick the card to throw first: click it, or drag it onto the discard pile.';
    if (picked.every((c) => c === 'JK')) return 'A joker goes on the pile only buried under another card: pick a card too.';
    return 'Pick one card to throw (and a joker with it to bury the joker).';
  }

  function discardPicked() {
    if (st.busy) return;
    const action = discardAction();
    if (!action) {
      ui.toast(discardRefusal(), 'info');
      return;
    }
    send(action);
  }

  function addRefusal() {
    if (!myTurn()) return 'You can lay cards off only on your turn.';
    if (!opened()) return 'Open first: lay groups worth 51 or more.';
    return 'Pick one card first.';
  }

  function addTo(group, end, card = pickedCards()[0]) {
    if (st.busy || !card) return;
    if (!st.legal.has('add <id> <card> [low|high]')) {
      ui.toast(addRefusal(), 'info');
      return;
    }
    // A joker on a run goes to the end asked for; so does an ace that fits both ends.
    let side = null;
    if (group.kind === 'run' && end) {
      const both = fitsAdd(group, card, 'low') && fitsAdd(group, card, 'high');
      if (card === 'JK' || both) side = end;
    }
    send(`add ${group.id} ${card}${side ? ` ${side}` : ''}`);
  }

  function swapIn(group, card = pickedCards()[0]) {
    if (st.busy || !card) return;
    if (!st.legal.has('swap <id> <card>')) {
      ui.toast(addRefusal().replace('lay cards off', 'swap a joker'), 'info');
      return;
    }
    if (card === 'JK') {
      ui.toast('Swap a joker for the card it stands for: pick that card.', 'info');
      return;
    }
    send(`swap ${group.id} ${card}`);
  }

  // Where a card dragged from the hand would land: the discard pile, a table group (its end), a
  // joker on the table (a swap), the tray; or null (the hand itself).
  function dropTarget(x, y) {
    const under = document.elementFromPoint(x, y);
    if (!under) return null;
    if (discardPile.contains(under)) return { el: discardPile, cls: 'r51-target', kind: 'discard' };
    const jokerNode = under.closest('[data-testid="table-card"][data-card="JK"]');
    if (jokerNode && tableBox.contains(jokerNode)) {
      const groupNode = jokerNode.closest('[data-testid="table-group"]');
      return { el: jokerNode, cls: 'r51-target', kind: 'swap', id: Number(groupNode.dataset.id), joker: true, groupNode };
    }
    const groupNode = under.closest('[data-testid="table-group"]');
    if (groupNode && tableBox.contains(groupNode)) {
      const rect = groupNode.getBoundingClientRect();
      const end = x < rect.left + rect.width / 2 ? 'low' : 'high';
      return { el: groupNode, cls: `r51-target-${end}`, kind: 'add', id: Number(groupNode.dataset.id), end };
    }
    if (!tray.hidden && tray.contains(under)) {
      const trayGroup = under.closest('[data-testid="tray-group"]');
      return trayGroup
        ? { el: trayGroup, cls: 'r51-target', kind: 'tray', index: Number(trayGroup.dataset.index) }
        : { el: tray, cls: 'r51-target', kind: 'tray', index: null };
    }
    return null;
  }

  function tableGroup(id) {
    return ((st.view && st.view.table) || []).find((group) => group.id === id) || null;
  }

  function dropped(pos, target) {
    const card = (st.groups[pos.group] || [])[pos.index];
    if (!card) return;
    if (target.kind === 'discard') {
      // A joker dragged with one other card picked (or a card with a joker picked): bury it.
      const others = pickedCards().filter((_, i) => !same(st.picks[i], pos));
      const pair = others.length === 1 && (card === 'JK') !== (others[0] === 'JK') ? [card, others[0]] : [card];
      const action = discardAction(pair);
      if (!action) {
        st.picks = [pos];
        ui.toast(discardRefusal(), 'info');
        render();
        return;
      }
      send(action);
    } else if (target.kind === 'tray') {
      if (!trayMode()) return;
      toTray(pos, target.index);
    } else if (target.kind === 'swap') {
      const group = tableGroup(target.id);
      if (!group) return;
      if (card === 'JK') addTo(group, null, card);
      else if (fitsSwap(group, card) || !fitsAdd(group, card)) swapIn(group, card);
      else addTo(group, null, card);
    } else if (target.kind === 'add') {
      const group = tableGroup(target.id);
      if (group) addTo(group, target.end, card);
    }
  }

  // ---- drawing: the centre --------------------------------------------------------------------
  function renderCentre() {
    const v = st.view;
    stockCount.textContent = String(v ? v.closed : 0);
    stock.setAttribute('aria-label', `Stock, ${v ? v.closed : 0} cards: draw its top card`);
    enable(stock, st.legal.has('draw closed') && !st.busy, drawRefusal('closed'));
    stock.classList.toggle('can-draw', st.legal.has('draw closed'));
    stock.classList.toggle('empty', !v || !v.closed);
    const pile = (v && v.open) || [];
    const top = pile.length ? pile[pile.length - 1] : null;
    discardPile.replaceChildren();
    discardPile.dataset.top = top || '';
    if (pile.length > 1) discardPile.append(el('span', { class: 'r51-under' }, cards.renderCard(pile[pile.length - 2])));
    if (top) {
      const node = cards.renderCard(top);
      node.classList.add('r51-top');
      discardPile.append(node);
    } else {
      discardPile.append(el('span', { class: 'r51-empty-slot' }, 'empty'));
    }
    discardPile.append(el('span', { class: 'r51-count' }, String(pile.length)));
    const mayTake = st.legal.has('draw open');
    discardPile.setAttribute('aria-label', top
      ? `Discard pile, ${pile.length} cards, ${cards.cardLabel(top)} on top${mayTake ? ': take it' : ''}`
      : 'Discard pile: empty; drop a card here to throw it');
    enable(discardPile, mayTake && !st.busy, drawRefusal('open'));
    discardPile.classList.toggle('can-draw', mayTake);
    renderTurn();
    lastMove.textContent = st.lastMove;
    lastMove.hidden = !st.lastMove;
    renderTable();
  }

  function renderTurn() {
    const v = st.view;
    let text = '';
    if (!v) text = 'Waiting for the deal…';
    else if (v.phase === 'start') text = 'Dealing…';
    else if (v.phase === 'reshuffle') text = 'The stock ran out: the discard pile becomes the new stock…';
    else if (v.phase === 'over') {
      const winner = v.result && v.result.winners && v.result.winners[0];
      text = winner ? `${nameOf(winner)} went out` : 'The game is over';
    } else if (myTurn()) {
      if (!v.drawn) text = v.may_take_open ? 'Your turn: draw from the stock or take the discard' : 'Your turn: draw from the stock';
      else if (v.must_open) text = `Your turn: open with ${v.opening}, or put the card back`;
      else if (v.first_round) {
        text = v.turn === v.first ? 'You start: throw a card (no draw on the first turn)'
          : 'Your turn: throw a card (nobody lays down in the first round)';
      }
      else if (opened()) text = 'Your turn: lay down, lay off, then throw a card';
      else text = `Your turn: open with ${v.opening} or more, or throw a card`;
    } else {
      text = `${nameOf(v.turn)} to play${v.first_round ? ' · first round: nobody lays down yet' : ''}`;
    }
    turnText.textContent = text;
    turnInfo.classList.toggle('yours', myTurn());
    turnInfo.dataset.yours = myTurn() ? 'true' : 'false';
    tickClock();
  }

  function tickClock() {
    const v = st.view;
    const waiting = v && myTurn() ? (v.awaited || []).find((a) => a.seat === you()) : null;
    if (!waiting || typeof waiting.deadline !== 'number') {
      turnClock.textContent = '';
      turnClock.hidden = true;
      return;
    }
    const left = Math.max(0, waiting.deadline - ctx.now());
    turnClock.hidden = false;
    turnClock.textContent = `${Math.ceil(left / 1000)}s`;
    turnClock.classList.toggle('hurry', left < 8000);
  }

  function renderTable() {
    const v = st.view;
    const groups = (v && v.table) || [];
    const picked = pickedCards();
    const one = picked.length === 1 ? picked[0] : null;
    const canAdd = st.legal.has('add <id> <card> [low|high]') && !st.busy;
    const canSwap = st.legal.has('swap <id> <card>') && !st.busy;
    const scroll = tableBox.scrollTop;
    tableBox.replaceChildren();
    if (!groups.length) {
      tableBox.append(el('p', { class: 'r51-table-empty', 'data-testid': 'table-empty' },
        v && v.phase !== 'start' ? `No groups on the table yet: the first player to open lays ${v.opening} or more.` : ''));
      return;
    }
    const seats = ((v && v.seats) || []).map((s) => s.seat);
    const me = you();
    const start = me && seats.includes(me) ? seats.indexOf(me) : 0;
    const owners = [...seats.slice(start), ...seats.slice(0, start)].filter((seat) => groups.some((g) => g.owner === seat));
    for (const owner of owners) {
      const mine = groups.filter((g) => g.owner === owner);
      const block = el('div', { class: `r51-owner${owner === me ? ' yours' : ''}`, 'data-testid': 'table-owner', 'data-owner': String(owner) },
        el('div', { class: 'r51-owner-name' }, nameOf(owner, { me: 'Your groups' })));
      const row = el('div', { class: 'r51-owner-groups' });
      for (const group of mine) row.append(renderGroup(group, { one, canAdd, canSwap }));
      block.append(row);
      tableBox.append(block);
    }
    tableBox.scrollTop = scroll;
  }

  function kindWords(group) {
    const meaning = group.cards.map((card, i) => group.stands[i] || card);
    if (group.kind === 'set') return `set of ${cards.cardLabel(meaning[0]).split(' of ')[0]}s`;
    const suit = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' }[meaning[0].slice(-1)];
    return `run of ${suit}, ${shortCard(meaning[0])} to ${shortCard(meaning[meaning.length - 1])}`;
  }

  function renderGroup(group, { one, canAdd, canSwap }) {
    const fits = one ? fitsAdd(group, one) : false;
    const swaps = one ? fitsSwap(group, one) : false;
    const node = el('div', {
      class: `r51-group r51-${group.kind}${st.freshGroups.has(group.id) ? ' r51-fresh' : ''}${fits || swaps ? ' r51-fits' : ''}`,
      'data-testid': 'table-group', 'data-id': String(group.id), 'data-owner': String(group.owner), 'data-kind': group.kind,
      'data-fits': fits || swaps ? 'true' : 'false',
      role: 'group', 'aria-label': `Group ${group.id}: ${kindWords(group)}, ${nameOf(group.owner, { me: 'yours' })}${group.owner === you() ? '' : '\u2019s'}`,
    });
    node.append(el('span', { class: 'r51-gid', 'aria-hidden': 'true' }, String(group.id)));
    const plus = (end) => {
      const testid = group.kind === 'run' ? `add-${group.id}-${end}` : `add-${group.id}`;
      return el('button', {
        class: `r51-plus r51-plus-${end}`, type: 'button', 'data-testid': testid,
        'aria-label': `Lay the ${cards.cardLabel(one)} off on group ${group.id}${group.kind === 'run' ? ` at its ${end} end` : ''}`,
        onclick: () => addTo(group, end),
      }, '+');
    };
    const showPlus = canAdd && one;
    if (showPlus && group.kind === 'run' && fitsAdd(group, one, 'low')) node.append(plus('low'));
    const row = el('div', { class: 'r51-group-cards' });
    group.cards.forEach((card, i) => {
      const stands = group.stands[i];
      const swappable = Boolean(stands && canSwap && one && one !== 'JK');
      const face = cards.renderCard(card, {
        small: true,
        button: Boolean(stands),
        label: stands ? `joker standing for the ${cards.cardLabel(stands)}${swappable ? `: swap your ${cards.cardLabel(one)} for it` : ''}` : undefined,
      });
      face.dataset.testid = 'table-card';
      if (stands) {
        face.dataset.stands = stands;
        face.disabled = !swappable;
        face.classList.toggle('r51-swappable', swappable && fitsSwap(group, one));
        face.addEventListener('click', () => swapIn(group));
        face.append(el('span', { class: 'r51-stands', 'data-testid': 'table-stands', 'aria-hidden': 'true' }, `=${shortCard(stands)}`));
      }
      row.append(face);
    });
    node.append(row);
    if (showPlus && (group.kind === 'set' ? fits : fitsAdd(group, one, 'high'))) node.append(plus('high'));
    return node;
  }

  // ---- drawing: your area ---------------------------------------------------------------------
  function renderMine() {
    const v = st.view;
    const me = you();
    area.hidden = !me || !v;
    if (area.hidden) return;
    const picked = pickedCards();
    // The must-open note.
    mustOpen.hidden = !(myTurn() && v.must_open);
    if (!mustOpen.hidden) {
      const taken = v.drew ? shortCard(v.drew) : 'the discard';
      mustOpenText.textContent = `You took ${taken} from the discard pile without having opened: open with ${v.opening} or more this turn, or put it back.`;
    }
    enable(returnButton, st.legal.has('return') && !st.busy, 'Only a discard taken without opening can be put back.');
    // The tray.
    const mode = trayMode();
    if (!mode && st.tray.length) {
      const list = trayCards();
      st.tray = [];
      st.hintShown = null;
      backToHand(list);
    }
    tray.hidden = !mode;
    tray.dataset.mode = mode || '';
    if (mode) renderTray(mode, picked);
    // The hand.
    const labels = st.groups.map((group) => {
      const made = group.length >= 3 ? makeGroup(group, { opening: !opened() }) : null;
      if (made) return { kind: made.kind, text: `${made.kind === 'set' ? 'Set' : 'Run'} · ${made.value}` };
      return { kind: '', text: group.length === 1 ? '1 card' : `${group.length} cards` };
    });
    const lastGroup = st.groups.length - 1;
    const picks = new Set(st.picks.map((p) => `${p.group}:${p.index}`));
    hand.render(st.groups, {
      labels,
      newGroup: isNewGroup(st.groups[lastGroup], st.untouched) ? lastGroup : -1,
      selected: st.picks.length === 1 ? st.picks[0] : null,
      picked: picks,
      isWild: (card) => card === 'JK',
      fresh: st.fresh,
      disabled: v.phase !== 'play',
      locked: false,
    });
    handHost.hidden = !st.hand.length && !st.tray.length;
    const held = (v.hand || []).length;
    actions.hidden = !held;
    handInfo.textContent = held ? `${held} card${held === 1 ? '' : 's'}${st.tray.length ? ` (${trayCards().length} in the tray)` : ''}` : '';
    enable(sortButton, st.hand.length > 1, 'Nothing to sort.');
    sortButton.textContent = st.sortBy === 'suit' ? 'Sort by suit' : 'Sort by rank';
    // Discard / bury.
    const action = discardAction(picked);
    const burying = Boolean(action && action.endsWith(' JK') && picked.some((c) => c !== 'JK'));
    const playing = v.phase === 'play' && held > 0;
    discardButton.hidden = !playing || burying;
    buryButton.hidden = !burying;
    enable(discardButton, Boolean(action) && !st.busy, discardRefusal());
    enable(buryButton, Boolean(action) && !st.busy, discardRefusal());
    const natural = picked.find((c) => c !== 'JK');
    discardButton.textContent = action ? (action.split(' ').length > 2 ? 'Throw the jokers' : `Discard ${shortCard(natural)}`) : 'Discard';
    buryButton.textContent = natural ? `Bury joker under ${shortCard(natural)}` : 'Bury joker';
    discardButton.classList.toggle('pulse', Boolean(action) && myTurn());
    // A word on what picking a card does now.
    let words = '';
    if (myTurn() && v.drawn && !v.must_open) {
      if (picked.length === 1 && opened() && picked[0]) words = 'Press a group\u2019s + (or drop the card on it) to lay it off.';
      else if (!picked.length) words = mode ? 'Pick cards, then Make group, or throw one.' : 'Pick the card to throw.';
    }
    note.textContent = words;
  }

  function renderTray(mode, picked) {
    const { rows, total, valid } = trayState();
    trayTitle.textContent = mode === 'open' ? 'Opening' : 'New groups';
    trayTotal.textContent = mode === 'open' ? `${total} / ${st.view.opening}` : String(total);
    trayTotal.dataset.total = String(total);
    trayTotal.classList.toggle('enough', mode === 'open' && total >= st.view.opening && valid);
    const short = st.view.opening - total;
    trayNeed.textContent = mode === 'open' ? (rows.length ? (short > 0 ? `${short} to go` : valid ? 'enough to open' : '') : 'pick cards, then Make group') : (rows.length ? '' : 'pick cards, then Make group');
    const hint = st.view.opening_hint;
    trayHint.hidden = st.hintShown === null;
    if (st.hintShown !== null) {
      trayHint.textContent = hint && hint.opens ? `hint: ${st.hintShown}` : `hint: ${st.hintShown}, not enough to open yet`;
    }
    trayGroups.replaceChildren();
    rows.forEach((row, index) => {
      const flip = row.choices > 1 ? el('button', {
        class: 'r51-tray-btn', type: 'button', 'data-testid': 'tray-flip', title: 'Put the joker at the other end',
        'aria-label': `Tray group ${index + 1}: move its joker`, onclick: () => flipTrayGroup(index),
      }, '⇄') : null;
      const remove = el('button', {
        class: 'r51-tray-btn', type: 'button', 'data-testid': 'tray-remove', title: 'Back to your hand',
        'aria-label': `Tray group ${index + 1}: put its cards back in your hand`, onclick: () => removeTrayGroup(index),
      }, '×');
      const made = row.made;
      const stands = made ? made.stands : [];
      trayGroups.append(el('div', {
        class: `r51-tray-group${made ? '' : ' invalid'}`, role: 'listitem', 'data-testid': 'tray-group', 'data-index': String(index),
        'data-value': made ? String(made.value) : '', 'data-valid': made ? 'true' : 'false',
        'aria-label': `Tray group ${index + 1}: ${row.order.map(shortCard).join(' ')}, ${made ? `${made.kind}, ${made.value}` : 'not a set or a run'}`,
      },
      el('div', { class: 'r51-tray-cards' }, row.order.map((card, i) => {
        const face = cards.renderCard(card, { small: true });
        if (stands[i]) face.append(el('span', { class: 'r51-stands', 'aria-hidden': 'true' }, `=${shortCard(stands[i])}`));
        return face;
      })),
      el('div', { class: 'r51-tray-label' },
        el('span', {}, made ? `${made.kind === 'set' ? 'Set' : 'Run'} ${made.value}` : (mode === 'open' && row.order.filter((c) => c === 'JK').length > 1 ? 'one joker a group' : 'not a group')),
        flip, remove)));
    });
    makeButton.hidden = false;
    enable(makeButton, picked.length > 0 && !st.busy, 'Pick the cards of the group in your hand first.');
    hintButton.hidden = mode !== 'open' || !st.view.opening_hint;
    enable(hintButton, !st.busy, '');
    clearButton.hidden = !rows.length;
    openButton.hidden = mode !== 'open';
    meldButton.hidden = mode !== 'meld';
    const keepsOne = st.hand.length >= 1;
    const openOk = valid && total >= st.view.opening && keepsOne && !st.busy;
    enable(openButton, openOk, !rows.length ? 'Put groups in the tray first (or press Hint).'
      : !valid ? 'Every group in the tray must be a set or a run.'
        : !keepsOne ? 'Keep one card in your hand to throw.'
          : `An opening must be worth ${st.view.opening} or more: this is ${total}.`);
    openButton.textContent = mode === 'open' ? `Open · ${total}` : 'Open';
    enable(meldButton, valid && keepsOne && !st.busy, !rows.length ? 'Put groups in the tray first.'
      : !valid ? 'Every group in the tray must be a set or a run.' : 'Keep one card in your hand to throw.');
  }

  // ---- seats --------------------------------------------------------------------------------------
  function renderSeats() {
    const v = st.view;
    for (const entry of (v && v.seats) || []) {
      const slot = ctx.seatSlot(entry.seat);
      if (!slot) continue;
      let mark = slot.querySelector('.r51-seat-mark');
      if (!mark) {
        mark = el('span', { class: 'r51-seat-mark', 'data-testid': `opened-${entry.seat}`, title: 'has opened: lays groups down and adds to any group' }, 'opened');
        slot.append(mark);
      }
      mark.hidden = !entry.opened || v.phase === 'start';
    }
  }

  // ---- events: the last move, the groups that just changed ---------------------------------------
  function noteEvents(events) {
    const moves = [];
    const changed = new Set();
    for (const event of events || []) {
      const d = event.data || {};
      const who = d.seat ? nameOf(d.seat) : '';
      switch (event.kind) {
        case 'draw':
          moves.push(d.from === 'open' ? `${who} took ${shortCard(d.card)} from the discard pile` : `${who} drew from the stock`);
          break;
        case 'return': moves.push(`${who} put ${shortCard(d.card)} back`); break;
        case 'open':
          moves.push(`${who} opened with ${d.value}`);
          for (const g of d.groups || []) changed.add(g.id);
          break;
        case 'meld':
          moves.push(`${who} laid down ${d.groups.length} group${d.groups.length > 1 ? 's' : ''} (${d.value})`);
          for (const g of d.groups || []) changed.add(g.id);
          break;
        case 'add':
          moves.push(`${who} laid ${shortCard(d.card)} off on group ${d.group.id}`);
          changed.add(d.group.id);
          break;
        case 'swap':
          moves.push(`${who} swapped ${shortCard(d.card)} for the joker of group ${d.group.id}`);
          changed.add(d.group.id);
          break;
        case 'discard':
          moves.push(d.buried ? `${who} buried a joker under ${shortCard(d.cards[d.cards.length - 1])}` : `${who} threw ${d.cards.map(shortCard).join(' ')}`);
          break;
        case 'timeout': moves.push(`${who} ran out of time${d.discarded ? ` (threw ${d.discarded.split(' ').map(shortCard).join(' ')})` : ''}`); break;
        case 'reshuffle': moves.push('The discard pile was shuffled into a new stock'); break;
        case 'game_end':
          moves.push(d.winner ? `${nameOf(d.winner)} went out${d.rummy ? ': Rummy!' : ''}` : 'Nobody could go out');
          break;
        default: break;
      }
    }
    if (moves.length) st.lastMove = moves.slice(-2).join(' · ');
    st.freshGroups = changed;
  }

  // ---- the result ---------------------------------------------------------------------------------
  function renderResultPanel() {
    const v = st.view;
    if (v && v.phase === 'over' && v.result) {
      st.lastResult = { message: st.message, gameNo: st.gameNo };
      if (!st.dismissed.has(st.gameNo) && (!st.result || st.result.gameNo !== st.gameNo)) showResult(st.lastResult);
    } else if (st.result && !st.result.pinned && st.result.gameNo !== st.gameNo) {
      // A new game: let the result linger a little, then give the felt back; at once on your turn.
      const shown = performance.now() - st.result.shownAt;
      if (shown >= RESULT_MIN_MS || myTurn()) hideResult(false);
      else if (!st.result.timer) st.result.timer = setTimeout(() => hideResult(false), RESULT_MIN_MS - shown);
    }
    lastResultButton.hidden = !st.lastResult || Boolean(st.result);
  }

  function showLastResult() {
    if (!st.lastResult) return;
    st.dismissed.delete(st.lastResult.gameNo);
    showResult(st.lastResult, { pinned: true });
    const close = st.result && st.result.element.querySelector('[data-testid="result-close"]');
    if (close) close.focus();
  }

  function showResult(data, { pinned = false } = {}) {
    hideResult(false);
    const element = renderResult(data.message, () => hideResult(true));
    ctx.root.append(element);
    st.result = { element, gameNo: data.gameNo, shownAt: performance.now(), timer: null, pinned };
    lastResultButton.hidden = true;
  }

  function hideResult(dismissed) {
    if (!st.result) return;
    if (st.result.timer) clearTimeout(st.result.timer);
    if (dismissed) st.dismissed.add(st.result.gameNo);
    st.result.element.remove();
    st.result = null;
    if (!st.destroyed) renderResultPanel();
  }

  function renderResult(message, onClose) {
    const v = message.view;
    const result = v.result;
    const detail = result.detail || {};
    const places = detail.places || {};
    const hands = detail.hands || {};
    const me = message.you;
    const winner = (result.winners || [])[0] || null;
    const chips = new Map();
    for (const posting of result.postings || []) {
      const match = /^seat:(\d+)$/.exec(posting.account);
      if (match) chips.set(Number(match[1]), (chips.get(Number(match[1])) || 0) + posting.amount);
    }
    const seats = Object.keys(places).map(Number).sort((a, b) => places[a].place - places[b].place);
    const headline = winner === null ? 'Nobody went out' : winner === me ? 'You went out!' : `${nameOf(winner)} went out`;
    const body = el('tbody');
    for (const seat of seats) {
      const p = places[String(seat)];
      const amount = chips.get(seat) || 0;
      const left = hands[String(seat)] || [];
      body.append(el('tr', {
        class: `h13-result-row r51-result-row${seat === me ? ' you' : ''}`, 'data-testid': 'result-row', 'data-seat': String(seat), 'data-place': String(p.place),
      },
      el('td', { class: 'num r51-place', 'data-testid': 'result-place' }, ordinal(p.place)),
      el('th', { class: 'r51-who', scope: 'row' }, el('div', { class: 'h13-who' },
        el('span', {}, el('span', { class: 'name', 'data-testid': 'result-name' }, nameOf(seat)), ' ',
          seat === winner ? el('span', { class: 'badge-win' }, p.rummy ? 'Rummy' : 'out') : null),
        p.opened ? null : el('span', { class: 'r51-never' }, 'never opened'))),
      el('td', { class: 'num', 'data-testid': 'result-score' }, String(p.score)),
      el('td', { class: 'r51-left', 'data-testid': 'result-left', 'data-count': String(p.cards_left) },
        el('span', { class: 'num' }, String(p.cards_left)),
        left.length ? el('span', { class: 'h13-mini-group r51-left-cards' }, left.map((card) => cards.renderCard(card, { small: true }))) : null),
      el('td', { class: 'r51-opened-col', 'data-testid': 'result-opened' }, p.opened ? 'yes' : 'no'),
      el('td', { class: `num chips ${amount > 0 ? 'up' : amount < 0 ? 'down' : ''}`, 'data-testid': 'result-chips', 'data-amount': String(amount) },
        amount ? `${amount > 0 ? '+' : '−'}${ui.formatChips(Math.abs(amount))}` : '–')));
    }
    const close = el('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'result-close', onclick: onClose }, 'Close');
    return el('section', { class: 'h13-result r51-result', 'data-testid': 'result', 'data-game': String(message.info.game_no), role: 'dialog', 'aria-label': 'Result of the game' },
      el('div', { class: 'h13-result-head' },
        el('h2', { 'data-testid': 'result-headline' }, headline,
          detail.rummy ? el('span', { class: 'r51-rummy', 'data-testid': 'result-rummy', title: 'went out in the very turn of opening' }, 'Rummy!') : null),
        close),
      el('div', { class: 'h13-result-scroll' },
        el('table', { class: 'h13-result-table r51-result-table' },
          el('thead', {}, el('tr', {},
            el('th', { scope: 'col', class: 'num' }, 'Place'), el('th', { scope: 'col' }, 'Player'),
            el('th', { scope: 'col', class: 'num', title: 'lower is better' }, 'Score'),
            el('th', { scope: 'col', title: 'cards left in hand' }, el('span', { class: 'r51-long' }, 'Cards '), 'left'),
            el('th', { scope: 'col', class: 'r51-opened-col' }, 'Opened'), el('th', { scope: 'col', class: 'num' }, 'Chips'))),
          body)),
      el('p', { class: 'muted small' }, 'Lower scores place higher: going out scores −40, cards left in hand count their value (a joker 20), never opening 100.'));
  }

  // ---- update -------------------------------------------------------------------------------------
  function render() {
    if (st.destroyed) return;
    const v = st.view;
    centre.hidden = !v;
    if (!v) {
      area.hidden = true;
      band.hidden = true;
      return;
    }
    renderMine(); // first: it may give the tray's cards back to the hand
    placeTable();
    renderCentre();
    renderSeats();
  }

  function update(message) {
    if (st.destroyed) return;
    const v = message.view && message.view.game === GAME ? message.view : null;
    const gameNo = message.info ? message.info.game_no : null;
    if (gameNo !== st.gameNo) {
      st.tray = [];
      st.hintShown = null;
      st.picks = [];
      st.lastMove = '';
    }
    st.message = message;
    st.view = v;
    st.gameNo = gameNo;
    st.legal = new Set(message.legal || []);
    noteEvents(message.events);
    // Your own opening or new groups: the tray's cards are on the table now. (Emptied here, not
    // by what the hand still holds: with two packs, a second copy of a card may stay in hand.)
    if ((message.events || []).some((e) => (e.kind === 'open' || e.kind === 'meld') && e.data && e.data.seat === message.you)) {
      st.tray = [];
      st.hintShown = null;
    }
    if (v && message.you) {
      adoptHand(v);
    } else {
      st.groups = [];
      st.hand = [];
      st.tray = [];
    }
    render();
    renderResultPanel();
  }

  // What leaving now costs, in words (the shell asks before it lets you go); null when you are
  // not in a game.
  function leaveNote() {
    const v = st.view;
    if (!v || !you() || v.phase === 'over' || !seatOf(you())) return null;
    const stake = st.message.info && st.message.info.stake ? ` (${st.message.info.stake})` : '';
    return `Until this game ends the timer plays your turns for you, drawing and throwing, so you will most likely lose your stake${stake}.`;
  }

  st.ticker = setInterval(tickClock, 250);

  return {
    update,
    leaveNote,
    destroy() {
      st.destroyed = true;
      clearInterval(st.ticker);
      if (narrow && narrow.removeEventListener) narrow.removeEventListener('change', onNarrow);
      band.remove();
      if (stopTrayKeys) stopTrayKeys();
      if (st.result) {
        if (st.result.timer) clearTimeout(st.result.timer);
        st.result.element.remove();
      }
      hand.destroy();
      centre.remove();
      area.remove();
      for (const mark of ctx.root.querySelectorAll('.r51-seat-mark')) mark.remove();
    },
  };
}
