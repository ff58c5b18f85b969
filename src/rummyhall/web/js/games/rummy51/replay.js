// Rummy 51 in the history (js/history.js, through the view module's exports): a player's outcome
// of a finished game (place, score, chips), and the replay's seats (cards held, opened), centre
// (the stock, the discard pile, the groups on the table) and result line.

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th';
  return `${n}${tail}`;
}

// {text, tone} of `seat` in a finished record: "1st of 4 · −40 · +30 chips".
export function outcome(record, seat) {
  const result = record && record.result;
  if (!result) return null;
  const places = (result.detail || {}).places || {};
  const place = places[String(seat)];
  if (!place) return null;
  let chips = 0;
  for (const posting of result.postings || []) if (posting.account === `seat:${seat}`) chips += posting.amount;
  const parts = [`${ordinal(place.place)} of ${Object.keys(places).length}`, `score ${place.score}`];
  if (place.rummy) parts.push('Rummy!');
  if (chips) parts.push(`${chips > 0 ? '+' : '−'}${Math.abs(chips).toLocaleString('en-US')} chips`);
  return { text: parts.join(' · '), tone: place.place === 1 ? 'up' : 'down' };
}

export const replay = {
  seatLines(seat, view, { el }) {
    const lines = [];
    if (typeof seat.cards === 'number') lines.push(el('span', {}, `${seat.cards} card${seat.cards === 1 ? '' : 's'}`));
    if (seat.opened) lines.push(el('span', {}, 'opened'));
    const place = view.result && ((view.result.detail || {}).places || {})[String(seat.seat)];
    if (place) lines.push(el('span', {}, `${ordinal(place.place)}, score ${place.score}`));
    return lines;
  },
  centre(view, { el, cards, pile }) {
    const open = view.open || [];
    const top = open[open.length - 1];
    const parts = [
      pile('Stock', el('div', { class: 'replay-stack' }, cards.renderBack({ label: `stock, ${view.closed} cards` }), el('span', { class: 'replay-count' }, String(view.closed)))),
      pile('Discard pile', top ? cards.renderCard(top) : el('div', { class: 'replay-empty' })),
    ];
    const table = view.table || [];
    if (table.length) {
      parts.push(el('div', { class: 'r51-replay-table', 'aria-label': 'groups on the table' },
        table.map((group) => el('span', { class: 'h13-mini-group r51-replay-group', title: `group ${group.id}, seat ${group.owner}` },
          group.cards.map((card, i) => cards.renderCard(card, {
            small: true,
            label: group.stands[i] ? `joker standing for ${cards.cardLabel(group.stands[i])}` : undefined,
          }))))));
    }
    return parts;
  },
  resultLine(view, result, names) {
    const detail = result.detail || {};
    if (!names.length) return 'Nobody went out: the stock and the pile ran dry';
    return `${names.join(' and ')} went out${detail.rummy ? ' with a Rummy' : ''}`;
  },
};
