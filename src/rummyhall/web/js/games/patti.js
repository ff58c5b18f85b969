// The Rummy Patti table view: your three cards, the open and closed centre cards, the pot and its
// limit, chaal / chaal 2X with their prices, the exchange flow, sideshow (ask, and the asked
// player's accept/refuse prompt with its deadline), show, pack, the sideshow comparison and the
// showdown. The rules stay on the server: every button follows `legal`, every amount comes from
// the engine's view (src/rummyhall/games/patti/engine.py `view()`), actions are sent in the notation of
// docs/records.md ("chaal", "chaal 2x", "exchange open 7H 2x", "sideshow", "accept", ...).
//
// Test hooks (data-testid):
//   centre:  patti-centre, patti-pot, pot-limit, pot-meter, chaal-amount, pile-open, pile-closed,
//            patti-status
//   result:  result (the showdown / end-of-game panel, above your cards), result-row-<seat>,
//            result-class-<seat>, result-winner
//   mine:    patti-mine, hand, hand-card (each of your cards, data-card), hand-class,
//            actions, action-chaal, action-chaal-2x, action-exchange-open, action-exchange-closed,
//            exchange-2x (checkbox), action-sideshow, action-show, action-pack, action-hint,
//            sideshow-prompt (the asked player's prompt), sideshow-countdown, action-accept,
//            action-refuse, sideshow-wait (the asker waiting), sideshow-seen (hands compared)
//   seats:   patti-seat-<n> (inside the shell's seat badge: status, paid, last move, shown cards)
// Keyboard: every control is a real <button>; arrows move between your cards, Enter/Space picks
// one for an exchange, Escape drops the pick.

// The game's short guide for the lobby and the table (js/howto.js); the words are in patti/howto.js.
export { howToPlay } from './patti/howto.js';
// The deal order the history's fair-deal check follows (js/fair.js): patti/fair.js.
export { dealtCards } from './patti/fair.js';
// The history's outcome in chips and the replay's seats, pot and result: patti/replay.js.
export { outcome, replay } from './patti/replay.js';

// The lobby's heading of one of this game's rooms: its stake (every room has the same title).
export function roomHeading(room) {
  return room.stake;
}

// What leaving in the middle of a game gives up, for the lobby's warning.
export const givingUp = 'a pack at Rummy Patti';

const MOVE_WORDS = {
  chaal: 'chaal',
  'chaal 2x': 'chaal 2X',
  'exchange open': 'swapped (open)',
  'exchange open 2x': 'swapped (open) 2X',
  'exchange closed': 'swapped (closed)',
  'exchange closed 2x': 'swapped (closed) 2X',
  sideshow: 'sideshow',
  accept: 'accepted',
  refuse: 'refused',
  show: 'show',
  pack: 'packed',
  timeout: 'timed out',
  'timeout chaal': 'auto chaal',
  'out of chips': 'out of chips',
};

const HOW_WORDS = {
  'last player': 'Everyone else packed',
  show: 'Showdown',
  'pot limit': 'The pot reached its limit: showdown',
};

export function createView(ctx) {
  const { el, clear, formatChips } = ctx.ui;
  const cards = ctx.cards;
  const state = {
    message: null,
    picked: null, // the card of yours chosen for an exchange
    double: false, // the exchange's 2x toggle
    busy: false,
    ticker: null,
  };

  // ---- static structure ---------------------------------------------------------------------
  const potAmount = el('span', { class: 'patti-pot-amount', 'data-testid': 'patti-pot' }, '0');
  const potLimit = el('span', { class: 'patti-pot-limit', 'data-testid': 'pot-limit' }, '');
  const potFill = el('span', { class: 'patti-meter-fill' });
  const potMeter = el('span', {
    class: 'patti-meter', 'data-testid': 'pot-meter', role: 'meter', 'aria-label': 'pot towards its limit',
    'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0',
  }, potFill);
  const chaalLine = el('div', { class: 'patti-chaal', 'data-testid': 'chaal-amount' });
  const openSlot = el('div', { class: 'patti-centre-card', 'data-testid': 'pile-open' });
  const closedSlot = el('div', { class: 'patti-centre-card', 'data-testid': 'pile-closed' });
  const potBox = el('div', { class: 'patti-pot' },
    el('div', { class: 'patti-chips', 'aria-hidden': 'true' }, el('i'), el('i'), el('i')),
    el('div', { class: 'patti-pot-text' }, el('span', { class: 'patti-pot-label' }, 'Pot'), potAmount),
    el('div', { class: 'patti-pot-sub' }, 'limit ', potLimit, potMeter));
  const cardsRow = el('div', { class: 'patti-centre-cards' },
    el('figure', { class: 'patti-centre-fig' }, openSlot, el('figcaption', {}, 'Open card')),
    el('figure', { class: 'patti-centre-fig' }, closedSlot, el('figcaption', {}, 'Closed card')));
  const status = el('div', { class: 'patti-status', 'data-testid': 'patti-status', 'aria-live': 'polite' });
  const resultBox = el('div', { class: 'patti-result', 'data-testid': 'result', hidden: true, role: 'region', 'aria-label': 'result of the game' });
  const centre = el('div', { class: 'patti-centre', 'data-testid': 'patti-centre' },
    potBox,
    cardsRow,
    chaalLine,
    status,
  );
  ctx.centre.append(centre);

  const prompt = el('div', { class: 'patti-prompt', hidden: true });
  const seenBox = el('div', { class: 'patti-seen', 'data-testid': 'sideshow-seen', hidden: true });
  const handBox = el('div', { class: 'patti-hand', 'data-testid': 'hand', role: 'group', 'aria-label': 'your cards' });
  const handClass = el('div', { class: 'patti-hand-class', 'data-testid': 'hand-class' });
  const button = (testid, label, onclick, extra = {}) =>
    el('button', { class: `btn patti-btn ${extra.kind ? `btn-${extra.kind}` : ''}`, type: 'button', 'data-testid': testid, onclick, ...extra.attrs }, label);
  const btnChaal = button('action-chaal', 'Chaal', () => send('chaal'), { kind: 'primary' });
  const btnDouble = button('action-chaal-2x', 'Chaal 2X', () => send('chaal 2x'), { kind: 'primary' });
  const btnSwapOpen = button('action-exchange-open', 'Swap with open', () => exchange('open'));
  const btnSwapClosed = button('action-exchange-closed', 'Swap with closed', () => exchange('closed'));
  const doubleBox = el('input', { type: 'checkbox', 'data-testid': 'exchange-2x', onchange: (e) => { state.double = e.target.checked; render(); } });
  const doubleLabel = el('label', { class: 'patti-double' }, doubleBox, ' pay 2X');
  const btnSideshow = button('action-sideshow', 'Sideshow', () => send('sideshow'));
  const btnShow = button('action-show', 'Show', () => send('show'), { kind: 'primary' });
  const btnPack = button('action-pack', 'Pack', () => send('pack'), { kind: 'danger' });
  const hint = el('div', { class: 'patti-hint', 'data-testid': 'action-hint', 'aria-live': 'polite' });
  const exchangeGroup = el('div', { class: 'patti-exchange', role: 'group', 'aria-label': 'exchange a card' },
    btnSwapOpen, btnSwapClosed, doubleLabel);
  const actions = el('div', { class: 'patti-actions', 'data-testid': 'actions', role: 'toolbar', 'aria-label': 'your moves' },
    el('div', { class: 'patti-actions-main' }, btnChaal, btnDouble, btnSideshow, btnShow, btnPack),
    exchangeGroup);
  const mine = el('div', { class: 'patti-mine', 'data-testid': 'patti-mine' },
    prompt, seenBox,
    el('div', { class: 'patti-play-row' },
      el('div', { class: 'patti-hand-row' }, handBox, handClass),
      el('div', { class: 'patti-actions-box' }, actions, hint)));
  // The result goes above your cards, not on the felt: a phone's felt has no room for it between
  // the seats. Outside your area, so spectators see it too.
  ctx.mine.append(resultBox, mine);

  const stopArrows = ctx.ui.arrowKeys ? ctx.ui.arrowKeys(handBox, 'button.card', { orientation: 'horizontal' }) : null;
  const onKey = (event) => {
    if (event.key === 'Escape' && state.picked) {
      state.picked = null;
      render();
    }
  };
  document.addEventListener('keydown', onKey);

  // ---- helpers -------------------------------------------------------------------------------
  const msg = () => state.message;
  const view = () => (msg() && msg().view) || null;
  const legal = () => (msg() && msg().legal) || [];
  const you = () => (msg() ? msg().you : ctx.you);
  const can = (action) => !state.busy && legal().includes(action);

  function nameOf(seat, { me = true } = {}) {
    if (me && seat === you()) return 'You';
    const seats = (msg() && msg().info && msg().info.seats) || [];
    const entry = seats[seat - 1];
    return (entry && entry.name) || `Seat ${seat}`;
  }

  function active(v) {
    return (v.order || []).filter((s) => (v.seats[s - 1] || {}).status === 'playing');
  }

  function before(v, seat) {
    const order = v.order || [];
    const at = order.indexOf(seat);
    for (let k = 1; k <= order.length; k += 1) {
      const s = order[(at - k + order.length * 2) % order.length];
      if ((v.seats[s - 1] || {}).status === 'playing') return s;
    }
    return null;
  }

  function secondsLeft(deadline) {
    if (deadline === null || deadline === undefined) return null;
    return Math.max(0, Math.ceil((deadline - ctx.now()) / 1000));
  }

  async function send(action) {
    if (state.busy) return;
    state.busy = true;
    render();
    try {
      await ctx.act(action);
      state.picked = null;
      state.double = false;
    } catch (error) {
      // the shell already explained the refusal in a toast; keep the hint in sync too
      hint.textContent = error && error.message ? error.message : 'That move was refused.';
    } finally {
      state.busy = false;
      render();
    }
  }

  function exchange(where) {
    if (!state.picked) return;
    const base = `exchange ${where} ${state.picked}`;
    send(state.double && legal().includes(`${base} 2x`) ? `${base} 2x` : base);
  }

  function exchangeLegal(where, card, double) {
    return legal().includes(`exchange ${where} ${card}${double ? ' 2x' : ''}`);
  }

  // ---- drawing -------------------------------------------------------------------------------
  function renderCentre(v) {
    const dealt = v.phase !== 'start';
    const potText = formatChips(v.pot);
    if (potAmount.textContent !== potText) {
      potAmount.textContent = potText;
      potAmount.classList.remove('bump');
      void potAmount.offsetWidth; // restart the animation
      potAmount.classList.add('bump');
    }
    potLimit.textContent = formatChips(v.pot_limit);
    const share = v.pot_limit ? Math.min(100, Math.round((100 * v.pot) / v.pot_limit)) : 0;
    potFill.style.width = `${Math.max(share, v.pot ? 2 : 0)}%`;
    potMeter.setAttribute('aria-valuenow', String(share));
    clear(chaalLine).append(
      dealt ? `Chaal ${formatChips(v.chaal)}${v.chaal_2x ? ` · 2X ${formatChips(v.chaal_2x)}` : ' · at the max'}` : `Boot ${formatChips(v.boot)}`,
      el('span', { class: 'patti-long' }, dealt ? ` · boot ${formatChips(v.boot)} · max chaal ${formatChips(v.max_chaal)}` : ` · max chaal ${formatChips(v.max_chaal)}`));

    const pickable = state.picked && v.phase === 'play';
    clear(openSlot);
    clear(closedSlot);
    if (dealt && v.open && v.open.length) {
      const openOk = pickable && exchangeLegal('open', state.picked, false);
      const node = cards.renderCard(v.open[0], {
        button: true, label: `open card: ${cards.cardLabel(v.open[0])}${openOk ? `, swap your ${cards.cardLabel(state.picked)} for it` : ''}`,
      });
      node.disabled = !openOk || state.busy;
      node.classList.toggle('target', Boolean(openOk));
      node.addEventListener('click', () => exchange('open'));
      openSlot.append(node);
    } else {
      openSlot.append(el('div', { class: 'patti-empty-card', 'aria-hidden': 'true' }));
    }
    if (dealt && v.closed) {
      const closedOk = pickable && exchangeLegal('closed', state.picked, false);
      const node = cards.renderBack({
        button: true, label: `closed card, face down${closedOk ? `: swap your ${cards.cardLabel(state.picked)} for it unseen` : ''}`,
      });
      node.disabled = !closedOk || state.busy;
      node.classList.toggle('target', Boolean(closedOk));
      node.addEventListener('click', () => exchange('closed'));
      closedSlot.append(node);
    } else {
      closedSlot.append(el('div', { class: 'patti-empty-card', 'aria-hidden': 'true' }));
    }

    status.textContent = statusText(v);
    const over = v.phase === 'over';
    const asked = v.phase === 'sideshow' && v.sideshow && v.sideshow.asked === you();
    potBox.hidden = over;
    cardsRow.hidden = over;
    chaalLine.hidden = over;
    status.hidden = over || asked; // the prompt below says it
  }

  function statusText(v) {
    if (v.phase === 'start') return 'Shuffling: the deal is on its way';
    if (v.phase === 'over') return HOW_WORDS[v.how] || 'Game over';
    const waiting = (v.awaited || [])[0];
    if (v.phase === 'sideshow' && v.sideshow) {
      const left = waiting ? secondsLeft(waiting.deadline) : null;
      const time = left === null ? '' : ` (${left}s)`;
      return `${nameOf(v.sideshow.asker)} asked ${nameOf(v.sideshow.asked, { me: true }).replace(/^You$/, 'you')} for a sideshow${time}`;
    }
    if (v.turn === you()) return 'Your turn';
    if (v.turn) return `${nameOf(v.turn)} to play`;
    return '';
  }

  function renderSeats(v) {
    const lastMove = {};
    for (const move of v.moves || []) lastMove[move.seat] = move;
    const winners = new Set(v.winners || []);
    const shares = (v.result && v.result.detail && v.result.detail.shares) || {};
    for (const seatView of v.seats || []) {
      const slot = ctx.seatSlot ? ctx.seatSlot(seatView.seat) : null;
      if (!slot) continue;
      clear(slot);
      const box = el('div', { class: `patti-seat patti-${seatView.status}`, 'data-testid': `patti-seat-${seatView.seat}` });
      if (seatView.status === 'out') {
        if ((msg().info.seats || [])[seatView.seat - 1]) box.append(el('span', { class: 'patti-tag muted' }, 'sits out'));
        slot.append(box);
        continue;
      }
      if (seatView.status === 'packed') box.append(el('span', { class: 'patti-tag packed' }, 'packed'));
      if (v.phase !== 'start' && seatView.paid) {
        box.append(el('span', { class: 'patti-tag paid', title: 'chips this seat put in the pot' }, `in ${formatChips(seatView.paid)}`));
      }
      const move = lastMove[seatView.seat];
      if (move && v.phase !== 'over' && seatView.status === 'playing') {
        const words = MOVE_WORDS[move.move] || move.move;
        box.append(el('span', { class: 'patti-tag move' }, move.amount ? `${words} ${formatChips(move.amount)}` : words));
      }
      if (v.sideshow && v.sideshow.asker === seatView.seat) box.append(el('span', { class: 'patti-tag ask' }, 'asks sideshow'));
      if (v.sideshow && v.sideshow.asked === seatView.seat) box.append(el('span', { class: 'patti-tag ask' }, 'asked'));
      if (seatView.shown && seatView.seat !== you()) {
        const mini = el('div', { class: 'patti-seat-cards' }, seatView.shown.map((c) => cards.renderCard(c, { small: true })));
        box.append(mini, el('span', { class: 'patti-tag class' }, seatView.class));
      }
      if (winners.has(seatView.seat)) {
        const share = shares[String(seatView.seat)];
        box.append(el('span', { class: 'patti-tag winner' }, share ? `wins ${formatChips(share)}` : 'wins'));
      }
      slot.append(box);
    }
  }

  function renderHand(v) {
    const me = you();
    const hand = v.hand || [];
    mine.hidden = me === null || me === undefined;
    if (mine.hidden) return;
    const myTurn = v.phase === 'play' && v.turn === me;
    if (state.picked && (!hand.includes(state.picked) || !myTurn)) state.picked = null;
    const focusedCard = document.activeElement && handBox.contains(document.activeElement) ? document.activeElement.dataset.card : null;
    clear(handBox);
    const previous = new Set(state.shownHand || []);
    for (const text of hand) {
      const canPick = myTurn && (exchangeLegal('open', text, false) || exchangeLegal('closed', text, false));
      const picked = state.picked === text;
      const node = cards.renderCard(text, {
        button: true, selected: picked, testid: 'hand-card',
        label: `${cards.cardLabel(text)}${picked ? ', picked for an exchange' : canPick ? ', pick to exchange' : ''}`,
      });
      if (!previous.has(text) && previous.size) node.classList.add('arrive');
      node.setAttribute('aria-pressed', picked ? 'true' : 'false');
      node.disabled = !canPick || state.busy;
      node.addEventListener('click', () => {
        state.picked = state.picked === text ? null : text;
        render();
        const again = handBox.querySelector(`[data-card="${text}"]`);
        if (again) again.focus();
      });
      handBox.append(node);
    }
    if (!hand.length && v.phase === 'start') {
      for (let i = 0; i < 3; i += 1) handBox.append(cards.renderBack({ label: 'card not dealt yet' }));
    }
    state.shownHand = hand;
    if (focusedCard) {
      const again = handBox.querySelector(`[data-card="${focusedCard}"]`);
      if (again && !again.disabled) again.focus();
    }
    const mySeat = (v.seats || [])[me - 1] || {};
    let classText = '';
    if (v.class) classText = `Your hand: ${v.class}`;
    if (mySeat.status === 'packed') classText += classText ? ' · packed' : 'You packed';
    if (mySeat.status === 'out') classText = 'You sit this game out';
    handClass.textContent = classText;
  }

  function renderActions(v) {
    const me = you();
    if (me === null || me === undefined) return;
    const myTurn = v.phase === 'play' && v.turn === me;
    actions.hidden = v.phase === 'over' || v.phase === 'start' || (v.seats[me - 1] || {}).status !== 'playing';
    btnChaal.textContent = `Chaal ${formatChips(v.chaal)}`;
    btnChaal.disabled = !can('chaal');
    btnDouble.textContent = v.chaal_2x ? `Chaal 2X ${formatChips(v.chaal_2x)}` : 'Chaal 2X';
    btnDouble.disabled = !can('chaal 2x');
    const picked = state.picked;
    const doubleOk = picked && (exchangeLegal('open', picked, true) || exchangeLegal('closed', picked, true));
    if (!doubleOk && state.double) state.double = false;
    doubleBox.checked = state.double;
    doubleBox.disabled = !doubleOk || state.busy;
    const price = state.double && v.chaal_2x ? v.chaal_2x : v.chaal;
    const swapLabel = (where) => {
      clear(where === 'open' ? btnSwapOpen : btnSwapClosed).append(
        el('span', { class: 'patti-long' }, picked ? `Swap ${picked} for ` : 'Swap with '),
        el('span', { class: 'patti-short', 'aria-hidden': 'true' }, '⇄ '),
        picked ? `${where} ${formatChips(price)}` : where);
    };
    swapLabel('open');
    swapLabel('closed');
    btnSwapOpen.setAttribute('aria-label', picked ? `swap ${cards.cardLabel(picked)} for the open card, paying ${price}` : 'swap with the open card: pick one of your cards first');
    btnSwapClosed.setAttribute('aria-label', picked ? `swap ${cards.cardLabel(picked)} for the closed card, paying ${price}` : 'swap with the closed card: pick one of your cards first');
    btnSwapOpen.disabled = !picked || state.busy || !exchangeLegal('open', picked, state.double);
    btnSwapClosed.disabled = !picked || state.busy || !exchangeLegal('closed', picked, state.double);
    btnSideshow.textContent = `Sideshow ${formatChips(v.chaal)}`;
    btnSideshow.disabled = !can('sideshow');
    btnShow.textContent = `Show ${formatChips(v.chaal)}`;
    btnShow.disabled = !can('show');
    btnPack.disabled = !can('pack');

    // Plain words for what is not possible now (the server's legal list decides; this explains).
    const notes = [];
    if (v.phase === 'sideshow' && v.sideshow && v.sideshow.asker === me) {
      notes.push(`Waiting for ${nameOf(v.sideshow.asked)} to answer your sideshow.`);
    } else if (!myTurn && v.phase === 'play') {
      notes.push(`Waiting for ${nameOf(v.turn)} to play.`);
    } else if (myTurn) {
      const inGame = active(v);
      if (!picked) notes.push('To exchange, pick one of your cards, then the open or the closed card.');
      if (!legal().includes('sideshow')) {
        if (inGame.length < 3) notes.push('Sideshow needs three or more players in; with two, call a show.');
        else notes.push(`Sideshow is possible once ${nameOf(before(v, me))} has played a turn.`);
      } else {
        notes.push(`Sideshow asks ${nameOf(before(v, me))} to compare hands.`);
      }
      if (!legal().includes('show') && inGame.length > 2) notes.push('Show is possible when only two players are left.');
      if (!legal().includes('chaal 2x')) {
        notes.push(v.chaal_2x ? 'You do not have the chips for 2X.' : 'The chaal is at the max chaal: no 2X.');
      }
    }
    hint.textContent = notes.join(' ');
  }

  function renderPrompt(v) {
    const me = you();
    clear(prompt);
    prompt.hidden = true;
    prompt.removeAttribute('data-testid');
    prompt.removeAttribute('role');
    if (!v.sideshow || v.phase !== 'sideshow') return;
    const waiting = (v.awaited || []).find((a) => a.kind === 'sideshow');
    const left = waiting ? secondsLeft(waiting.deadline) : null;
    if (v.sideshow.asked === me) {
      prompt.hidden = false;
      prompt.dataset.testid = 'sideshow-prompt';
      prompt.setAttribute('role', 'alertdialog');
      prompt.setAttribute('aria-label', 'sideshow request');
      const accept = el('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'action-accept', onclick: () => send('accept') }, 'Accept: compare');
      const refuse = el('button', { class: 'btn', type: 'button', 'data-testid': 'action-refuse', onclick: () => send('refuse') }, 'Refuse');
      accept.disabled = !can('accept');
      refuse.disabled = !can('refuse');
      prompt.append(
        el('div', { class: 'patti-prompt-text' },
          el('strong', {}, `${nameOf(v.sideshow.asker)} asks you for a sideshow.`),
          el('span', { class: 'patti-long' }, ' Accept and only the two of you see both hands. No answer in time counts as a refusal.')),
        el('div', { class: 'patti-prompt-row' },
          accept, refuse,
          el('span', { class: 'patti-countdown', 'data-testid': 'sideshow-countdown', 'aria-label': 'seconds left to answer' }, left === null ? '' : `${left}s`)),
      );
      if (!prompt.dataset.shownFor || prompt.dataset.shownFor !== String(waiting && waiting.deadline)) {
        prompt.dataset.shownFor = String(waiting && waiting.deadline);
        setTimeout(() => accept.focus(), 0);
      }
    } else if (v.sideshow.asker === me) {
      prompt.hidden = false;
      prompt.dataset.testid = 'sideshow-wait';
      prompt.append(el('div', { class: 'patti-prompt-text' },
        `You asked ${nameOf(v.sideshow.asked)} for a sideshow. Waiting for the answer`, left === null ? '' : ` (${left}s)`, '…'));
    }
  }

  function renderSeen(v) {
    clear(seenBox);
    const seen = v.seen || [];
    seenBox.hidden = !seen.length || v.phase === 'over';
    if (seenBox.hidden) return;
    const latest = seen[seen.length - 1];
    const mine = v.hand || [];
    const outcome = { win: 'your hand is better', lose: 'their hand is better', tie: 'the hands are equal' }[latest.outcome] || '';
    seenBox.append(
      el('div', { class: 'patti-seen-title' }, `Sideshow with ${nameOf(latest.seat)}: ${outcome}`),
      el('div', { class: 'patti-seen-hands' },
        el('div', { class: 'patti-seen-hand' },
          el('div', { class: 'patti-seen-who' }, `${nameOf(latest.seat)} · ${latest.class}`),
          el('div', { class: 'patti-seen-cards', 'data-testid': 'sideshow-their-cards' }, latest.cards.map((c) => cards.renderCard(c, { small: true })))),
        el('div', { class: 'patti-seen-hand' },
          el('div', { class: 'patti-seen-who' }, `You · ${v.class || ''}`),
          el('div', { class: 'patti-seen-cards' }, mine.map((c) => cards.renderCard(c, { small: true })))),
      ),
    );
  }

  function renderResult(v) {
    clear(resultBox);
    resultBox.hidden = v.phase !== 'over' || !v.result;
    if (resultBox.hidden) return;
    const detail = v.result.detail || {};
    const shares = detail.shares || {};
    const points = v.result.points || {};
    const winners = v.winners || [];
    const shown = (v.seats || []).filter((s) => s.shown);
    resultBox.append(el('h3', { class: 'patti-result-title' }, HOW_WORDS[v.how] || 'Game over'));
    if (shown.length) {
      const list = el('ul', { class: 'patti-result-list' });
      for (const seatView of shown) {
        const won = winners.includes(seatView.seat);
        list.append(el('li', { class: `patti-result-row${won ? ' won' : ''}`, 'data-testid': `result-row-${seatView.seat}` },
          el('span', { class: 'patti-result-name' }, nameOf(seatView.seat)),
          el('span', { class: 'patti-result-cards' }, seatView.shown.map((c) => cards.renderCard(c, { small: true }))),
          el('span', { class: 'patti-result-class', 'data-testid': `result-class-${seatView.seat}` }, seatView.class),
          won ? el('span', { class: 'patti-result-crown', 'aria-label': 'winner' }, '★') : null));
      }
      resultBox.append(list);
    }
    const names = winners.map((s) => `${nameOf(s)} ${s === you() ? 'win' : 'wins'} ${formatChips(shares[String(s)] || 0)}`);
    resultBox.append(el('p', { class: 'patti-result-winner', 'data-testid': 'result-winner' },
      `${names.join(', ')} — pot ${formatChips(detail.pot ?? v.pot)}`));
    const me = you();
    if (me && points[String(me)] !== undefined && (v.seats[me - 1] || {}).status !== 'out') {
      const delta = points[String(me)];
      resultBox.append(el('p', { class: `patti-result-me ${delta >= 0 ? 'up' : 'down'}`, 'data-testid': 'result-me' },
        delta >= 0 ? `You gained ${formatChips(delta)} chips` : `You lost ${formatChips(-delta)} chips`));
    }
  }

  function render() {
    const v = view();
    if (!v || v.game !== 'patti') {
      centre.hidden = true;
      mine.hidden = true;
      resultBox.hidden = true;
      return;
    }
    centre.hidden = false;
    renderCentre(v);
    renderSeats(v);
    renderHand(v);
    renderActions(v);
    renderPrompt(v);
    renderSeen(v);
    renderResult(v);
  }

  // A 1 s tick keeps the sideshow countdown and the status line's seconds fresh.
  state.ticker = setInterval(() => {
    const v = view();
    if (!v || v.phase !== 'sideshow') return;
    const waiting = (v.awaited || []).find((a) => a.kind === 'sideshow');
    const left = waiting ? secondsLeft(waiting.deadline) : null;
    const countdown = prompt.querySelector('[data-testid="sideshow-countdown"]');
    if (countdown && left !== null) countdown.textContent = `${left}s`;
    status.textContent = statusText(v);
  }, 1000);

  // What leaving the table now costs, in words (the shell asks before it lets you go); null
  // when you are out of this game already. The server packs for you at your turn.
  function leaveNote() {
    const message = state.message;
    const v = message && message.view;
    const you = message ? message.you : null;
    const mineSeat = v && you ? (v.seats || [])[you - 1] : null;
    if (!mineSeat || mineSeat.status !== 'playing' || v.phase === 'over') return null;
    return `You pack at your turn and lose the ${formatChips(mineSeat.paid || 0)} chips you have put in the pot (and any you would still have to put in before then).`;
  }

  return {
    leaveNote,
    update(message) {
      if (state.message && message.info && state.message.info && message.info.game_no !== state.message.info.game_no) {
        state.picked = null;
        state.double = false;
        state.shownHand = [];
      }
      state.message = message;
      render();
    },
    destroy() {
      clearInterval(state.ticker);
      document.removeEventListener('keydown', onKey);
      if (stopArrows) stopArrows();
      centre.remove();
      resultBox.remove();
      mine.remove();
      if (state.message && state.message.view && ctx.seatSlot) {
        for (const seatView of state.message.view.seats || []) {
          const slot = ctx.seatSlot(seatView.seat);
          if (slot) clear(slot);
        }
      }
    },
  };
}
