// Hand history (#/history), one game's page (#/hand/<id>): a replay viewer that steps through
// the game as you saw it (GET /api/hands/<id>/replay: the engine's view for your seat at every
// step, so the rules stay on the server) and the provably-fair panel, whose Verify button
// recomputes the deck in the browser (js/fair.js) and compares it with the cards you were dealt,
// and recomputes every refill of the closed deck from the same seeds.
//
//   renderHistory(root, ctx) -> {destroy()}      renderHand(root, ctx, handId) -> {destroy()}
//   ctx: {api, cards, ui, explain, navigate, me}
//
// Test hooks (data-testid):
//   history, history-empty, history-row-<id> (data-game), history-game-<id>, history-date-<id>,
//   history-name-<id> ("Table 12 · game 3", js/names.js), hand-subtitle,
//   history-result-<id>, history-open-<id>
//   hand-page, hand-title, back-to-history, replay, replay-board, replay-step (text "n / N"),
//   replay-action, replay-events, replay-first, replay-prev, replay-play, replay-next,
//   replay-last, replay-slider, replay-hand, replay-seat-<n>, replay-centre, replay-result,
//   fair-panel, fair-deal-<k>, fair-commitment, fair-server-seed, fair-client-seed, fair-nonce,
//   fair-shoe, fair-refills (the refills of a deal, when it had any), fair-verify,
//   fair-result (data-ok="true" | "false"), fair-refill-result (what Verify found about the
//   refills), fair-deck
// Keyboard on the replay: Left/Right step, Home/End first/last, Space play/pause.
//
// Nothing here names a game: each game's name comes from GET /api/games and what differs per
// game from its view module (js/games/registry.js; docs/client.md, "Game view modules"): the
// outcome in words (`outcome`), the replay's seats, centre and result line (`replay`), and the
// deal order Verify checks the dealt cards against (`dealtCards`). A game without them gets the
// defaults below (points and chips; the piles of the rummy family; the commitment only).

import * as fair from './fair.js';
import { gameName, recordName } from './names.js';
import { gameLabel, gameView } from './games/registry.js';

// The game's view module, or null when it has none or it cannot be loaded (the defaults then).
async function viewOf(game) {
  try {
    return await gameView(game);
  } catch (error) {
    console.error('game view', error);
    return null;
  }
}
const PLAY_MS = 900;

function parseTime(text) {
  if (!text) return null;
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

function formatDate(text) {
  const date = parseTime(text);
  if (!date) return '';
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

// A player's outcome of a finished record, in words: {text, tone}; the game's view module says
// (its `outcome`), else the points and the chips its seat won or lost.
export function outcomeOf(record, seat, module = null) {
  const result = record && record.result;
  if (!result) return { text: 'unfinished', tone: 'muted' };
  const own = module && module.outcome ? module.outcome(record, seat) : null;
  if (own) return own;
  const won = (result.winners || []).includes(seat);
  const points = (result.points || {})[String(seat)];
  let chips = 0;
  for (const posting of result.postings || []) if (posting.account === `seat:${seat}`) chips += posting.amount;
  const parts = [won ? 'Won' : 'Lost'];
  if (points !== undefined) parts.push(`${points} pts`);
  if (chips) parts.push(`${chips > 0 ? '+' : '−'}${Math.abs(chips).toLocaleString('en-US')} chips`);
  return { text: parts.join(' · '), tone: won ? 'up' : 'down' };
}

// ---- the list -------------------------------------------------------------------------------
export function renderHistory(root, ctx) {
  const { el, clear } = ctx.ui;
  let alive = true;
  const body = el('tbody');
  const table = el('table', { class: 'history-table' },
    el('caption', { class: 'sr-only' }, 'Your last games'),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Game'), el('th', { scope: 'col' }, 'Finished'),
      el('th', { scope: 'col' }, 'Table · game'), el('th', { scope: 'col' }, 'Result'), el('th', { scope: 'col' }, el('span', { class: 'sr-only' }, 'Replay')))),
    body);
  const empty = el('div', { class: 'history-empty', 'data-testid': 'history-empty', hidden: true },
    el('p', {}, 'No finished games yet. Play one and it shows up here, with its replay and its fair-deal check.'),
    el('a', { class: 'btn btn-primary', href: '#/' }, 'Find a table'));
  const status = el('p', { class: 'loading' }, 'Loading your games…');
  const page = el('section', { class: 'history', 'data-testid': 'history' },
    el('div', { class: 'history-head' },
      el('h1', {}, 'Your last games'),
      el('p', { class: 'muted' }, 'Open a game to replay it step by step and check that its deal was fair.')),
    status, empty, el('div', { class: 'history-scroll' }, table));
  clear(root).append(page);
  table.hidden = true;

  (async () => {
    let hands;
    try {
      hands = (await ctx.api('GET', '/api/hands?limit=20')).hands || [];
    } catch (error) {
      if (!alive) return;
      status.textContent = ctx.explain(error.code, error.message);
      status.className = 'form-error';
      return;
    }
    const labels = new Map(await Promise.all([...new Set(hands.map((hand) => hand.game))].map(async (game) => [game, await gameLabel(game)])));
    if (!alive) return;
    status.remove();
    if (!hands.length) {
      empty.hidden = false;
      return;
    }
    table.hidden = false;
    for (const hand of hands) {
      const result = el('td', { class: 'history-result muted', 'data-testid': `history-result-${hand.id}` }, '…');
      const open = () => ctx.navigate(`#/hand/${hand.id}`);
      const row = el('tr', { class: 'history-row', 'data-testid': `history-row-${hand.id}`, 'data-game': hand.game },
        el('td', { 'data-testid': `history-game-${hand.id}` },
          el('span', { class: `game-dot game-${hand.game}`, 'aria-hidden': 'true' }), labels.get(hand.game) || hand.game),
        el('td', { 'data-testid': `history-date-${hand.id}` }, el('time', { datetime: hand.finished_at }, formatDate(hand.finished_at))),
        el('td', { 'data-testid': `history-name-${hand.id}` }, gameName(hand.table, hand.game_no),
          el('span', { class: 'muted small history-record' }, ` · ${recordName(hand.id)} · seat ${hand.seat}`)),
        result,
        el('td', { class: 'history-open-cell' }, el('a', { class: 'btn btn-small', href: `#/hand/${hand.id}`, 'data-testid': `history-open-${hand.id}`, 'aria-label': `Replay ${gameName(hand.table, hand.game_no)} (${recordName(hand.id)})` }, 'Replay ▸')));
      row.addEventListener('click', (event) => {
        if (!event.target.closest('a')) open();
      });
      body.append(row);
    }
    // The result of each game comes from its record (a few small requests, newest first).
    for (const hand of hands) {
      if (!alive) return;
      try {
        const { record } = await ctx.api('GET', `/api/hands/${hand.id}`);
        const outcome = outcomeOf(record, hand.seat, await viewOf(record.game));
        const cell = body.querySelector(`[data-testid="history-result-${hand.id}"]`);
        if (cell) {
          cell.textContent = outcome.text;
          cell.className = `history-result ${outcome.tone}`;
        }
      } catch {
        // leave the placeholder
      }
    }
  })();

  return { destroy() { alive = false; } };
}

// ---- one game: replay + fair panel ---------------------------------------------------------
export function renderHand(root, ctx, handId) {
  const { el, clear } = ctx.ui;
  const state = { alive: true, replay: null, record: null, index: 0, timer: null };
  const title = el('h1', { 'data-testid': 'hand-title' }, 'Replay');
  const subtitle = el('p', { class: 'muted', 'data-testid': 'hand-subtitle' });
  const main = el('div', { class: 'hand-main' }, el('p', { class: 'loading' }, 'Loading the game…'));
  const page = el('section', { class: 'hand-page', 'data-testid': 'hand-page' },
    el('div', { class: 'hand-head' },
      el('a', { class: 'btn btn-ghost btn-small', href: '#/history', 'data-testid': 'back-to-history' }, '‹ History'),
      el('div', {}, title, subtitle)),
    main);
  clear(root).append(page);

  (async () => {
    try {
      const [replay, hand] = await Promise.all([
        ctx.api('GET', `/api/hands/${handId}/replay`),
        ctx.api('GET', `/api/hands/${handId}`),
      ]);
      const [module, label] = await Promise.all([viewOf(replay.game), gameLabel(replay.game)]);
      if (!state.alive) return;
      state.replay = replay;
      state.record = hand.record;
      state.module = module;
      state.label = label;
      build();
    } catch (error) {
      if (!state.alive) return;
      clear(main).append(el('div', { class: 'panel notice' },
        el('p', {}, ctx.explain(error.code, error.message)),
        el('a', { class: 'btn', href: '#/history' }, 'Back to your games')));
    }
  })();

  function build() {
    const { replay, record } = state;
    const steps = replay.steps;
    const who = seatNamer(replay);
    const where = record.table || {};
    title.textContent = `${state.label} · ${gameName(where.id, where.game_no)}`;
    const outcome = outcomeOf(record, replay.seat, state.module);
    subtitle.textContent = `${recordName(handId)} · you played seat ${replay.seat} · ${steps.length - 1} recorded actions · ${outcome.text}`;

    // replay viewer
    const board = el('div', { class: `replay-board replay-${replay.game}`, 'data-testid': 'replay-board' });
    const stepText = el('span', { class: 'replay-step', 'data-testid': 'replay-step', 'aria-live': 'polite' });
    const actionText = el('div', { class: 'replay-action', 'data-testid': 'replay-action' });
    const eventsText = el('div', { class: 'replay-events', 'data-testid': 'replay-events' });
    const slider = el('input', {
      type: 'range', min: '0', max: String(steps.length - 1), value: '0', class: 'replay-slider',
      'data-testid': 'replay-slider', 'aria-label': 'step of the replay',
      oninput: (event) => { stop(); show(Number(event.target.value)); },
    });
    const control = (testid, label, text, onclick) => el('button', { class: 'btn btn-small replay-btn', type: 'button', 'data-testid': testid, 'aria-label': label, title: label, onclick }, text);
    const first = control('replay-first', 'first step', icon('first'), () => { stop(); show(0); });
    const prev = control('replay-prev', 'previous step', icon('prev'), () => { stop(); show(state.index - 1); });
    const play = control('replay-play', 'play', '▶ Play', () => toggle());
    const next = control('replay-next', 'next step', icon('next'), () => { stop(); show(state.index + 1); });
    const last = control('replay-last', 'last step', icon('last'), () => { stop(); show(steps.length - 1); });
    const controls = el('div', { class: 'replay-controls', role: 'toolbar', 'aria-label': 'replay controls' },
      first, prev, play, next, last, stepText);
    const viewer = el('section', { class: 'panel replay', 'data-testid': 'replay', tabindex: '0', 'aria-label': 'replay viewer; arrow keys step through the game' },
      el('h2', {}, 'Replay'),
      el('div', { class: 'replay-caption' }, actionText, eventsText),
      board, slider, controls);
    viewer.addEventListener('keydown', (event) => {
      if (event.target === slider) return;
      const keys = { ArrowLeft: () => show(state.index - 1), ArrowRight: () => show(state.index + 1), Home: () => show(0), End: () => show(steps.length - 1) };
      if (keys[event.key]) {
        event.preventDefault();
        stop();
        keys[event.key]();
      } else if (event.key === ' ' && event.target === viewer) {
        event.preventDefault();
        toggle();
      }
    });

    const fairPanel = buildFairPanel();
    clear(main).append(el('div', { class: 'hand-grid' }, viewer, fairPanel));

    function show(index) {
      state.index = Math.max(0, Math.min(steps.length - 1, index));
      const step = steps[state.index];
      slider.value = String(state.index);
      stepText.textContent = `${state.index} / ${steps.length - 1}`;
      actionText.textContent = describeAction(step, who, steps[state.index - 1]);
      eventsText.textContent = describeEvents(step, who, replay.seat);
      first.disabled = prev.disabled = state.index === 0;
      next.disabled = last.disabled = state.index === steps.length - 1;
      drawBoard(board, step.view, replay, ctx, state.module);
      if (state.index === steps.length - 1) stop();
    }

    function toggle() {
      if (state.timer) {
        stop();
        return;
      }
      if (state.index >= steps.length - 1) show(0);
      play.textContent = '❚❚ Pause';
      play.setAttribute('aria-label', 'pause');
      play.classList.add('playing');
      state.timer = setInterval(() => {
        if (state.index >= steps.length - 1) stop();
        else show(state.index + 1);
      }, PLAY_MS);
    }

    function stop() {
      if (state.timer) clearInterval(state.timer);
      state.timer = null;
      play.textContent = '▶ Play';
      play.setAttribute('aria-label', 'play');
      play.classList.remove('playing');
    }

    state.stop = stop;
    show(0);
  }

  function buildFairPanel() {
    const { record, replay } = state;
    const deals = (record.actions || []).map((entry, i) => ({ entry, action: i + 1 }))
      .filter(({ entry }) => entry.deal && entry.deal.server_seed !== undefined);
    const panel = el('section', { class: 'panel fair-panel', 'data-testid': 'fair-panel', 'aria-labelledby': 'fair-heading' },
      el('h2', { id: 'fair-heading' }, 'Provably fair'),
      el('p', { class: 'muted small' }, 'The server committed to its secret seed before the deal and revealed it after. Verify hashes the seed, rebuilds the shuffle in your browser and checks the cards you were dealt, and every reshuffle of the open pile into a new closed deck.'));
    if (!deals.length) {
      panel.append(el('p', {}, 'This game has no seeded deal to check.'));
      return panel;
    }
    const field = (label, value, testid) => el('div', { class: 'fair-field' },
      el('dt', {}, label), el('dd', { class: 'mono', 'data-testid': testid }, String(value)));
    // The refills of the closed deck that follow each seeded deal (until the next deal).
    const actions = record.actions || [];
    const refillSteps = deals.map(({ action }, k) => {
      const end = k + 1 < deals.length ? deals[k + 1].action : actions.length + 1;
      const steps = [];
      for (let a = action + 1; a < end; a += 1) {
        const deal = actions[a - 1].deal;
        if (deal && deal.refill !== undefined) steps.push(a);
      }
      return steps;
    });
    deals.forEach(({ entry, action }, k) => {
      const deal = entry.deal;
      const refilled = refillSteps[k];
      panel.append(el('div', { class: 'fair-deal', 'data-testid': `fair-deal-${k + 1}` },
        deals.length > 1 ? el('h3', {}, `Deal ${k + 1} (step ${action})`) : null,
        el('dl', { class: 'fair-fields' },
          field('Commitment', deal.commitment, 'fair-commitment'),
          field('Server seed', deal.server_seed, 'fair-server-seed'),
          field('Client seed', deal.client_seed, 'fair-client-seed'),
          field('Nonce', deal.nonce, 'fair-nonce'),
          field('Shoe', `${deal.decks} deck${deal.decks === 1 ? '' : 's'}, ${deal.jokers} joker${deal.jokers === 1 ? '' : 's'} per deck`, 'fair-shoe'),
          refilled.length ? field('Refills', `${refilled.length} (step${refilled.length === 1 ? '' : 's'} ${refilled.join(', ')}), from the same seeds`, 'fair-refills') : null)));
    });
    const result = el('div', { class: 'fair-result', 'data-testid': 'fair-result', role: 'status', 'aria-live': 'polite', hidden: true });
    const deckBox = el('details', { class: 'fair-deck', 'data-testid': 'fair-deck', hidden: true });
    const verify = el('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'fair-verify' }, 'Verify');
    verify.addEventListener('click', async () => {
      verify.disabled = true;
      verify.textContent = 'Verifying…';
      try {
        const dealtCards = state.module && state.module.dealtCards ? state.module.dealtCards : null;
        const outcome = await fair.verifyRecord(record, replay.steps, replay.seat, dealtCards);
        showOutcome(outcome);
      } catch (error) {
        showOutcome({ ok: false, deals: [{ ok: false, problems: [String(error && error.message ? error.message : error)] }] });
      } finally {
        verify.disabled = false;
        verify.textContent = 'Verify again';
      }
    });

    function showOutcome(outcome) {
      result.hidden = false;
      clear(result);
      result.dataset.ok = outcome.ok ? 'true' : 'false';
      result.className = `fair-result ${outcome.ok ? 'ok' : 'bad'}`;
      const refills = outcome.refills || [];
      if (outcome.ok) {
        const handChecked = outcome.deals.some((d) => d.handChecked);
        result.append(el('strong', {}, '✔ Verified'),
          el('p', {}, `The revealed seed hashes to the commitment${handChecked ? ', and the deck it shuffles deals exactly the cards you received' : ''}.`));
      } else {
        const problems = [...outcome.deals, ...refills].flatMap((d) => d.problems || []);
        result.append(el('strong', {}, '✘ Mismatch'),
          el('ul', {}, ...(problems.length ? problems : ['no seeded deal was found']).map((p) => el('li', {}, p))));
      }
      const words = refillWords(refills);
      if (words) result.append(el('p', { 'data-testid': 'fair-refill-result' }, words));
      clear(deckBox);
      const withDeck = outcome.deals.filter((d) => d.deck);
      const refillDecks = refills.filter((r) => r.deck);
      deckBox.hidden = !withDeck.length;
      if (withDeck.length) {
        deckBox.append(el('summary', {}, 'The recomputed deck, top card first'));
        const many = withDeck.length + refillDecks.length > 1;
        for (const d of withDeck) {
          const row = el('div', { class: 'fair-deck-cards' }, d.deck.map((c) => ctx.cards.renderCard(c, { small: true })));
          deckBox.append(many ? el('p', { class: 'small muted' }, `Step ${d.action}`) : null, row);
        }
        for (const r of refillDecks) {
          // A refill names physical copies (7H#2); the picture is the card.
          const row = el('div', { class: 'fair-deck-cards' }, r.deck.map((c) => ctx.cards.renderCard(c.split('#')[0], { small: true })));
          deckBox.append(el('p', { class: 'small muted' }, `Step ${r.action}: refill ${r.refill}, the new closed deck`), row);
        }
      }
    }
    panel.append(el('div', { class: 'fair-actions' }, verify), result, deckBox);
    return panel;
  }

  return {
    destroy() {
      state.alive = false;
      if (state.stop) state.stop();
    },
  };
}

// What Verify found about the refills of the closed deck, in words ('' when there were none).
function refillWords(refills) {
  if (!refills.length) return '';
  const checked = refills.filter((r) => r.checked);
  const unchecked = refills.filter((r) => !r.checked);
  const parts = [];
  if (checked.length) {
    const times = { 1: 'once', 2: 'twice' }[checked.length] || `${checked.length} times`;
    if (checked.every((r) => r.ok)) {
      parts.push(`The open pile was shuffled into a new closed deck ${times}; each new closed deck is exactly the order the same committed seed gives those cards, so the server could not choose it.`);
    } else {
      const bad = checked.filter((r) => !r.ok).map((r) => r.action);
      parts.push(`The open pile was shuffled into a new closed deck ${times}; the new deck at step${bad.length === 1 ? '' : 's'} ${bad.join(', ')} is not the order the committed seed gives.`);
    }
  }
  if (unchecked.length) {
    const steps = unchecked.map((r) => r.action).join(', ');
    parts.push(`The reshuffle at step${unchecked.length === 1 ? '' : 's'} ${steps} cannot be checked: ${unchecked[0].note}.`);
  }
  return parts.join(' ');
}

// Small SVG icons for the replay buttons (no icon font needed).
const ICONS = {
  first: 'M4 3h2v10H4zM14 3v10L7 8z',
  prev: 'M12 3v10L5 8z',
  next: 'M4 3v10l7-5z',
  last: 'M10 3h2v10h-2zM2 3v10l7-5z',
};

function icon(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '14');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICONS[name]);
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

// ---- words for a step ----------------------------------------------------------------------
// How the replay names a seat: you, the player who sat there (from the replay's players), or the
// house (seat 0 deals).
function seatNamer(replay) {
  const names = new Map((replay.players || []).map((p) => [p.seat, p.name]));
  return (seat) => {
    if (seat === 0) return 'The house';
    if (seat === replay.seat) return 'You';
    return names.get(seat) || `Seat ${seat}`;
  };
}

function describeAction(step, who, before) {
  if (step.action === null || step.action === undefined) return 'The table before the deal';
  if (step.seat === 0 && before && before.view && before.view.phase === 'reshuffle') {
    return 'The house shuffles the open pile into a new closed deck';
  }
  if (step.seat === 0) return step.action === 'deal' ? 'The house deals' : `The house: ${step.action}`;
  const text = step.action.replace(/ 2x$/, ' 2X').replace(/\|/g, ' | ');
  return `${who(step.seat)}: ${text}`;
}

function describeEvents(step, who, you) {
  const words = [];
  for (const event of step.events || []) {
    const d = event.data || {};
    switch (event.kind) {
      case 'chaal': words.push(`${who(d.seat)} paid ${d.amount}${d.auto ? ' (auto)' : ''}`); break;
      case 'exchange': words.push(`${who(d.seat)} paid ${d.amount}${d.took ? `, took ${d.took} and left ${d.released}` : ''}`); break;
      case 'exchanged': words.push(`you took ${d.took} and left ${d.released} face down`); break;
      case 'sideshow': words.push(`${who(d.seat)} paid ${d.amount} and asked ${d.asked === you ? 'you' : who(d.asked)}`); break;
      case 'sideshow_accepted': words.push('the sideshow was accepted'); break;
      case 'sideshow_refused': words.push('the sideshow was refused'); break;
      case 'pack': words.push(`${who(d.seat)} packed${d.why && d.why !== 'packed' ? ` (${d.why})` : ''}`); break;
      case 'showdown': words.push('hands turned over'); break;
      case 'game_over': words.push('game over'); break;
      case 'timeout': words.push(`${who(d.seat)} ran out of time`); break;
      case 'draw': words.push(`${who(d.seat)} drew${d.card ? ` ${d.card}` : ''}`); break;
      default: break;
    }
  }
  return words.join(' · ');
}

// ---- drawing one step's view ---------------------------------------------------------------
// The game's view module may draw its own part of a step (its `replay` export: skipSeat(seat,
// view, replay), seatLines(seat, view, ctx), centre(view, {...ctx, pile}), resultLine(view,
// result, names)); the defaults draw the rummy family's fields (cards, totals, scores; the
// closed deck, the open pile, the cut joker, a pool's pot).
function drawBoard(board, view, replay, ctx, module) {
  const hooks = (module && module.replay) || {};
  const { el, clear } = ctx.ui;
  const cards = ctx.cards;
  clear(board);
  if (!view) return;
  const you = replay.seat;
  const who = seatNamer(replay);
  const bots = new Set((replay.players || []).filter((p) => p.bot).map((p) => p.seat));
  const seatsRow = el('div', { class: 'replay-seats' });
  const result = view.result;
  const winners = new Set(result ? result.winners || [] : []);
  for (const seat of view.seats || []) {
    if (hooks.skipSeat && hooks.skipSeat(seat, view, replay)) continue;
    const active = (view.awaited || []).some((a) => a.seat === seat.seat);
    const lines = [];
    if (hooks.seatLines) {
      lines.push(...hooks.seatLines(seat, view, { ...ctx.ui, cards }));
    } else {
      if (typeof seat.cards === 'number' && seat.cards) lines.push(el('span', {}, `${seat.cards} cards`));
      if (typeof seat.total === 'number') lines.push(el('span', {}, `${seat.total} total`));
      if (seat.score !== null && seat.score !== undefined) lines.push(el('span', {}, `${seat.score} pts`));
    }
    const shown = seat.shown && seat.shown.length
      ? el('div', { class: 'replay-shown' }, (Array.isArray(seat.shown[0]) ? seat.shown.flat() : seat.shown).map((c) => cards.renderCard(c, { small: true })))
      : null;
    seatsRow.append(el('div', {
      class: `replay-seat status-${seat.status}${active ? ' active' : ''}${seat.seat === you ? ' you' : ''}${winners.has(seat.seat) ? ' winner' : ''}`,
      'data-testid': `replay-seat-${seat.seat}`,
    },
    el('div', { class: 'replay-seat-name' }, seat.seat === you ? `You (seat ${seat.seat})` : who(seat.seat),
      bots.has(seat.seat) ? el('span', { class: 'badge badge-bot' }, 'bot') : null,
      winners.has(seat.seat) ? el('span', { class: 'replay-crown', 'aria-label': 'winner' }, ' ★') : null),
    el('div', { class: 'replay-seat-info' }, el('span', { class: 'replay-status' }, seat.status), ...lines),
    shown,
    seat.class ? el('div', { class: 'replay-class' }, seat.class) : null));
  }

  const centre = el('div', { class: 'replay-centre', 'data-testid': 'replay-centre' });
  const pile = (label, node) => el('figure', { class: 'replay-pile' }, node, el('figcaption', {}, label));
  if (view.phase !== 'start') {
    if (hooks.centre) {
      centre.append(...hooks.centre(view, { ...ctx.ui, cards, pile }));
    } else {
      const top = (view.open || [])[view.open.length - 1];
      centre.append(
        pile('Closed deck', el('div', { class: 'replay-stack' }, cards.renderBack({ label: `closed deck, ${view.closed} cards` }), el('span', { class: 'replay-count' }, String(view.closed)))),
        pile('Open pile', top ? cards.renderCard(top) : el('div', { class: 'replay-empty' })),
        view.cut ? pile('Cut joker', cards.renderCard(view.cut, { wild: true })) : null);
      if (view.pool) centre.append(el('div', { class: 'replay-pot' }, el('span', { class: 'replay-pot-label' }, 'Pool pot'), el('strong', {}, String(view.pool.pot))));
    }
  } else {
    centre.append(el('p', { class: 'muted' }, 'Waiting for the deal'));
  }

  const handRow = el('div', { class: 'replay-hand', 'data-testid': 'replay-hand', 'aria-label': 'your cards' });
  const groups = view.arrangement && view.arrangement.length ? view.arrangement : null;
  if (groups) {
    for (const group of groups) handRow.append(el('div', { class: 'replay-group' }, group.map((c) => cards.renderCard(c, { wild: isWild(c, view) }))));
  } else {
    for (const c of view.hand || []) handRow.append(cards.renderCard(c, { wild: isWild(c, view) }));
  }
  if (view.finish) handRow.append(el('div', { class: 'replay-finish' }, cards.renderCard(view.finish), el('span', { class: 'small muted' }, 'finish slot')));
  const handLabel = view.class ? el('div', { class: 'replay-hand-class' }, `Your hand: ${view.class}`) : null;

  const seen = (view.seen || []).slice(-1)[0];
  const seenBox = seen ? el('div', { class: 'replay-seen' },
    `Sideshow with seat ${seen.seat}: `, el('span', { class: 'replay-seen-cards' }, seen.cards.map((c) => cards.renderCard(c, { small: true }))), ` ${seen.class} (${seen.outcome})`) : null;

  let resultBox = null;
  if (result) {
    const names = (result.winners || []).map(who);
    const line = hooks.resultLine ? hooks.resultLine(view, result, names) : `${names.join(' and ')} won`;
    resultBox = el('div', { class: 'replay-result', 'data-testid': 'replay-result' }, el('strong', {}, 'Result: '), line);
  }
  board.append(...[seatsRow, centre, seenBox, resultBox, el('div', { class: 'replay-mine' }, handRow, handLabel)].filter(Boolean));
}

function isWild(card, view) {
  if (!view.wild_rank || card === 'JK') return false;
  return card.slice(0, -1) === String(view.wild_rank);
}
