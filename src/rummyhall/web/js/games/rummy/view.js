// The table view every draw-and-discard rummy game shares (the games on the server's rummy
// family, src/rummyhall/games/rummy/): the piles and the cut joker on the felt, your hand in your
// own groups below, labelled live by the server (POST /api/check), and the deal's result. A
// game's view module (js/games/<game>.js) is this view with the game's options; the rules stay
// on the server: what may be done now is the message's `legal`.
//
//   createRummyView(ctx, options) -> {update(message), destroy(), leaveNote()}
//     ctx: see js/table.js. options (every one optional but `storage`; docs/client.md):
//       storage          the localStorage name of the game's saved arrangements
//                        ("rummyhall.<storage>.<table>.<game>.<deal>")
//       handSize         the cards a player holds between turns (13)
//       checkProfile(view)   the meld profile POST /api/check judges the groups by
//                            (default: view.profile)
//       arrangeProfile(view) the profile POST /api/arrange arranges by; null: no Auto-arrange
//                            button (default: view.profile)
//       isWild(card, view)   whether the card is wild in this deal (default: a printed joker or
//                            a card of view.wild_rank)
//       wildText(view)       the words under the cut card ("Wild: every 7 and joker")
//       badge(card, view)    a mark on a special card, {text, title} or null: in your hand, on
//                            the open pile, in shown groups and the result (default: none)
//       wrongPoints          what a wrong declaration costs, in points (80)
//       resultColumns        extra columns of the result table, after Points:
//                            [{key, heading, title?, cell(row, data) -> text | Node | null}]
//                            (row and data: see rummy/result.js; cells are data-testid
//                            "result-<key>")
//       className            a class on the view's parts (felt centre, your area, the result),
//                            for the game's own style sheet
//   roomHeadingFor(prefix) -> room => heading: a room's title without the game's prefix
//                            ("13 cards · pool 101" -> "Pool 101")
//
// Your arrangement is kept in localStorage (keyed by table, game and deal) and sent to the
// server as a `group` action a moment after you change it, so a show that times out counts your
// own groups. A card you draw by dragging joins the place you dropped it; a card drawn by a click
// (or the keyboard) joins the "new cards" group at the end (cards drawn and not moved since; a
// lone card at the end takes it in too), so the hand stays tidy. Discarded cards leave their
// group.
//
// Class names start with h13- (the first game of the family had them; the browser tests and the
// layout checks select by some of them, and every rummy game shares them with css/rummy.css).
//
// data-testid hooks:
//   felt centre: pile-closed, pile-open (data-top), pile-count, cut-joker (data-cut),
//                finish-slot, action-open-cards, open-cards-dialog (open-card: the pile, newest
//                first), action-last-result (the last deal's result again), turn-info
//   above yours: declared-groups (a declarer's groups, while the others show)
//   your area:   hand / group / group-label / hand-card / group-new (see rummy/hand.js),
//                hand-score (data-score), declarable (data-declarable), hint-line, hint-shapes
//                (hint-shape: data-shape, data-cards; Marriage's winning shapes), action-sort,
//                action-arrange, action-drop (data-cost), action-discard, action-declare,
//                action-new-group, action-show, action-rejoin, show-banner, show-timer
//   cards:       card-badge (a special card's mark, inside the card)
//   seats:       seat-mark-<n> (inside the shell's seat slot: dropped, won, out...; data-status,
//                data-total: the pool total)
//   result:      see rummy/result.js
// Disabled controls carry aria-disabled="true"; pressing them explains why in a toast.

import {
  addDrawn,
  arrangementKey,
  flat,
  forgetTable,
  isNewGroup,
  keep,
  loadArrangement,
  moveCard,
  notation,
  reconcile,
  sameCards,
  saveArrangement,
  sortedGroups,
  without,
} from './arrangement.js';
import { addBadge } from './badge.js';
import { draggable } from './drag.js';
import { createHand } from './hand.js';
import { resultData, renderResult } from './result.js';

// The lobby's heading of one of a game's rooms: its title without the game's prefix
// ("13 cards · pool 101" -> "Pool 101").
export function roomHeadingFor(prefix) {
  const start = `${prefix} · `;
  return (room) => (room.title.startsWith(start) ? room.title.slice(start.length) : room.title)
    .replace(/^./, (c) => c.toUpperCase());
}

const GROUP_SYNC_MS = 1200;
const RESULT_MIN_MS = 8000;

// A printed joker or a card of the deal's wild rank: the 13-card rule, and the base of others.
function defaultIsWild(card, view) {
  const rank = view && view.wild_rank;
  return card === 'JK' || Boolean(rank && card.slice(0, -1) === rank);
}

function defaultWildText(view) {
  return view.cut === 'JK' ? 'Wild: every ace and joker' : `Wild: every ${view.wild_rank} and joker`;
}

export function createRummyView(ctx, options) {
  const { ui, cards } = ctx;
  const { el } = ui;
  const opt = {
    handSize: 13,
    checkProfile: (view) => view.profile,
    arrangeProfile: (view) => view.profile,
    isWild: defaultIsWild,
    wildText: defaultWildText,
    badge: () => null,
    wrongPoints: 80,
    resultColumns: [],
    className: '',
    ...options,
  };
  if (!opt.storage) throw new Error('createRummyView: options.storage names the saved arrangements');

  const st = {
    message: null,
    view: null,
    legal: new Set(),
    key: null,
    groups: [],
    hand: [],
    selected: null,
    place: null, // where the next drawn card goes
    untouched: [], // cards drawn and not moved since (the "new cards" group)
    fresh: new Set(),
    labels: [],
    check: null,
    checkCache: new Map(),
    checkSeq: 0,
    hint: null, // the last auto-arrange hint: {key (its groups), labels, summary, shapes}
    busy: false,
    groupTimer: null,
    result: null, // {data, element, shownAt, dismissed}
    dismissed: new Set(),
    showTicker: null,
    destroyed: false,
  };

  // ---- the felt centre ----------------------------------------------------------------------
  const closedCount = el('span', { class: 'h13-count', 'data-testid': 'pile-count' }, '0');
  const closedPile = el('button', {
    class: 'h13-pile h13-closed', type: 'button', 'data-testid': 'pile-closed', 'data-drop': 'hand',
    'aria-label': 'Closed deck: draw its top card',
  }, el('span', { class: 'h13-stack' }, cards.renderBack(), cards.renderBack(), cards.renderBack()), closedCount);
  const cutSlot = el('div', { class: 'h13-cut', 'data-testid': 'cut-joker' });
  const cutText = el('div', { class: 'h13-cut-text' });
  const openPile = el('button', {
    class: 'h13-pile h13-open', type: 'button', 'data-testid': 'pile-open', 'aria-label': 'Open pile',
  });
  const openCardsButton = el('button', {
    class: 'btn btn-ghost btn-small h13-open-cards', type: 'button', 'data-testid': 'action-open-cards',
    onclick: showOpenCards,
  }, 'Open cards');
  const lastResultButton = el('button', {
    class: 'btn btn-ghost btn-small h13-open-cards', type: 'button', 'data-testid': 'action-last-result',
    hidden: true, onclick: showLastResult, title: 'Show the result of the last deal again',
  }, 'Last deal');
  const finishSlot = el('div', {
    class: 'h13-finish', 'data-testid': 'finish-slot', role: 'note',
    'aria-label': 'Finish slot: drop a card here to declare',
  }, el('span', { class: 'h13-finish-word' }, 'Finish'));
  const turnInfo = el('div', { class: 'h13-turn', 'data-testid': 'turn-info', role: 'status', 'aria-live': 'polite' });
  const declared = el('div', { class: 'h13-declared', 'data-testid': 'declared-groups', hidden: true });
  const centre = el('div', { class: 'h13-centre' },
    el('div', { class: 'h13-piles' },
      el('div', { class: 'h13-pile-wrap' }, el('div', { class: 'h13-deck' }, cutSlot, closedPile), el('span', { class: 'h13-pile-name' }, 'Closed'), cutText),
      el('div', { class: 'h13-pile-wrap' }, openPile, el('span', { class: 'h13-pile-name' }, 'Open'), openCardsButton),
      el('div', { class: 'h13-pile-wrap' }, finishSlot, el('span', { class: 'h13-pile-name' }, 'Declare'), lastResultButton)),
    turnInfo);
  ctx.centre.append(centre);

  // ---- your area ----------------------------------------------------------------------------
  const scoreBox = el('span', { class: 'h13-score', 'data-testid': 'hand-score', 'data-score': '' }, '');
  const declarableBox = el('span', { class: 'h13-declarable', 'data-testid': 'declarable', 'data-declarable': 'false' });
  const reasonBox = el('span', { class: 'h13-reason' });
  const sortButton = button('Sort', 'action-sort', sortHand, 'Sort your cards by suit');
  const arrangeButton = button('Auto-arrange', 'action-arrange', autoArrange, 'Let the solver group your cards');
  const dropButton = button('Drop', 'action-drop', drop, 'Leave this deal');
  const discardButton = button('Discard', 'action-discard', () => discardSelected(), 'Discard the selected card', 'btn-primary');
  const declareButton = button('Declare', 'action-declare', () => declareSelected(), 'Declare: put the selected card in the finish slot and show your groups', 'btn-gold');
  const newGroupButton = button('New group', 'action-new-group', newGroupSelected, 'Put the selected card in a group of its own');
  const showButton = button('Show my groups', 'action-show', showGroups, 'Submit your groups', 'btn-primary');
  const rejoinButton = button('Rejoin', 'action-rejoin', rejoin, 'Buy back into the pool');
  const toolsBox = el('div', { class: 'h13-tools' }, sortButton, arrangeButton, dropButton);
  const showTimer = el('span', { class: 'h13-show-timer', 'data-testid': 'show-timer' });
  const showText = el('span', { class: 'h13-show-text' });
  const showBanner = el('div', { class: 'h13-show-banner', 'data-testid': 'show-banner', hidden: true, role: 'status' },
    showText, showTimer, showButton);
  const outNote = el('div', { class: 'h13-out', hidden: true });
  // The auto-arrange hint (distance to a declaration, what to throw), while its groups stand.
  const hintLine = el('div', { class: 'h13-hint', 'data-testid': 'hint-line', hidden: true, role: 'status' });
  // How far each winning shape is, for games with more than one (Marriage); the server sends
  // none for the 13-card game, so this stays hidden there.
  const shapesLine = el('div', { class: 'h13-hint h13-shapes', 'data-testid': 'hint-shapes', hidden: true });
  const handHost = el('div', { class: 'h13-hand-host' });
  const liveNote = el('div', { class: 'visually-hidden sr-only', 'aria-live': 'polite' });
  const area = el('div', { class: 'h13-mine' },
    el('div', { class: 'h13-bar' },
      el('div', { class: 'h13-scoreline' }, scoreBox, declarableBox, reasonBox),
      toolsBox),
    showBanner,
    outNote,
    hintLine,
    shapesLine,
    handHost,
    el('div', { class: 'h13-actions' }, newGroupButton, discardButton, declareButton, rejoinButton),
    liveNote);
  // The declared groups go above your area, not on the felt: there they covered your own seat,
  // and a phone's felt has no room for them. Outside the area, so spectators see them too.
  ctx.mine.append(declared, area);
  // The game's own class on its parts, for its style sheet (css/<game>.css).
  const gameClasses = opt.className.split(/\s+/).filter(Boolean);
  for (const part of [centre, declared, area]) part.classList.add(...gameClasses);

  const hand = createHand(handHost, {
    cards,
    onMove: moveInHand,
    onSelect: (pos) => {
      st.selected = pos;
      renderMine();
    },
    onKey: (what, pos) => {
      st.selected = pos;
      if (what === 'discard') discardSelected();
      else declareSelected();
    },
    onDropOut: (pos, target) => {
      st.selected = pos;
      if (target.kind === 'open') discardSelected();
      else if (target.kind === 'finish') declareSelected();
    },
    outsideTarget: (x, y) => {
      const under = document.elementFromPoint(x, y);
      if (!under) return null;
      if (openPile.contains(under)) return { el: openPile, cls: 'h13-target', kind: 'open' };
      if (finishSlot.contains(under)) return { el: finishSlot, cls: 'h13-target', kind: 'finish' };
      return null;
    },
  });

  // Draw by click, by keyboard or by dragging a pile's top card onto the hand.
  closedPile.addEventListener('click', () => draw('closed'));
  openPile.addEventListener('click', () => draw('open'));
  for (const [pile, which] of [[closedPile, 'closed'], [openPile, 'open']]) {
    dragFromPile(pile, which);
  }

  function dragFromPile(pile, which) {
    draggable(pile, {
      source: () => which,
      canDrag: () => st.legal.has(`draw ${which}`) && !st.busy,
      targetAt: (x, y) => {
        const under = document.elementFromPoint(x, y);
        if (!under || !area.contains(under)) return null;
        const card = under.closest('[data-testid="hand-card"]');
        if (card) {
          return { el: card, cls: 'h13-insert-before', place: { group: Number(card.dataset.group), index: Number(card.dataset.index) } };
        }
        const group = under.closest('[data-testid="group"]');
        if (group) {
          const g = Number(group.dataset.group);
          return { el: group, cls: 'h13-over', place: { group: g, index: (st.groups[g] || []).length } };
        }
        return { el: hand.element, cls: 'h13-over', place: null };
      },
      drop: (from, target) => draw(from, target.place),
    });
  }

  function button(text, testid, onClick, title, kind = '') {
    const node = el('button', { class: `btn btn-small ${kind}`.trim(), type: 'button', 'data-testid': testid, title }, text);
    node.addEventListener('click', (event) => {
      if (node.getAttribute('aria-disabled') === 'true') {
        event.preventDefault();
        const why = node.dataset.why;
        if (why) ui.toast(why, 'info');
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
  const me = () => (st.view && st.message.you ? (st.view.seats || []).find((s) => s.seat === st.message.you) : null);
  const seatName = (seat) => {
    const info = st.message && st.message.info;
    const entry = info && info.seats ? info.seats[seat - 1] : null;
    if (seat === st.message.you) return 'You';
    return entry ? entry.name : `Seat ${seat}`;
  };
  const selectedCard = () => {
    if (!st.selected) return null;
    const group = st.groups[st.selected.group];
    return group ? group[st.selected.index] || null : null;
  };
  const myTurn = () => st.view && st.view.phase === 'play' && st.view.turn === st.message.you;
  const awaitedMe = () => (st.view ? (st.view.awaited || []).find((a) => a.seat === st.message.you) : null);
  const say = (text) => { liveNote.textContent = text; };

  async function act(action) {
    if (st.busy) return null;
    st.busy = true;
    cancelGroupSync();
    renderMine();
    try {
      return await ctx.act(action);
    } catch {
      return null; // the shell has explained the refusal already
    } finally {
      st.busy = false;
      if (!st.destroyed) renderMine();
    }
  }

  // ---- arrangement --------------------------------------------------------------------------
  function adoptHand(view) {
    const you = st.message.you;
    const gameNo = st.message.info ? st.message.info.game_no : 0;
    const key = you ? arrangementKey(opt.storage, ctx.table, gameNo, view.deal) : null;
    const handNow = view.hand || [];
    if (key !== st.key) {
      st.key = key;
      st.hint = null;
      st.selected = null;
      st.place = null;
      st.fresh = new Set();
      const saved = key ? loadArrangement(key) : null;
      st.untouched = saved && Array.isArray(saved.untouched) ? keep(saved.untouched, handNow) : [];
      let groups = saved ? saved.groups : null;
      if (!groups || !sameCards(flat(groups), handNow)) {
        if (view.arrangement && sameCards(flat(view.arrangement), handNow)) groups = view.arrangement;
        else if (!groups) groups = sortedGroups(handNow, isWild);
      }
      st.groups = reconcile(groups, handNow);
      st.hand = [...handNow];
      if (key) {
        forgetTable(opt.storage, ctx.table, key);
        persist();
      }
      return;
    }
    if (sameCards(st.hand, handNow)) return;
    // Cards arrived (a draw) or left (a discard, a declaration): keep the player's groups.
    const before = new Map();
    for (const card of st.hand) before.set(card, (before.get(card) || 0) + 1);
    const added = [];
    for (const card of handNow) {
      const n = before.get(card) || 0;
      if (n) before.set(card, n - 1);
      else added.push(card);
    }
    if (st.place) {
      st.groups = reconcile(st.groups, handNow, st.place);
      st.untouched = keep(st.untouched, handNow);
    } else {
      ({ groups: st.groups, untouched: st.untouched } = addDrawn(st.groups, handNow, st.untouched));
    }
    st.place = null;
    st.hand = [...handNow];
    st.selected = null;
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
    if (added.length) say(`You drew the ${added.map((c) => cards.cardLabel(c)).join(', ')}.`);
    persist();
  }

  function persist() {
    if (st.key) saveArrangement(st.key, st.groups, { untouched: st.untouched });
  }

  function setGroups(groups, { sync = true, focus = null } = {}) {
    st.groups = groups;
    st.fresh = new Set();
    persist();
    if (sync) scheduleGroupSync();
    renderMine({ focus });
    requestCheck();
  }

  function moveInHand(from, to, { keyboard }) {
    const { groups, at } = moveCard(st.groups, from, to);
    if (!at) return;
    const card = groups[at.group][at.index];
    st.untouched = without(st.untouched, [card]);
    st.selected = keyboard ? at : null;
    say(`${cards.cardLabel(card)} moved to group ${at.group + 1}, place ${at.index + 1}.`);
    setGroups(groups, { focus: keyboard ? at : null });
  }

  function sortHand() {
    if (!st.hand.length) return;
    st.selected = null;
    st.untouched = [];
    setGroups(sortedGroups(st.hand, isWild));
    say('Cards sorted by suit.');
  }

  async function autoArrange() {
    const profile = st.view ? opt.arrangeProfile(st.view) : null;
    if (!st.hand.length || !st.view || !st.view.cut || !profile) return;
    try {
      const answer = await ctx.api('POST', '/api/arrange', {
        hand: st.hand.join(' '),
        joker: st.view.cut,
        profile,
      });
      const advice = answer.hint;
      let groups;
      if (advice) {
        // The hint's groups: melds, near melds, pairs, loose cards and the discard, labelled.
        groups = reconcile(advice.groups.map((g) => [...g.cards]), st.hand);
        st.hint = {
          key: JSON.stringify(groups),
          labels: advice.groups.map((g) => g.label),
          summary: advice.summary,
          shapes: advice.shapes || [],
        };
      } else {
        groups = [...answer.groups];
        if (answer.leftover.length) groups.push([...answer.leftover]);
        // With a drawn card in hand the solver sets aside the card it would throw: reconcile
        // puts it in a group of its own at the end.
        groups = reconcile(groups, st.hand);
        st.hint = null;
      }
      st.selected = null;
      st.untouched = [];
      setGroups(groups);
      say(advice ? advice.summary : 'Cards arranged by the solver.');
    } catch (error) {
      ui.toast(ctx.explain ? ctx.explain(error.code, error.message) : String(error.message), 'error');
    }
  }

  function newGroupSelected() {
    if (!st.selected) return;
    moveInHand(st.selected, { group: st.groups.length, index: 0 }, { keyboard: true });
  }

  // The server keeps your last arrangement too (used if a show times out).
  function scheduleGroupSync() {
    cancelGroupSync();
    st.groupTimer = setTimeout(syncGroups, GROUP_SYNC_MS);
  }

  function cancelGroupSync() {
    if (st.groupTimer) clearTimeout(st.groupTimer);
    st.groupTimer = null;
  }

  function syncGroups() {
    st.groupTimer = null;
    if (st.destroyed || st.busy || !st.legal.has('group <groups>')) return;
    if (!st.view || !sameCards(flat(st.groups), st.view.hand || [])) return;
    const same = st.view.arrangement && JSON.stringify(st.view.arrangement) === JSON.stringify(st.groups);
    if (same) return;
    ctx.act(`group ${notation(st.groups)}`).catch(() => {});
  }

  // ---- live labels (POST /api/check) ----------------------------------------------------------
  let checkTimer = null;
  function requestCheck() {
    if (checkTimer) clearTimeout(checkTimer);
    checkTimer = setTimeout(runCheck, 60);
  }

  async function runCheck() {
    checkTimer = null;
    const view = st.view;
    if (!view || !view.cut || !st.groups.length) {
      st.check = null;
      st.labels = [];
      renderMine();
      return;
    }
    const body = { groups: st.groups, joker: view.cut, profile: opt.checkProfile(view) };
    const key = JSON.stringify(body);
    let answer = st.checkCache.get(key);
    if (!answer) {
      const seq = ++st.checkSeq;
      try {
        answer = await ctx.api('POST', '/api/check', body);
      } catch {
        return;
      }
      if (st.checkCache.size > 200) st.checkCache.clear();
      st.checkCache.set(key, answer);
      if (seq !== st.checkSeq || st.destroyed) return;
    }
    if (JSON.stringify(st.groups) !== JSON.stringify(body.groups)) return;
    st.check = answer;
    st.labels = answer.groups.map((group) => ({ kind: group.kind, points: group.points, counted: group.counted }));
    renderMine();
  }

  // ---- actions ------------------------------------------------------------------------------
  function drawRefusal(which) {
    if (!st.message.you) return 'You are watching this table.';
    const mine = me();
    if (mine && mine.status !== 'playing') return 'You are out of this deal.';
    if (!myTurn()) {
      return st.view.turn ? `Wait for your turn: ${seatName(st.view.turn)} is playing.` : 'Nobody may draw right now.';
    }
    if (st.view.drawn) return 'You have drawn this turn: now discard a card or declare.';
    if (which === 'open') return 'You may not take that joker from the open pile now.';
    return 'You cannot draw right now.';
  }

  async function draw(which, place = null) {
    if (!st.legal.has(`draw ${which}`) || st.busy) {
      if (!st.busy) ui.toast(drawRefusal(which), 'info');
      return;
    }
    st.place = place;
    const ack = await act(`draw ${which}`);
    if (ack) {
      persist();
    } else {
      st.place = null;
    }
  }

  function discardRefusal(card) {
    if (!st.message.you) return 'You are watching this table.';
    if (!card) return 'Pick a card first: click it, or drag it onto the open pile.';
    if (!myTurn()) return 'You can discard only on your turn.';
    if (!st.view.drawn) return 'Draw a card first, then discard.';
    return 'You cannot discard that card now.';
  }

  async function discardSelected() {
    const card = selectedCard();
    if (!card || !st.legal.has(`discard ${card}`) || st.busy) {
      if (!st.busy) ui.toast(discardRefusal(card), 'info');
      return;
    }
    if (isWild(card)) {
      // A wild joker fits any group, so throwing one away is nearly always a slip (under the
      // vengala rules the next player may even pick it up): ask on every path (button, D, drag).
      const ok = await ui.confirmDialog('Discard a joker?',
        `The ${cards.cardLabel(card)} is a wild joker: it can stand in for any card in a sequence or a set. Throw it away anyway?`,
        { yes: 'Discard the joker', no: 'Keep it' });
      if (!ok || st.destroyed || !st.legal.has(`discard ${card}`)) return;
    }
    st.selected = null;
    await act(`discard ${card}`);
  }

  async function check(groups) {
    const view = st.view;
    return ctx.api('POST', '/api/check', { groups, joker: view.cut, profile: opt.checkProfile(view) });
  }

  async function declareSelected() {
    const card = selectedCard();
    if (!card || !st.legal.has(`declare ${card}`) || st.busy) {
      if (!st.busy) {
        ui.toast(card ? discardRefusal(card).replace('discard', 'declare') : 'Pick the card to put in the finish slot first.', 'info');
      }
      return;
    }
    const sel = st.selected;
    const rest = st.groups
      .map((group, g) => (g === sel.group ? group.filter((_, i) => i !== sel.index) : group))
      .filter((group) => group.length);
    let verdict = null;
    try {
      verdict = await check(rest);
    } catch {
      verdict = null;
    }
    if (verdict && !verdict.declarable) {
      const ok = await ui.confirmDialog('Declare anyway?',
        `Your other cards are not a valid declaration (${verdict.reason}). A wrong declaration costs ${opt.wrongPoints} points and takes you out of the deal.`,
        { yes: 'Declare anyway', no: 'Keep playing' });
      if (!ok) return;
    }
    st.selected = null;
    await act(`declare ${card} | ${notation(rest)}`);
  }

  async function showGroups() {
    if (!st.legal.has('show <groups>') || st.busy) {
      if (!st.busy) ui.toast('There is nothing to show now.', 'info');
      return;
    }
    await act(`show ${notation(st.groups)}`);
  }

  function dropCost() {
    // The engine says what dropping would cost now (a first drop before your first draw).
    const cost = st.view && st.view.drop_cost;
    return typeof cost === 'number' ? cost : null;
  }

  async function drop() {
    if (!st.legal.has('drop') || st.busy) {
      if (!st.busy) {
        ui.toast(myTurn() && st.view.drawn ? 'You can drop only before you draw. Finish this turn first.'
          : myTurn() ? 'You cannot drop now.' : 'You can drop on your turn, before drawing.', 'info');
      }
      return;
    }
    const cost = dropCost();
    const pool = st.view.mode !== 'points';
    const price = cost === null ? '' : ` You score ${cost} points${pool ? '' : ` (${cost * pointValue()} chips)`}.`;
    const ok = await ui.confirmDialog('Drop this deal?', `You leave the deal now.${price}`, { yes: 'Drop', no: 'Keep playing' });
    if (ok) await act('drop');
  }

  function pointValue() {
    const stake = st.message && st.message.info ? st.message.info.stake || '' : '';
    const match = /(\d+)\s+chips?\s+a\s+point/.exec(stake);
    return match ? Number(match[1]) : 1;
  }

  async function rejoin() {
    if (!st.legal.has('rejoin')) {
      ui.toast('You can rejoin only between deals, while nobody left is too far ahead.', 'info');
      return;
    }
    const fee = st.view.pool ? st.view.pool.entry_fee : 0;
    const ok = await ui.confirmDialog('Rejoin the pool?', `You pay the entry of ${ui.formatChips(fee)} chips again and come back on the highest score + 1.`, { yes: 'Rejoin' });
    if (ok) await act('rejoin');
  }

  function showOpenCards() {
    const pile = st.view ? st.view.open || [] : [];
    const list = el('div', { class: 'h13-open-list' },
      pile.length ? [...pile].reverse().map((card, i) => el('div', { class: 'h13-open-item', 'data-testid': 'open-card', 'data-card': card },
        face(card, { small: true }),
        el('span', { class: 'muted small' }, i === 0 ? 'top' : String(i + 1))))
        : el('p', { class: 'muted' }, 'The open pile is empty.'));
    ui.openDialog({
      title: `Open cards (${pile.length})`,
      testid: 'open-cards-dialog',
      body: el('div', {}, el('p', { class: 'muted small' }, 'Newest first. Only the top card can be taken.'), list),
      actions: [{ label: 'Close', kind: 'primary', testid: 'open-cards-close' }],
    });
  }

  function isWild(card) {
    return Boolean(opt.isWild(card, st.view));
  }

  // A card face with the deal's marks: the wild ring and star, the game's badge.
  function face(card, extra = {}) {
    return markCard(cards.renderCard(card, { wild: isWild(card), ...extra }), card);
  }

  function markCard(node, card) {
    const badge = st.view ? opt.badge(card, st.view) : null;
    if (badge) addBadge(node, badge);
    return node;
  }

  // ---- drawing --------------------------------------------------------------------------------
  function renderCentre() {
    const view = st.view;
    const deal = Boolean(view && view.deal && view.cut);
    centre.classList.toggle('no-deal', !deal);
    // Three seats or more put seats at the felt's sides: a narrow screen gets a compact centre.
    const seatCount = st.message && st.message.info && st.message.info.seats ? st.message.info.seats.length : 2;
    centre.dataset.seats = String(seatCount);
    centre.classList.toggle('h13-many', seatCount >= 3);
    closedCount.textContent = view ? String(view.closed || 0) : '0';
    closedPile.setAttribute('aria-label', `Closed deck, ${view ? view.closed : 0} cards: draw its top card`);
    enable(closedPile, st.legal.has('draw closed') && !st.busy, view ? drawRefusal('closed') : '');
    closedPile.classList.toggle('can-draw', st.legal.has('draw closed'));
    closedPile.classList.toggle('empty', !view || !view.closed);
    // The cut card lies face up under the closed deck.
    cutSlot.replaceChildren();
    if (view && view.cut) {
      cutSlot.dataset.cut = view.cut;
      cutSlot.append(cards.renderCard(view.cut, { small: true, wild: true, label: `cut joker: ${cards.cardLabel(view.cut)}` }));
      cutText.textContent = opt.wildText(view);
    } else {
      cutSlot.dataset.cut = '';
      cutText.textContent = '';
    }
    const pile = view ? view.open || [] : [];
    const top = pile.length ? pile[pile.length - 1] : null;
    openPile.replaceChildren();
    openPile.dataset.top = top || '';
    if (pile.length > 1) openPile.append(el('span', { class: 'h13-under' }, face(pile[pile.length - 2], { small: false })));
    if (top) {
      const topCard = face(top);
      topCard.classList.add('h13-top');
      openPile.append(topCard);
      openPile.setAttribute('aria-label', `Open pile: ${cards.cardLabel(top)}${isWild(top) ? ' (wild)' : ''}; take it`);
    } else {
      openPile.append(el('span', { class: 'h13-empty-slot' }, 'empty'));
      openPile.setAttribute('aria-label', 'Open pile: empty');
    }
    enable(openPile, st.legal.has('draw open') && !st.busy, view ? drawRefusal('open') : '');
    openPile.classList.toggle('can-draw', st.legal.has('draw open'));
    openCardsButton.replaceChildren(
      el('span', { class: 'h13-oc-word' }, 'Open cards ('),
      el('span', { class: 'h13-oc-count' }, String(pile.length)),
      el('span', { class: 'h13-oc-word' }, ')'));
    openCardsButton.setAttribute('aria-label', `Open cards: see all ${pile.length} in the open pile`);
    openCardsButton.hidden = !view || !view.deal;
    // Finish slot: face down while a declaration is judged, face up once it is known.
    finishSlot.replaceChildren();
    const declarer = view && view.declarer ? view.declarer : view && view.phase === 'show' ? view.winner : null;
    const winnerSeat = view && view.winner ? (view.seats || []).find((s) => s.seat === view.winner) : null;
    const finishCard = (winnerSeat && winnerSeat.finish) || (view && view.finish) || null;
    if (finishCard && (view.phase === 'show' || view.phase === 'declare' || view.phase === 'between' || view.phase === 'over')) {
      finishSlot.append(cards.renderCard(finishCard, { small: false }));
    } else if (declarer) {
      finishSlot.append(cards.renderBack());
    } else {
      finishSlot.append(el('span', { class: 'h13-finish-word' }, 'Finish'));
    }
    finishSlot.classList.toggle('armed', [...st.legal].some((a) => a.startsWith('declare ')));
    renderTurnInfo();
    renderDeclared();
  }

  function renderTurnInfo() {
    const view = st.view;
    let text = '';
    if (!view || !view.deal) text = 'Waiting for the deal…';
    else if (view.phase === 'play') {
      if (myTurn()) text = view.drawn ? 'Your turn: discard a card, or declare' : 'Your turn: draw from the closed deck or the open pile';
      else text = `${seatName(view.turn)} to play`;
    } else if (view.phase === 'reshuffle') text = 'The open pile is being shuffled into a new closed deck…';
    else if (view.phase === 'declare') text = `${seatName(view.declarer)} is declaring…`;
    else if (view.phase === 'show') text = `${seatName(view.winner)} declared. Everyone shows their groups.`;
    else if (view.phase === 'between') text = 'Next deal in a moment…';
    else if (view.phase === 'over') text = view.winner ? `${seatName(view.winner)} won the game` : 'Game over';
    turnInfo.textContent = text;
    turnInfo.classList.toggle('yours', myTurn());
  }

  function renderDeclared() {
    const view = st.view;
    const showing = view && (view.phase === 'show') && view.winner;
    declared.hidden = !showing;
    declared.replaceChildren();
    if (!showing) return;
    const winner = (view.seats || []).find((s) => s.seat === view.winner);
    if (!winner || !winner.shown) return;
    declared.append(el('div', { class: 'h13-declared-title' }, `${seatName(view.winner)} declared:`),
      el('div', { class: 'h13-mini-groups' }, winner.shown.map((group) => el('span', { class: 'h13-mini-group' },
        group.map((card) => face(card, { small: true }))))));
  }

  // "3 tunnelas: 4 cards away", one entry a shape, the nearest marked (ties: each of them).
  function renderShapes(shapes) {
    shapesLine.hidden = !shapes.length;
    if (!shapes.length) {
      shapesLine.replaceChildren();
      return;
    }
    const nearest = Math.min(...shapes.map((shape) => shape.cards));
    const away = (cards) => (cards === 0 ? 'ready to declare' : cards === 1 ? '1 card away' : `${cards} cards away`);
    shapesLine.replaceChildren(
      el('span', { class: 'h13-shapes-title' }, 'Ways to win:'),
      ...shapes.map((shape) => el('span', {
        class: `h13-shape${shape.cards === nearest ? ' nearest' : ''}`,
        'data-testid': 'hint-shape',
        'data-shape': shape.name,
        'data-cards': String(shape.cards),
      }, `${shape.label}: ${away(shape.cards)}`)));
  }

  function renderMine({ focus = null } = {}) {
    const view = st.view;
    const you = st.message ? st.message.you : null;
    area.hidden = !you;
    if (!you) return;
    if (!view) {
      // Seated before the first deal: no cards yet, so nothing here can be used.
      for (const node of [dropButton, discardButton, declareButton, newGroupButton, showButton, sortButton, arrangeButton]) {
        enable(node, false, 'Wait for the deal: your cards arrive with it.');
      }
      for (const node of [dropButton, discardButton, declareButton, newGroupButton, rejoinButton, toolsBox, showBanner, outNote]) node.hidden = true;
      enable(rejoinButton, false, '');
      stopShowTicker();
      return;
    }
    const mine = me();
    const inDeal = Boolean(mine && ['playing', 'showing'].includes(mine.status)) && st.hand.length > 0;
    const card = selectedCard();
    const waiting = !st.check || JSON.stringify(st.check.groups.map((g) => g.cards)) !== JSON.stringify(st.groups);
    // Labels: only when they belong to these very groups.
    // While the auto-arrange hint's groups stand, they carry its words ("Near run (needs 7♥)").
    const hinted = Boolean(st.hint) && JSON.stringify(st.groups) === st.hint.key;
    const labels = st.groups.map((group, g) => {
      const label = st.labels[g];
      const text = hinted ? st.hint.labels[g] : undefined;
      if (!label || waiting) return text ? { text } : {};
      return text ? { ...label, text } : label;
    });
    hintLine.hidden = !hinted || !st.hand.length;
    hintLine.textContent = hinted ? st.hint.summary : '';
    renderShapes(hinted && st.hand.length ? st.hint.shapes : []);
    const lastGroup = st.groups.length - 1;
    hand.render(st.groups, {
      labels,
      newGroup: isNewGroup(st.groups[lastGroup], st.untouched) ? lastGroup : -1,
      selected: st.selected,
      isWild,
      badge: (c) => opt.badge(c, view),
      fresh: st.fresh,
      disabled: !inDeal,
      locked: false,
      focus,
    });
    handHost.hidden = !st.hand.length;
    // Score line.
    if (st.check && !waiting && st.hand.length) {
      scoreBox.textContent = `Score ${st.check.score}`;
      scoreBox.dataset.score = String(st.check.score);
      scoreBox.title = 'points your cards would count if the deal ended now';
      declarableBox.textContent = st.check.declarable ? 'Ready to declare' : '';
      declarableBox.dataset.declarable = String(Boolean(st.check.declarable));
      declarableBox.hidden = !st.check.declarable;
      reasonBox.textContent = st.check.declarable ? '' : st.check.reason || '';
    } else {
      scoreBox.textContent = st.hand.length ? 'Score …' : '';
      scoreBox.dataset.score = '';
      declarableBox.hidden = true;
      declarableBox.dataset.declarable = 'false';
      reasonBox.textContent = '';
    }
    // Buttons.
    const cost = dropCost();
    dropButton.textContent = cost === null ? 'Drop' : `Drop · ${cost}`;
    dropButton.dataset.cost = cost === null ? '' : String(cost);
    if (cost !== null) dropButton.title = `Leave this deal for ${cost} points`;
    enable(dropButton, st.legal.has('drop') && !st.busy,
      myTurn() && view.drawn ? 'You can drop only before you draw. Finish this turn first.' : 'You can drop on your turn, before drawing.');
    toolsBox.hidden = !st.hand.length;
    enable(sortButton, st.hand.length > 0, 'You have no cards to sort.');
    enable(arrangeButton, st.hand.length > 0 && Boolean(view.cut), 'You have no cards to arrange.');
    arrangeButton.hidden = !opt.arrangeProfile(view);
    enable(discardButton, Boolean(card) && st.legal.has(`discard ${card}`) && !st.busy, discardRefusal(card));
    enable(declareButton, Boolean(card) && st.legal.has(`declare ${card}`) && !st.busy,
      card ? discardRefusal(card).replace('discard', 'declare') : 'Pick the card to put in the finish slot first.');
    enable(newGroupButton, Boolean(card), 'Pick a card first.');
    discardButton.textContent = card && st.legal.has(`discard ${card}`) ? `Discard ${shortCard(card)}` : 'Discard';
    const turnActions = myTurn() && view.drawn;
    dropButton.hidden = !inDeal || view.phase !== 'play';
    discardButton.hidden = !inDeal || view.phase !== 'play';
    declareButton.hidden = !inDeal || view.phase !== 'play';
    newGroupButton.hidden = !inDeal;
    discardButton.classList.toggle('pulse', turnActions && Boolean(card));
    // Only pools can be bought back into, and only while the rules keep rejoining open.
    rejoinButton.hidden = !(view.pool && st.legal.has('rejoin'));
    enable(rejoinButton, st.legal.has('rejoin') && !st.busy, '');
    // The declare / show phase.
    const wait = awaitedMe();
    const showing = wait && (wait.kind === 'show' || wait.kind === 'declare');
    showBanner.hidden = !showing;
    if (showing) {
      showText.textContent = wait.kind === 'declare'
        ? `Confirm your declaration: arrange your ${opt.handSize} cards and show them.`
        : `${seatName(view.winner)} declared. Arrange your cards to count as few points as you can, then show them.`;
      showButton.textContent = wait.kind === 'declare' ? 'Confirm declaration' : 'Show my groups';
      enable(showButton, st.legal.has('show <groups>') && !st.busy, 'There is nothing to show now.');
      startShowTicker(wait.deadline);
    } else {
      stopShowTicker();
    }
    // Out of the deal: say why.
    let out = '';
    if (mine && view.deal && ['dropped', 'wrong', 'removed', 'eliminated', 'won', 'shown'].includes(mine.status)) {
      out = {
        dropped: `You dropped (${mine.score} points). Wait for the next deal.`,
        wrong: `Wrong declaration: ${opt.wrongPoints} points. Wait for the next deal.`,
        removed: 'You missed three turns in a row and left the deal.',
        eliminated: 'You are out of this pool.',
        won: view.phase === 'show' ? 'You declared! The others are showing their cards.' : '',
        shown: view.phase === 'show' ? 'Your groups are in. Waiting for the others.' : '',
      }[mine.status] || '';
    }
    outNote.textContent = out;
    outNote.hidden = !out;
  }

  function shortCard(card) {
    if (card === 'JK') return 'JK';
    const suit = { S: '♠', H: '♥', D: '♦', C: '♣' }[card.slice(-1)];
    return card.slice(0, -1) + suit;
  }

  function startShowTicker(deadline) {
    const tickShow = () => {
      const left = Math.max(0, deadline - ctx.now());
      const s = Math.ceil(left / 1000);
      showTimer.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
      showTimer.classList.toggle('hurry', left < 8000);
    };
    tickShow();
    if (st.showTicker) clearInterval(st.showTicker);
    st.showTicker = setInterval(tickShow, 250);
  }

  function stopShowTicker() {
    if (st.showTicker) clearInterval(st.showTicker);
    st.showTicker = null;
  }

  // ---- seats ------------------------------------------------------------------------------------
  function renderSeats() {
    const view = st.view;
    for (const entry of (view && view.seats) || []) {
      const slot = ctx.seatSlot(entry.seat);
      if (!slot) continue;
      let mark = slot.querySelector('.h13-seat-mark');
      if (!mark) {
        mark = el('span', { class: 'h13-seat-mark', 'data-testid': `seat-mark-${entry.seat}` });
        slot.append(mark);
      }
      const words = {
        dropped: entry.how === 'middle drop' ? 'middle drop' : 'dropped',
        wrong: 'wrong show',
        removed: 'removed',
        eliminated: 'out',
        won: 'winner',
        showing: 'showing…',
        shown: 'shown',
      }[entry.status] || '';
      let text = words;
      if (entry.score !== null && entry.score !== undefined && ['dropped', 'wrong', 'removed', 'shown'].includes(entry.status)) {
        text += ` +${entry.score}`;
      }
      const pool = view.pool && typeof entry.total === 'number';
      if (pool) {
        const total = `${entry.total}/${view.pool.elimination}`;
        text = text ? `${text} · ${total}` : total;
      }
      mark.title = pool ? `pool points: ${entry.total}; ${view.pool.elimination} or more is out` : '';
      mark.textContent = text;
      mark.dataset.status = entry.status;
      mark.dataset.total = view.pool && typeof entry.total === 'number' ? String(entry.total) : '';
      mark.hidden = !text;
    }
  }

  // ---- the result -------------------------------------------------------------------------------
  function renderResultPanel() {
    const view = st.view;
    const history = (view && view.history) || [];
    const last = history[history.length - 1];
    const ended = view && (view.phase === 'between' || view.phase === 'over');
    if (last && ended) {
      const data = resultData(st.message, last);
      if (!st.dismissed.has(data.key) && (!st.result || st.result.data.key !== data.key || st.result.data.over !== data.over)) {
        showResult(data);
      }
    } else if (st.result && !st.result.pinned && view && view.deal && !ended) {
      // A new deal is under way: let the result linger a little, then clear the felt; at once
      // when you need the felt (your turn to draw).
      const shown = performance.now() - st.result.shownAt;
      if (st.result.data.deal !== view.deal || st.result.data.key.split('.')[1] !== String(st.message.info.game_no)) {
        if (shown >= RESULT_MIN_MS || myTurn()) hideResult(false);
        else if (!st.result.timer) st.result.timer = setTimeout(() => hideResult(false), RESULT_MIN_MS - shown);
      }
    }
    renderLastResultButton();
  }

  function lastSummary() {
    const history = (st.view && st.view.history) || [];
    return history.length ? history[history.length - 1] : null;
  }

  function renderLastResultButton() {
    const last = lastSummary();
    lastResultButton.hidden = !last || Boolean(st.result);
    if (last) lastResultButton.textContent = `Deal ${last.deal} result`;
  }

  // The last deal's result again (it stays until closed).
  function showLastResult() {
    const last = lastSummary();
    if (!last || !st.message) return;
    const data = resultData(st.message, last);
    st.dismissed.delete(data.key);
    showResult(data, { pinned: true });
    const close = st.result && st.result.element.querySelector('[data-testid="result-close"]');
    if (close) close.focus();
  }

  function showResult(data, { pinned = false } = {}) {
    hideResult(false);
    const element = renderResult(data, {
      cards, ui, onClose: () => hideResult(true), isWild, mark: markCard, columns: opt.resultColumns,
    });
    element.classList.add(...gameClasses);
    ctx.root.append(element);
    st.result = { data, element, shownAt: performance.now(), timer: null, pinned };
    renderLastResultButton();
  }

  function hideResult(dismissed) {
    if (!st.result) return;
    if (st.result.timer) clearTimeout(st.result.timer);
    if (dismissed) st.dismissed.add(st.result.data.key);
    const hadFocus = st.result.element.contains(document.activeElement);
    st.result.element.remove();
    st.result = null;
    if (!st.destroyed) {
      renderLastResultButton();
      if (hadFocus && dismissed && !lastResultButton.hidden) lastResultButton.focus();
    }
  }

  // ---- update -----------------------------------------------------------------------------------
  function update(message) {
    if (st.destroyed) return;
    st.message = message;
    const view = message.view || null;
    st.view = view;
    st.legal = new Set(message.legal || []);
    if (view && message.you) {
      adoptHand(view);
    } else {
      st.groups = [];
      st.hand = [];
    }
    renderCentre();
    renderMine();
    renderSeats();
    renderResultPanel();
    requestCheck();
  }

  // What leaving the table now costs, in words (the shell asks before it lets you go); null
  // when you are not in the deal any more. The server plays a drop at your turn (after sending
  // a drawn card back), or shows your cards as arranged when a declaration asks for them.
  function leaveNote() {
    const view = st.view;
    const mine = me();
    if (!view || !mine || !['playing', 'showing'].includes(mine.status)) return null;
    if (view.phase === 'show' || view.phase === 'declare') {
      return 'Your cards are shown as they are arranged now, and scored.';
    }
    const cost = dropCost();
    const points = cost === null ? 'a drop' : `a drop: ${cost} points`;
    const back = myTurn() && view.drawn ? 'The card you drew goes back to the open pile, then you' : 'You';
    if (view.mode !== 'points') {
      return `${back} drop this deal (${cost === null ? 'its drop points' : `${cost} points`} to your pool score) and every deal after it until the pool ends for you; your entry fee stays in the pool.`;
    }
    const chips = cost === null ? '' : ` (${ui.formatChips(cost * pointValue())} chips)`;
    return `${back} leave this deal with ${points}${chips}, at your turn.`;
  }

  return {
    update,
    leaveNote,
    destroy() {
      st.destroyed = true;
      cancelGroupSync();
      stopShowTicker();
      if (checkTimer) clearTimeout(checkTimer);
      hideResult(false);
      hand.destroy();
      centre.remove();
      declared.remove();
      area.remove();
      for (const mark of ctx.root.querySelectorAll('.h13-seat-mark')) mark.remove();
    },
  };
}
