// The leaderboards (#/leaderboard, #/leaderboard/<board>): overall (`all`), each game of the
// catalog (`game:<name>`, named by its label from GET /api/games) and this month
// (`month:<yyyy-mm>`, the month in Berlin, the ladder's clock). A page of GET /api/leaderboard at
// a time, "More" for the next (its `next` cursor); your own line is always shown: highlighted in
// the table when it is on the pages shown, else pinned under it with its rank, or how many of the
// 20 games before a rating you have played.
//
//   renderLeaderboard(root, ctx, board) -> {destroy()}
//   ctx: {api, ui, explain, navigate, me}
//
// data-testid hooks: leaderboard (data-board), board-tabs, board-tab-all, board-tab-game-<game>,
//   board-tab-month, board-select (the same boards in a list, instead of the tabs on a phone),
//   board-title, board-rated (data-rated), board-table, board-row-<account>
//   (data-rank; data-me="true" on your own line), board-empty, board-more, board-me (your line
//   pinned under the table: data-rank, empty before a rating), board-error

import { gameList } from './games/registry.js';
import { RATED_AFTER, berlinMonth, monthName, ownPlace, rankBadge } from './ladder.js';

const PAGE = 20;

export function renderLeaderboard(root, ctx, board = 'all') {
  const { el, clear, formatChips } = ctx.ui;
  let alive = true;
  const state = { lines: [], next: null, me: null, rated: 0 };
  const month = `month:${berlinMonth()}`;

  const tabs = el('nav', { class: 'board-tabs', 'data-testid': 'board-tabs', 'aria-label': 'leaderboards' });
  const select = el('select', { id: 'board-select', 'data-testid': 'board-select', onchange: () => ctx.navigate(hashOf(select.value)) });
  const pick = el('label', { class: 'board-pick', for: 'board-select' }, 'Board', select);
  const title = el('h2', { class: 'board-title', 'data-testid': 'board-title' });
  const rated = el('p', { class: 'muted small board-rated', 'data-testid': 'board-rated' });
  const body = el('tbody');
  const table = el('table', { class: 'board-table', 'data-testid': 'board-table' },
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col', class: 'col-rank' }, '#'),
      el('th', { scope: 'col', class: 'col-name' }, 'Player'),
      el('th', { scope: 'col', class: 'col-num', title: 'average points per game, times 100' }, 'Rating'),
      el('th', { scope: 'col', class: 'col-num' }, 'Games'),
      el('th', { scope: 'col', class: 'col-num', title: 'games won' }, 'Firsts'))),
    body);
  const empty = el('p', { class: 'board-empty muted', 'data-testid': 'board-empty', hidden: true },
    `Nobody is rated here yet: players appear after ${RATED_AFTER} games.`);
  const more = el('button', { class: 'btn board-more', type: 'button', 'data-testid': 'board-more', hidden: true, onclick: () => loadPage(true) }, 'More');
  const mine = el('div', { class: 'board-me', 'data-testid': 'board-me', hidden: true });
  const problem = el('p', { class: 'form-error', 'data-testid': 'board-error', role: 'alert', hidden: true });
  const scroll = el('div', { class: 'board-scroll' }, table, empty);
  clear(root).append(el('section', { class: 'leaderboard', 'data-testid': 'leaderboard', 'data-board': board },
    el('header', { class: 'board-head' },
      el('h1', {}, 'Leaderboards'),
      el('p', { class: 'muted' }, `Players are ranked by rating, their average points per game (times 100), once they have played ${RATED_AFTER} games in rooms of real chips; equal ratings by more games played.`)),
    tabs, pick, title, rated, problem, scroll, mine, el('div', { class: 'board-actions' }, more)));

  drawTabs();
  loadPage(false);

  async function drawTabs() {
    let games = [];
    try {
      games = await gameList();
    } catch {
      games = []; // the overall board and the month's still work
    }
    if (!alive) return;
    const entries = [
      { key: 'all', label: 'Overall', testid: 'board-tab-all' },
      ...games.map((game) => ({ key: `game:${game.name}`, label: game.label || game.name, testid: `board-tab-game-${game.name}` })),
      { key: month, label: `This month (${monthName(month.slice(6))})`, testid: 'board-tab-month' },
    ];
    clear(tabs).append(...entries.map((entry) => el('a', {
      class: 'board-tab', href: hashOf(entry.key), 'data-testid': entry.testid, 'aria-current': entry.key === board ? 'page' : false,
    }, entry.label)));
    clear(select).append(...entries.map((entry) => el('option', { value: entry.key, selected: entry.key === board }, entry.label)));
    if (!entries.some((entry) => entry.key === board)) select.append(el('option', { value: board, selected: true }, board));
    const current = entries.find((entry) => entry.key === board);
    if (board.startsWith('month:')) title.textContent = monthName(board.slice(6));
    else title.textContent = current ? current.label : board;
  }

  async function loadPage(further) {
    more.disabled = true;
    problem.hidden = true;
    const after = further && state.next ? `&after=${encodeURIComponent(state.next)}` : '';
    try {
      const answer = await ctx.api('GET', `/api/leaderboard?board=${encodeURIComponent(board)}&limit=${PAGE}${after}`);
      if (!alive) return;
      state.lines = further ? state.lines.concat(answer.lines) : answer.lines;
      state.next = answer.next;
      state.me = answer.me;
      state.rated = answer.rated;
      draw();
    } catch (error) {
      if (!alive) return;
      problem.hidden = false;
      problem.textContent = ctx.explain(error.code, error.message);
      more.disabled = false;
      if (!further) scroll.hidden = true; // no board to show
    }
  }

  function draw() {
    const me = ctx.me();
    const own = state.me ? state.me.account : me && me.id;
    rated.textContent = `${formatChips(state.rated)} player${state.rated === 1 ? '' : 's'} rated`;
    rated.dataset.rated = state.rated;
    clear(body).append(...state.lines.map((line) => {
      const you = line.account === own;
      return el('tr', { class: you ? 'is-me' : '', 'data-testid': `board-row-${line.account}`, 'data-rank': line.rank, 'data-me': you ? 'true' : false },
        el('td', { class: 'col-rank' }, rankBadge(line.rank)),
        el('td', { class: 'col-name' }, el('span', { class: 'board-name' }, line.name), you ? el('span', { class: 'badge badge-me' }, 'you') : null),
        el('td', { class: 'col-num col-rating' }, String(line.rating)),
        el('td', { class: 'col-num' }, formatChips(line.games)),
        el('td', { class: 'col-num' }, formatChips(line.firsts)));
    }));
    scroll.hidden = false;
    table.hidden = state.lines.length === 0;
    empty.hidden = state.lines.length > 0;
    more.hidden = !state.next;
    more.disabled = false;
    drawMine(me, own);
  }

  // Your own line: in the table (highlighted there), else pinned here.
  function drawMine(me, own) {
    clear(mine);
    const line = state.me;
    const onPage = line && line.rank !== null && state.lines.some((entry) => entry.account === own);
    mine.hidden = Boolean(onPage) || !me;
    if (mine.hidden) return;
    mine.dataset.rank = line && line.rank !== null ? line.rank : '';
    if (me.guest) {
      mine.append(el('p', {}, 'Guests play with practice chips, which are not ranked: sign up to play for the leaderboards.'));
    } else if (line && line.rank !== null) {
      mine.append(...ownPlace(line));
    } else {
      const games = line ? line.games : 0;
      mine.append(el('p', {}, el('strong', {}, 'You are not rated yet: '),
        `${games} of ${RATED_AFTER} games${board === 'all' ? '' : ' on this board'}. Finish games in rooms of real chips to get on it.`));
    }
  }

  function hashOf(key) {
    return key === 'all' ? '#/leaderboard' : `#/leaderboard/${key}`;
  }

  return {
    destroy() {
      alive = false;
    },
  };
}
