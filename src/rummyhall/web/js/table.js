// The table shell: header, seats around the felt, timers, spectator and connection banners,
// and the game's own view (js/games/<game>.js) plugged in through ctx (see docs/client.md).
//
// data-testid hooks:
//   table (the screen, data-table, data-you, data-seq), table-title, table-stake, table-practice
//   (a table of practice chips), pot, game-no,
//   table-how-to-play,
//   fair, leave, back-to-lobby, spectator-banner, take-seat, connection-banner, table-closed,
//   table-status, felt, centre, mine, seat-<n> (data-empty, data-bot, data-active, data-you),
//   seat-name-<n>, bot-badge-<n>, stack-<n>, card-count-<n>, dealer-<n>, timer-<n>,
//   extra-time-<n>, seat-slot-<n>, sit-<n> (take that empty seat), away-<n> (the seat's person
//   has no connection to the table), auto-rebuy (your automatic rebuy switch), levelup (a
//   game's end lifted your level: js/ladder.js)

import { api } from './api.js';
import * as cards from './cards.js';
import * as ui from './ui.js';
import { explain } from './errors.js';
import { sitWithConsent } from './seating.js';
import { gameView } from './games/registry.js';
import { howToPlayButton } from './howto.js';
import { gameName } from './names.js';
import { ladderOf, levelUpCard } from './ladder.js';

const { el, clear, toast, formatChips } = ui;
const RING = 2 * Math.PI * 27; // circumference of the timer ring (r = 27 in a 60 x 60 box)

export function renderTable(root, app) {
  const tableId = Number(app.tableId);
  const { socket } = app;
  const state = {
    message: null,
    arrival: 0,
    view: null,
    viewLoading: null,
    viewFailed: false,
    seatNodes: new Map(),
    seatCount: 0,
    anchor: null,
    playing: null,
    clocks: new Map(), // seat -> {key, total}
    destroyed: false,
    closed: false,
    leavingAfterGame: false,
    ladder: ladderOf(app.me ? app.me() : null), // your level and gold, for the level-up moment
  };

  // ---- the frame ------------------------------------------------------------------------
  const title = el('h1', { class: 'table-title', 'data-testid': 'table-title' }, 'Table');
  const stake = el('span', { class: 'table-stake', 'data-testid': 'table-stake' });
  const practiceBadge = el('span', { class: 'meta-item meta-practice', 'data-testid': 'table-practice', title: 'This table plays with practice chips: free, and worth nothing.', hidden: true }, 'Practice chips');
  const pot = el('span', { class: 'meta-item pot', 'data-testid': 'pot', title: 'chips in the pot' });
  const gameNo = el('span', { class: 'meta-item', 'data-testid': 'game-no' });
  const fair = el('button', { class: 'meta-item fair', type: 'button', 'data-testid': 'fair', hidden: true, onclick: showFair });
  const leaveButton = el('button', { class: 'btn btn-ghost', type: 'button', 'data-testid': 'leave', hidden: true, onclick: leave }, 'Leave');
  // Off unless the player turns it on: chips leave the wallet between games only with consent.
  const rebuyBox = el('input', { type: 'checkbox', 'data-testid': 'auto-rebuy', onchange: () => setAutoRebuy(rebuyBox.checked) });
  const rebuySwitch = el('label', {
    class: 'auto-rebuy', hidden: true,
    title: 'When your chips at this table fall below its minimum, buy back up to the buy-in from your wallet between games. Off: you are stood up instead, with your chips back in your wallet.',
  }, rebuyBox, 'Auto rebuy');
  const back = el('button', {
    class: 'btn btn-ghost back', type: 'button', 'data-testid': 'back-to-lobby',
    onclick: () => app.navigate('#/'), 'aria-label': 'Back to the lobby',
  }, '‹ Lobby');
  const header = el('div', { class: 'table-header' },
    back,
    el('div', { class: 'table-heading' }, title, stake),
    el('div', { class: 'table-meta' }, practiceBadge, pot, gameNo, fair),
    el('div', { class: 'table-actions' }, rebuySwitch, leaveButton));

  const takeSeat = el('button', { class: 'btn btn-primary btn-small', type: 'button', 'data-testid': 'take-seat', onclick: () => sit(null) }, 'Take a seat');
  const spectatorBanner = el('div', { class: 'banner banner-spectator', 'data-testid': 'spectator-banner', hidden: true },
    el('span', {}, 'You are watching this table.'), takeSeat);
  const connectionBanner = el('div', {
    class: 'banner banner-connection', 'data-testid': 'connection-banner', hidden: true, role: 'status',
  }, el('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Connection lost, reconnecting…');
  const closedBanner = el('div', { class: 'banner banner-closed', 'data-testid': 'table-closed', hidden: true },
    el('span', {}, 'This table has closed.'),
    el('button', { class: 'btn btn-small', type: 'button', onclick: () => app.navigate('#/') }, 'Back to the lobby'));

  const centre = el('div', { class: 'centre', 'data-testid': 'centre' });
  const seatsLayer = el('div', { class: 'seats' });
  const status = el('div', { class: 'table-status', 'data-testid': 'table-status', hidden: true, role: 'status' });
  const felt = el('div', { class: 'felt', 'data-testid': 'felt' }, el('div', { class: 'felt-logo', 'aria-hidden': 'true' }, 'Rummy Hall'), centre, status, seatsLayer);
  const mine = el('div', { class: 'mine', 'data-testid': 'mine' });
  const screen = el('section', { class: 'table-screen', 'data-testid': 'table', 'data-table': tableId, 'aria-label': 'card table' },
    header, connectionBanner, spectatorBanner, closedBanner,
    el('div', { class: 'felt-wrap' }, felt),
    mine);
  clear(root).append(screen);

  // ---- socket ---------------------------------------------------------------------------
  const onStatus = (event) => { connectionBanner.hidden = event.detail.online; };
  socket.addEventListener('status', onStatus);
  connectionBanner.hidden = socket.online;
  socket.watch(tableId, onMessage);

  const ticker = setInterval(tick, 200);

  function now() {
    if (!state.message || typeof state.message.now !== 'number') return Date.now();
    return state.message.now + (performance.now() - state.arrival);
  }

  function onMessage(message) {
    if (state.destroyed) return;
    if (message.type === 'error') {
      if (message.code === 'unknown_table' || message.code === 'table_closed') {
        showClosed(explain(message.code, message.message));
      } else {
        toast(explain(message.code, message.message), 'error');
      }
      return;
    }
    const before = state.message ? state.message.you : null;
    if (before !== null && message.you === null) toldStoodUp(before, message);
    state.message = message;
    state.arrival = performance.now();
    if (app.onTableMessage) app.onTableMessage(message);
    if (message.type === 'closed') showClosed();
    drawShell(message);
    deliver(message);
  }

  // The server stood our seat up (between games): say why, and where the chips went.
  function toldStoodUp(seat, message) {
    const event = (message.events || []).find((e) => e.kind === 'leave' && e.data && e.data.seat === seat);
    if (!event) return;
    const chips = formatChips(event.data.chips || 0);
    const why = event.data.why;
    if (why === 'short') {
      toast(`Your chips here ran below the table's minimum, so your seat was given up; the ${chips} chips left went back to your wallet. Turn on Auto rebuy to buy back in automatically.`, 'info');
    } else if (why === 'away') {
      toast(`You were away, so your seat was given up between games; your ${chips} chips went back to your wallet.`, 'info');
    } else {
      toast(`You left the table; ${chips} chips went back to your wallet.`, 'success');
    }
    app.refreshMe();
  }

  // The top bar's wallet follows every game's start and end; a game's end that lifted your
  // level (the ladder of /api/me then, against the one when the table opened or the last
  // refresh here) gets its moment: the new level, the title, the gold it paid (js/ladder.js).
  async function refreshLadder(ended) {
    const before = state.ladder; // (the next game may start before this answer comes)
    const me = await app.refreshMe();
    if (state.destroyed || !me) return;
    const now = ladderOf(me);
    if (now) state.ladder = now;
    if (ended && before && now && now.level > before.level) {
      levelUpCard(before, now, { onProfile: () => app.navigate('#/profile') });
    }
  }

  function showClosed(text) {
    state.closed = true;
    closedBanner.hidden = false;
    if (text) closedBanner.firstChild.textContent = text;
    leaveButton.hidden = true;
    spectatorBanner.hidden = true;
  }

  // ---- the game's view ------------------------------------------------------------------
  const ctx = {
    root: screen,
    table: tableId,
    get you() { return state.message ? state.message.you : null; },
    act,
    api,
    cards,
    ui,
    explain,
    seatSlot: (seat) => slotOf(seat),
    now,
    centre,
    mine,
    felt,
  };

  async function act(action) {
    try {
      return await socket.act(tableId, action);
    } catch (error) {
      toast(explain(error.code, error.message), 'error');
      throw error;
    }
  }

  function deliver(message) {
    const game = message.info && message.info.game;
    if (!game) return;
    addGuide(game);
    if (state.view) {
      safeUpdate(message);
      return;
    }
    if (state.viewLoading || state.viewFailed) return;
    state.viewLoading = gameView(game).then((module) => {
      if (state.destroyed) return;
      if (!module) {
        state.viewFailed = true;
        centre.append(el('p', { class: 'muted' }, 'This game cannot be shown in the browser yet.'));
        return;
      }
      state.view = module.createView(ctx);
      if (state.message) safeUpdate(state.message);
    }).catch((error) => {
      state.viewFailed = true;
      console.error('game view', error);
      centre.append(el('p', { class: 'muted' }, 'The view of this game could not be loaded.'));
    });
  }

  // The game's "how to play", once the table says which game it is (js/howto.js).
  function addGuide(game) {
    if (state.guide) return;
    state.guide = howToPlayButton(game, { testid: 'table-how-to-play', label: 'How to play' });
    header.querySelector('.table-meta').append(state.guide);
  }

  function safeUpdate(message) {
    try {
      state.view.update(message);
    } catch (error) {
      console.error('game view update', error);
    }
  }

  // ---- seats ----------------------------------------------------------------------------
  function slotOf(seat) {
    const node = state.seatNodes.get(seat);
    return node ? node.slot : el('div');
  }

  function makeSeat(seat) {
    const ringFg = svgEl('circle', { cx: 30, cy: 30, r: 27, class: 'ring-fg' });
    const ring = svgEl('svg', { class: 'ring', viewBox: '0 0 60 60', 'aria-hidden': 'true' });
    ring.append(svgEl('circle', { cx: 30, cy: 30, r: 27, class: 'ring-bg' }), ringFg);
    ringFg.style.strokeDasharray = `${RING}`;
    const avatar = el('div', { class: 'avatar', 'aria-hidden': 'true' });
    const dealer = el('span', { class: 'dealer-chip', 'data-testid': `dealer-${seat}`, title: 'dealer', hidden: true }, 'D');
    const name = el('span', { class: 'seat-name', 'data-testid': `seat-name-${seat}` });
    const bot = el('span', { class: 'badge badge-bot', 'data-testid': `bot-badge-${seat}`, title: 'a bot plays this seat', hidden: true }, 'BOT');
    const youBadge = el('span', { class: 'badge badge-you' }, 'YOU');
    const away = el('span', { class: 'badge badge-away', 'data-testid': `away-${seat}`, title: 'not connected: the seat is given up between games unless they come back', hidden: true }, 'AWAY');
    const stack = el('span', { class: 'seat-stack', 'data-testid': `stack-${seat}` });
    const count = el('span', { class: 'seat-count', 'data-testid': `card-count-${seat}`, hidden: true });
    const timer = el('span', { class: 'seat-timer', 'data-testid': `timer-${seat}`, hidden: true });
    const extra = el('span', { class: 'seat-extra', 'data-testid': `extra-time-${seat}`, hidden: true });
    const slot = el('div', { class: 'seat-slot', 'data-testid': `seat-slot-${seat}` });
    const sitButton = el('button', {
      class: 'btn btn-small btn-primary sit-here', type: 'button', 'data-testid': `sit-${seat}`, hidden: true,
      onclick: () => sit(seat), 'aria-label': `Sit in seat ${seat}`,
    }, 'Sit here');
    const waiting = el('span', { class: 'seat-waiting' }, 'Waiting…');
    const node = el('div', { class: 'seat', 'data-testid': `seat-${seat}`, 'data-seat': seat },
      el('div', { class: 'avatar-wrap' }, ring, avatar, dealer),
      el('div', { class: 'plate' },
        el('div', { class: 'plate-row' }, name, bot, youBadge, away),
        el('div', { class: 'plate-row small' }, stack, count),
        el('div', { class: 'plate-row small' }, timer, extra),
        waiting, sitButton),
      slot);
    return { node, ringFg, avatar, dealer, name, bot, away, stack, count, timer, extra, slot, sitButton, waiting };
  }

  function layoutSeats(count, anchor) {
    if (count === state.seatCount && anchor === state.anchor) return;
    if (count !== state.seatCount) {
      clear(seatsLayer);
      state.seatNodes.clear();
      for (let seat = 1; seat <= count; seat += 1) {
        const parts = makeSeat(seat);
        state.seatNodes.set(seat, parts);
        seatsLayer.append(parts.node);
      }
    }
    state.seatCount = count;
    state.anchor = anchor;
    for (let seat = 1; seat <= count; seat += 1) {
      const k = (seat - anchor + count) % count;
      const angle = (Math.PI / 2) + (k * 2 * Math.PI) / count;
      const x = 50 + 50 * Math.cos(angle);
      const y = 50 + 50 * Math.sin(angle);
      const parts = state.seatNodes.get(seat);
      parts.node.style.setProperty('--x', `${x.toFixed(2)}%`);
      parts.node.style.setProperty('--y', `${y.toFixed(2)}%`);
      parts.node.dataset.place = k === 0 ? 'bottom' : y < 30 ? 'top' : 'side';
      parts.node.dataset.side = x > 55 ? 'right' : x < 45 ? 'left' : 'middle';
    }
    // tab order follows the table clockwise from your own seat
    const ordered = [...state.seatNodes.entries()].sort(([a], [b]) => ((a - anchor + count) % count) - ((b - anchor + count) % count));
    for (const [, parts] of ordered) seatsLayer.append(parts.node);
  }

  function drawShell(message) {
    const { info } = message;
    if (!info) return;
    const view = message.view || null;
    const you = message.you ?? null;
    screen.dataset.you = you ?? '';
    screen.dataset.seq = message.seq ?? '';
    screen.classList.toggle('spectating', you === null);
    title.textContent = info.title || 'Table';
    stake.textContent = [info.stake, info.private ? 'private' : null].filter(Boolean).join(' · ');
    practiceBadge.hidden = info.currency !== 'practice';
    // The top bar shows the wallet this table plays with where there is room for one (a phone).
    document.body.dataset.currency = info.currency || 'chips';
    const potValue = view && typeof view.pot === 'number' ? view.pot : info.pot;
    pot.textContent = `Pot ${formatChips(potValue || 0)}`;
    gameNo.textContent = info.game_no ? gameName(tableId, info.game_no) : 'No game yet';
    if (info.fair && info.fair.commitment) {
      fair.hidden = false;
      fair.textContent = `Fair #${info.fair.commitment.slice(0, 8)}`;
      fair.title = `Shuffle commitment ${info.fair.commitment} (client seed ${info.fair.client_seed}, nonce ${info.fair.nonce}). The seed is revealed in your history once the game ends.`;
      fair.setAttribute('aria-label', `Provably fair: shuffle commitment ${info.fair.commitment.slice(0, 8)}; show details`);
    } else {
      fair.hidden = true;
    }
    const seats = info.seats || [];
    layoutSeats(seats.length, you ?? 1);
    const free = seats.some((entry) => !entry);
    leaveButton.hidden = you === null || state.closed;
    const mySeat = you !== null ? seats[you - 1] : null;
    state.leavingAfterGame = Boolean(mySeat && mySeat.leaving);
    leaveButton.textContent = state.leavingAfterGame ? 'Leaving after this game' : 'Leave';
    rebuySwitch.hidden = !mySeat || state.closed;
    if (mySeat && !state.rebuyBusy) rebuyBox.checked = Boolean(mySeat.auto_rebuy);
    spectatorBanner.hidden = you !== null || state.closed;
    takeSeat.hidden = !free;

    const viewSeats = new Map();
    for (const entry of (view && view.seats) || []) viewSeats.set(entry.seat, entry);
    const awaited = new Map();
    for (const entry of (view && view.awaited) || []) awaited.set(entry.seat, entry);
    const dealerSeat = view ? view.dealer : null;

    for (let seat = 1; seat <= seats.length; seat += 1) {
      const parts = state.seatNodes.get(seat);
      const occupant = seats[seat - 1];
      const gameSeat = viewSeats.get(seat);
      parts.node.dataset.empty = occupant ? 'false' : 'true';
      parts.node.dataset.bot = occupant && occupant.bot ? 'true' : 'false';
      parts.node.dataset.you = seat === you ? 'true' : 'false';
      parts.node.classList.toggle('empty', !occupant);
      parts.node.classList.toggle('is-you', seat === you);
      parts.node.classList.toggle('leaving', Boolean(occupant && occupant.leaving));
      parts.waiting.hidden = Boolean(occupant) || (you === null && !state.closed);
      parts.sitButton.hidden = Boolean(occupant) || you !== null || state.closed;
      if (occupant) {
        parts.name.textContent = occupant.name;
        parts.name.title = occupant.name;
        setAvatar(parts.avatar, occupant);
        parts.bot.hidden = !occupant.bot;
        parts.away.hidden = !occupant.away || occupant.bot;
        const stackValue = gameSeat && typeof gameSeat.stack === 'number' ? gameSeat.stack : occupant.stack;
        let stackText = `${formatChips(stackValue)} chips`;
        if (gameSeat && typeof gameSeat.total === 'number') stackText += ` · ${gameSeat.total} pts`;
        parts.stack.textContent = stackText;
        parts.node.setAttribute('aria-label', `Seat ${seat}: ${occupant.name}${occupant.bot ? ' (bot)' : ''}${seat === you ? ' (you)' : ''}, ${formatChips(stackValue)} chips`);
      } else {
        parts.name.textContent = `Seat ${seat}`;
        setAvatar(parts.avatar, null);
        parts.bot.hidden = true;
        parts.away.hidden = true;
        parts.stack.textContent = '';
        parts.node.setAttribute('aria-label', `Seat ${seat}: empty`);
      }
      const inGame = Boolean(occupant && gameSeat && info.playing);
      const cardsHeld = gameSeat && typeof gameSeat.cards === 'number' ? gameSeat.cards : null;
      parts.count.hidden = !(inGame && cardsHeld);
      parts.count.textContent = cardsHeld === 1 ? '1 card' : `${cardsHeld} cards`;
      parts.dealer.hidden = !(occupant && dealerSeat === seat && info.playing);
      const wait = awaited.get(seat);
      parts.node.classList.toggle('active', Boolean(wait));
      parts.node.dataset.active = wait ? 'true' : 'false';
      parts.node.dataset.status = gameSeat && gameSeat.status ? gameSeat.status : '';
      if (wait && typeof wait.deadline === 'number') {
        const key = `${wait.kind}:${wait.deadline}`;
        const clock = state.clocks.get(seat);
        if (!clock || clock.key !== key) {
          const bank = gameSeat && typeof gameSeat.bank === 'number' ? gameSeat.bank : 0;
          const remaining = wait.deadline - message.now;
          state.clocks.set(seat, { key, deadline: wait.deadline, bank, total: Math.max(1000, remaining - bank) });
        }
      } else {
        state.clocks.delete(seat);
      }
    }

    if (state.playing !== null && state.playing !== info.playing) refreshLadder(!info.playing);
    state.playing = info.playing;
    const seated = seats.filter(Boolean).length;
    if (state.closed) {
      status.hidden = true;
    } else if (!info.playing) {
      status.hidden = false;
      status.textContent = seated < 2 ? 'Waiting for players…' : 'The next game starts in a moment…';
    } else {
      status.hidden = true;
    }
    tick();
  }

  function tick() {
    const at = now();
    for (const [seat, parts] of state.seatNodes) {
      const clock = state.clocks.get(seat);
      if (!clock) {
        parts.ringFg.style.strokeDashoffset = `${RING}`;
        parts.timer.hidden = true;
        parts.extra.hidden = true;
        parts.node.classList.remove('extra-time', 'hurry');
        continue;
      }
      const remaining = Math.max(0, clock.deadline - at);
      const base = remaining - clock.bank;
      let fraction;
      const extra = base <= 0 && clock.bank > 0;
      if (extra) {
        fraction = remaining / clock.bank;
        parts.extra.hidden = false;
        parts.extra.textContent = `extra time ${Math.ceil(remaining / 1000)}s`;
        parts.timer.hidden = true;
      } else {
        fraction = Math.min(1, Math.max(0, base) / clock.total);
        parts.extra.hidden = clock.bank <= 0;
        parts.extra.textContent = `+${Math.round(clock.bank / 1000)}s bank`;
        parts.timer.hidden = false;
        parts.timer.textContent = `${Math.ceil(Math.max(0, base) / 1000)}s`;
      }
      parts.node.classList.toggle('extra-time', extra);
      parts.node.classList.toggle('hurry', !extra && base < 5000);
      parts.ringFg.style.strokeDashoffset = `${RING * (1 - fraction)}`;
    }
  }

  // ---- seat, leave, fair ----------------------------------------------------------------
  async function sit(seat) {
    const answer = await sitWithConsent(app, (another) => api('POST', `/api/tables/${tableId}/sit`, { seat, buy_in: null, another }));
    if (answer) toast('You took a seat. Good luck!', 'success');
  }

  async function leave() {
    if (state.leavingAfterGame) return;
    const playing = Boolean(state.message && state.message.info && state.message.info.playing);
    if (playing) {
      // Mid-game, leaving costs something: the game's view says what (a drop, a pack) before
      // anything happens. Between games it is free, and done at once.
      const note = state.view && state.view.leaveNote ? state.view.leaveNote() : null;
      const text = note
        ? `${note} You stand up when this game ends, and your chips go back to your wallet.`
        : 'You are out of this game already: you stand up when it ends, and your chips go back to your wallet.';
      const ok = await ui.confirmDialog('Leave the table?', text, { yes: note ? 'Leave and give up' : 'Leave', no: 'Stay' });
      if (!ok) return;
    }
    try {
      const answer = await api('POST', `/api/tables/${tableId}/leave`);
      if (answer && answer.after_game) {
        toast('You gave up this game; you leave the table when it ends.', 'info');
        state.leavingAfterGame = true;
        leaveButton.textContent = 'Leaving after this game';
      } else {
        toast('You left the table; your chips are back in your wallet.', 'success');
        app.refreshMe();
        app.navigate('#/');
      }
    } catch (error) {
      toast(explain(error.code, error.message), 'error');
    }
  }

  async function setAutoRebuy(on) {
    state.rebuyBusy = true;
    try {
      await api('POST', `/api/tables/${tableId}/auto-rebuy`, { on });
      toast(on ? 'Auto rebuy on: you buy back up to the buy-in when your chips run low.' : 'Auto rebuy off.', 'info');
    } catch (error) {
      rebuyBox.checked = !on;
      toast(explain(error.code, error.message), 'error');
    } finally {
      state.rebuyBusy = false;
    }
  }

  function showFair() {
    const info = state.message && state.message.info;
    if (!info || !info.fair) return;
    ui.openDialog({
      title: 'Provably fair deal',
      testid: 'fair-dialog',
      body: el('div', { class: 'fair-details' },
        el('p', {}, 'Before the cards were dealt, the server published this commitment to its secret shuffle seed. When the game ends the seed is revealed in your history, and your browser can rebuild the deck from it and check.'),
        el('dl', {},
          el('dt', {}, 'Commitment'), el('dd', { class: 'mono' }, info.fair.commitment),
          el('dt', {}, 'Client seed'), el('dd', { class: 'mono' }, info.fair.client_seed),
          el('dt', {}, 'Nonce'), el('dd', { class: 'mono' }, String(info.fair.nonce)))),
      actions: [{ label: 'Close', kind: 'primary' }],
    });
  }

  return {
    destroy() {
      state.destroyed = true;
      delete document.body.dataset.currency;
      clearInterval(ticker);
      socket.removeEventListener('status', onStatus);
      socket.unwatch(tableId);
      if (state.view) {
        try { state.view.destroy(); } catch (error) { console.error(error); }
      }
    },
  };
}

const BOT_FACE = 'M8 6h8a3 3 0 0 1 3 3v6a3 3 0 0 1-3 3H8a3 3 0 0 1-3-3V9a3 3 0 0 1 3-3Zm1.5 4.2a1.6 1.6 0 1 0 0 3.2 1.6 1.6 0 0 0 0-3.2Zm5 0a1.6 1.6 0 1 0 0 3.2 1.6 1.6 0 0 0 0-3.2ZM9 15.2v1h6v-1ZM11.3 2.5h1.4V6h-1.4ZM12 1a1.2 1.2 0 1 1 0 2.4A1.2 1.2 0 0 1 12 1ZM2.5 10h1.5v4H2.5Zm18 0H22v4h-1.5Z';

function setAvatar(node, occupant) {
  const key = occupant ? `${occupant.bot ? 'bot' : 'p'}:${occupant.name}` : '';
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  clear(node);
  if (!occupant) return;
  if (occupant.bot) {
    const icon = svgEl('svg', { viewBox: '0 0 24 24', class: 'bot-face', 'aria-hidden': 'true' });
    icon.append(svgEl('path', { d: BOT_FACE, 'fill-rule': 'evenodd' }));
    node.append(icon);
  } else {
    const name = occupant.name || '?';
    node.textContent = name.startsWith('guest-') ? 'G' : name.charAt(0).toUpperCase();
  }
}

function svgEl(tag, attrs) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}
