// The end of a rummy deal: every hand's groups and points, the chips won or lost (points
// tables) or the running totals and eliminations (pools), and any columns the game adds.
//
//   resultData(message, deal) -> {deal, winner, rows: [{seat, name, how, groups, finish, points,
//                                 chips, total, eliminated}], pool, over, you, summary (the
//                                 deal's summary, view.history's entry), view}
//   renderResult(data, {cards, ui, onClose, isWild?, mark?, columns?}) -> HTMLElement
//     isWild(card)        whether a card is wild (its ring and star); default: a printed joker or
//                         a card of the view's wild rank
//     mark(node, card)    adds the game's marks to a small card (badges); default: none
//     columns             extra columns after Points: [{key, heading, title?, cell(row, data) ->
//                         text | Node | null}], cells with data-testid "result-<key>"
//
// Test hooks: data-testid="result" (the panel, data-deal, data-over), "result-row" (data-seat),
// "result-points", "result-chips" (data-amount: the chips the result pays the seat; in a pool
// the prize), "result-total" (data-total), "result-eliminated", "result-close",
// "result-headline"; pools: "result-entry" (data-amount: the entry fee), "result-pot"
// (data-pot, data-rake).

const HOW_WORDS = {
  declared: 'declared',
  'last player left': 'last player in',
  shown: 'showed',
  arrangement: 'timed out (own groups)',
  'all cards': 'timed out (every card)',
  'first drop': 'first drop',
  'middle drop': 'middle drop',
  'wrong declaration': 'wrong declaration',
  'missed turns': 'missed 3 turns',
};

export function howWords(how) {
  return HOW_WORDS[how] || how || '';
}

export function resultData(message, summary) {
  const view = message.view || {};
  const info = message.info || {};
  const seats = info.seats || [];
  const result = view.result;
  const pool = view.pool || null;
  const chips = new Map();
  if (result && view.mode === 'points') {
    for (const posting of result.postings || []) {
      const match = /^seat:(\d+)$/.exec(posting.account);
      if (match) chips.set(Number(match[1]), (chips.get(Number(match[1])) || 0) + posting.amount);
    }
  } else if (result && pool) {
    for (const posting of result.postings || []) {
      const match = /^seat:(\d+)$/.exec(posting.account);
      if (match) chips.set(Number(match[1]), (chips.get(Number(match[1])) || 0) + posting.amount);
    }
  }
  const order = Object.keys(summary.scores || {}).map(Number);
  const rows = order.map((seat) => {
    const occupant = seats[seat - 1];
    const viewSeat = (view.seats || []).find((entry) => entry.seat === seat) || {};
    return {
      seat,
      name: occupant ? occupant.name : `Seat ${seat}`,
      bot: Boolean(occupant && occupant.bot),
      how: summary.how ? summary.how[String(seat)] : null,
      groups: (summary.shown && summary.shown[String(seat)]) || null,
      finish: seat === summary.winner ? viewSeat.finish || null : null,
      points: summary.scores[String(seat)],
      dealShow: (summary.deal_show || []).includes(seat),
      chips: chips.has(seat) ? chips.get(seat) : null,
      total: summary.totals ? summary.totals[String(seat)] : null,
      eliminated: (summary.eliminated || []).includes(seat),
    };
  });
  rows.sort((a, b) => (a.seat === summary.winner ? -1 : b.seat === summary.winner ? 1 : a.points - b.points));
  return {
    key: `${info.id}.${info.game_no}.${summary.deal}`,
    deal: summary.deal,
    winner: summary.winner,
    rows,
    pool,
    over: Boolean(result),
    result,
    you: message.you,
    mode: view.mode,
    wildRank: view.wild_rank || null,
    summary,
    view,
  };
}

export function renderResult(data, { cards, ui, onClose, isWild = null, mark = (node) => node, columns = [] }) {
  const { el } = ui;
  const wild = isWild || ((card) => card === 'JK' || (data.wildRank !== null && card.slice(0, -1) === data.wildRank));
  const small = (card, opts = {}) => mark(cards.renderCard(card, { small: true, ...opts }), card);
  const mine = data.rows.find((row) => row.seat === data.you);
  let headline = `Deal ${data.deal} is over`;
  if (mine) {
    if (mine.chips !== null && data.over && data.mode === 'points') {
      headline = mine.chips > 0 ? `You won ${ui.formatChips(mine.chips)} chips`
        : mine.chips < 0 ? `You lost ${ui.formatChips(-mine.chips)} chips` : 'You broke even';
    } else if (data.over && data.pool) {
      const winnerRow = data.rows.find((row) => row.seat === data.winner);
      headline = data.winner === data.you
        ? `You won the pool: ${ui.formatChips(mine.chips || 0)} chips`
        : `${winnerRow ? winnerRow.name : 'Another player'} won the pool`;
    } else if (data.winner === data.you) {
      headline = 'You won the deal!';
    } else {
      headline = `You scored ${mine.points} points`;
    }
  }
  const groupsOf = (row) => (row.groups
    ? el('div', { class: 'h13-mini-groups' }, row.groups.map((group) => el('span', { class: 'h13-mini-group' },
      group.map((card) => small(card, { wild: wild(card) })))),
    row.finish ? el('span', { class: 'h13-mini-group finish', title: 'the finish card' }, small(row.finish)) : null)
    : el('span', { class: 'muted' }, row.how && row.how.includes('drop') ? 'cards not shown' : '—'));
  const table = el('table', { class: 'h13-result-table' },
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col' }, 'Player'),
      el('th', { scope: 'col', class: 'cards' }, 'Cards'),
      el('th', { scope: 'col', class: 'num' }, 'Points'),
      columns.map((column) => el('th', { scope: 'col', class: 'num', title: column.title || null }, column.heading)),
      data.pool ? el('th', { scope: 'col', class: 'num' }, 'Total') : null,
      data.over ? el('th', { scope: 'col', class: 'num' }, data.pool ? 'Prize' : 'Chips') : null)),
    el('tbody', {}, data.rows.map((row) => el('tr', {
      class: `h13-result-row${row.seat === data.winner ? ' winner' : ''}${row.seat === data.you ? ' you' : ''}${row.eliminated ? ' eliminated' : ''}`,
      'data-testid': 'result-row',
      'data-seat': row.seat,
    },
    el('th', { scope: 'row', class: 'who' }, el('div', { class: 'h13-who' },
      el('span', { class: 'name' }, row.seat === data.you ? `${row.name} (you)` : row.name),
      row.seat === data.winner ? el('span', { class: 'badge badge-win' }, 'winner') : null,
      el('span', { class: 'how' }, howWords(row.how) + (row.dealShow ? ' · halved (no turn played)' : '')),
      row.eliminated ? el('span', { class: 'badge badge-out', 'data-testid': 'result-eliminated' }, 'eliminated') : null,
      row.groups ? el('div', { class: 'h13-who-cards' }, groupsOf(row)) : null)),
    el('td', { class: 'cards' }, groupsOf(row)),
    el('td', { class: 'num', 'data-testid': 'result-points' }, String(row.points)),
    columns.map((column) => {
      const value = column.cell(row, data);
      return el('td', { class: 'num', 'data-testid': `result-${column.key}` }, value === null || value === undefined ? '' : value);
    }),
    data.pool ? el('td', {
      class: `num total${row.total !== null && row.total >= data.pool.elimination ? ' out' : ''}`,
      'data-testid': 'result-total',
      'data-total': row.total === null ? '' : row.total,
    }, row.total === null ? '' : `${row.total}/${data.pool.elimination}`) : null,
    data.over ? el('td', {
      class: `num chips ${row.chips > 0 ? 'up' : row.chips < 0 ? 'down' : ''}`,
      'data-testid': 'result-chips',
      'data-amount': row.chips === null ? 0 : row.chips,
    }, row.chips === null ? '0' : `${row.chips > 0 ? '+' : ''}${ui.formatChips(row.chips)}`) : null))));
  const detail = data.result && data.result.detail ? data.result.detail : null;
  const poolNote = data.pool && data.over && detail
    ? el('p', { class: 'h13-result-money small' },
      el('span', { 'data-testid': 'result-entry', 'data-amount': data.pool.entry_fee },
        `Entry ${ui.formatChips(data.pool.entry_fee)} chips a player (again on a rejoin)`),
      ' · ',
      el('span', { 'data-testid': 'result-pot', 'data-pot': detail.pot, 'data-rake': detail.rake },
        `pot ${ui.formatChips(detail.pot)}, house share ${ui.formatChips(detail.rake)}, prize ${ui.formatChips(detail.pot - detail.rake)}`))
    : null;
  const panel = el('section', {
    class: 'h13-result',
    'data-testid': 'result',
    'data-deal': data.deal,
    'data-over': data.over ? 'true' : 'false',
    role: 'dialog',
    'aria-modal': 'false',
    'aria-label': `Result of deal ${data.deal}`,
  },
  el('header', { class: 'h13-result-head' },
    el('h2', { 'data-testid': 'result-headline' }, headline),
    el('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'result-close', onclick: onClose }, 'Close')),
  el('div', { class: 'h13-result-scroll' }, table),
  data.pool && !data.over ? el('p', { class: 'muted small' }, `Scores add up across deals; ${data.pool.elimination} points or more is out. The next deal starts in a moment.`) : null,
  poolNote);
  return panel;
}
