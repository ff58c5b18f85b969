// Rummy Patti in the history (js/history.js, through the view module's exports): a player's
// outcome of a finished game in chips, and the replay's seats (stack and chips put in; seats that
// had no chips are left out), centre (the pot, the open and the closed card) and result line.

// {text, tone} of `seat` in a finished record: what it won or lost, or "sat out".
export function outcome(record, seat) {
  const result = record && record.result;
  if (!result) return null;
  const won = (result.winners || []).includes(seat);
  const points = (result.points || {})[String(seat)];
  const paid = ((result.detail || {}).paid || {})[String(seat)];
  if (!paid) return { text: 'sat out', tone: 'muted' };
  const delta = Number(points || 0);
  return { text: `${won ? 'Won' : 'Lost'} ${delta >= 0 ? '+' : '−'}${Math.abs(delta).toLocaleString('en-US')} chips`, tone: delta >= 0 ? 'up' : 'down' };
}

export const replay = {
  // A seat that was out with no chips at this game is not drawn.
  skipSeat(seat, view, replayData) {
    return seat.status === 'out' && !((replayData.config || {}).stacks || [])[seat.seat - 1];
  },
  seatLines(seat, view, { el }) {
    const lines = [el('span', {}, `${seat.stack.toLocaleString('en-US')} chips`)];
    if (seat.paid) lines.push(el('span', {}, `in ${seat.paid}`));
    return lines;
  },
  centre(view, { el, cards, pile }) {
    return [
      el('div', { class: 'replay-pot' }, el('span', { class: 'replay-pot-label' }, 'Pot'), el('strong', {}, view.pot.toLocaleString('en-US')),
        el('span', { class: 'muted small' }, `chaal ${view.chaal} · limit ${view.pot_limit.toLocaleString('en-US')}`)),
      pile('Open card', view.open && view.open.length ? cards.renderCard(view.open[0]) : cards.renderBack()),
      pile('Closed card', cards.renderBack({ label: 'closed card' })),
    ];
  },
  resultLine(view, result, names) {
    const detail = result.detail || {};
    return `${names.join(' and ')} took the pot of ${(detail.pot || 0).toLocaleString('en-US')}${detail.how ? ` (${detail.how})` : ''}`;
  },
};
