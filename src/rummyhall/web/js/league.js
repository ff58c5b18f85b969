// The leagues (#/league, #/league/<key>): the season now and a live countdown to its end, your
// league and how your last season ended, a tab per league (yours marked), the shown league's
// rules in one line each (who goes up, who goes down, the games a season needs, the prizes) and
// its table (GET /api/league: a page of 50 lines, "More" for the next) with the promotion and
// relegation zones marked row by row, and your own line highlighted (or pinned under the table).
// Every number comes from the server's answer; the tiers' levels (for "the Tundra room opens at
// level 6") from GET /api/rooms.
//
// The zones follow docs/rules/room.md#leagues: only players with the season's `min_games`
// counted games are placed; among them, `promote_at` puts a rating at or above it in the
// promotion zone, `promote_places` the first N of them; `relegate_below` a rating under it in
// the relegation zone, `relegate_places` the last N of them (marked once every line is loaded:
// the answer does not say how many there are). A line short of games is marked "short": it
// drops a league at the end of the season (except in the lowest league).
//
//   renderLeague(root, ctx, key?) -> {destroy()}
//   ctx: {api, ui, explain, navigate, me}
//
// data-testid hooks: league (data-league: the league shown, data-season), league-season,
//   league-countdown (data-ends-at), league-yours (data-league: yours, empty when in none),
//   league-last (data-outcome, data-season; only after a settled season), league-tabs,
//   league-tab-<key> (data-yours="true" on yours), league-select (the same leagues in a list, on
//   a phone), league-title, league-rules, league-rule-up, league-rule-down, league-rule-games,
//   league-rule-prizes, league-table, league-row-<account> (data-rank, data-zone: up, down,
//   short or empty; data-me="true" on your own line), league-empty, league-closed (the top
//   league, empty: it opens when enough players reach it), league-more, league-me (your line
//   pinned under the table: data-rank, empty before a rating), league-error

import { RATED_AFTER, ownPlace, rankBadge } from './ladder.js';

const PAGE = 50;

export function renderLeague(root, ctx, key = null) {
  const { el, clear, formatChips } = ctx.ui;
  let alive = true;
  let ticker = null;
  let reloaded = false;
  const state = { answer: null, lines: [], next: null, tiers: new Map() };

  const section = el('section', { class: 'league', 'data-testid': 'league', 'data-league': key || '' },
    el('p', { class: 'loading' }, 'Loading the leagues…'));
  clear(root).append(section);

  const tabs = el('nav', { class: 'board-tabs league-tabs', 'data-testid': 'league-tabs', 'aria-label': 'leagues' });
  const select = el('select', { id: 'league-select', 'data-testid': 'league-select', onchange: () => ctx.navigate(`#/league/${select.value}`) });
  const pick = el('label', { class: 'board-pick', for: 'league-select' }, 'League', select);
  const title = el('h2', { class: 'board-title league-title', 'data-testid': 'league-title' });
  const rules = el('ul', { class: 'league-rules', 'data-testid': 'league-rules' });
  const legend = el('p', { class: 'league-legend small' });
  const body = el('tbody');
  const table = el('table', { class: 'board-table league-table', 'data-testid': 'league-table' },
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col', class: 'col-rank' }, '#'),
      el('th', { scope: 'col', class: 'col-name' }, 'Player'),
      el('th', { scope: 'col', class: 'col-num', title: 'average points per game this season, times 100' }, 'Rating'),
      el('th', { scope: 'col', class: 'col-num', title: 'counted games this season' }, 'Games'),
      el('th', { scope: 'col', class: 'col-num', title: 'games won' }, 'Firsts'))),
    body);
  const empty = el('div', { class: 'board-empty muted', 'data-testid': 'league-empty', hidden: true });
  const scroll = el('div', { class: 'board-scroll' }, table, empty);
  const more = el('button', { class: 'btn board-more', type: 'button', 'data-testid': 'league-more', hidden: true, onclick: () => loadPage(true) }, 'More');
  const mine = el('div', { class: 'board-me', 'data-testid': 'league-me', hidden: true });
  const problem = el('p', { class: 'form-error', 'data-testid': 'league-error', role: 'alert', hidden: true });
  const season = el('p', { class: 'league-season', 'data-testid': 'league-season' });
  const standing = el('div', { class: 'league-standing' });

  loadTiers();
  loadPage(false);

  async function loadTiers() {
    try {
      const rooms = await ctx.api('GET', '/api/rooms');
      for (const tier of rooms.tiers || []) state.tiers.set(tier.key, tier);
      if (alive && state.answer) drawStanding();
    } catch {
      // the page works without them: a blocked promotion is told without its level
    }
  }

  async function loadPage(further) {
    more.disabled = true;
    problem.hidden = true;
    const after = further && state.next ? `&after=${encodeURIComponent(state.next)}` : '';
    const league = key ? `league=${encodeURIComponent(key)}&` : '';
    try {
      const answer = await ctx.api('GET', `/api/league?${league}limit=${PAGE}${after}`);
      if (!alive) return;
      const first = !state.answer;
      state.answer = answer;
      state.lines = further ? state.lines.concat(answer.lines) : answer.lines;
      state.next = answer.next;
      if (first) layout();
      draw();
    } catch (error) {
      if (!alive) return;
      if (!state.answer) {
        clear(section).append(el('header', { class: 'board-head' }, el('h1', {}, 'Leagues')), problem);
      }
      problem.hidden = false;
      problem.textContent = ctx.explain(error.code, error.message);
      more.disabled = false;
    }
  }

  // The page's frame, once the first answer is in.
  function layout() {
    const answer = state.answer;
    section.dataset.league = answer.league;
    section.dataset.season = answer.season;
    clear(section).append(
      el('header', { class: 'board-head league-head' },
        el('h1', {}, 'Leagues'),
        season,
        el('p', { class: 'muted' }, 'Six leagues, one for each room. Every 15 days a season ends: the best go up a league, the last go down, and the first three places win gold.')),
      standing, tabs, pick, title, rules, legend, problem, scroll, mine, el('div', { class: 'board-actions' }, more));
    countdown();
    drawStanding();
    drawTabs();
    drawRules();
  }

  function leagueName(leagueKey) {
    const found = state.answer.leagues.find((entry) => entry.key === leagueKey);
    return found ? found.name : leagueKey;
  }

  // "Season 23 ends in 4 d 6 h", each second; at the end the page asks again (a new season).
  function countdown() {
    const { answer } = state;
    const time = el('span', { class: 'league-countdown', 'data-testid': 'league-countdown', 'data-ends-at': answer.ends_at });
    clear(season).append(el('strong', {}, `Season ${answer.season}`), ' ends in ', time);
    const tick = () => {
      const left = answer.ends_at - Date.now();
      if (left > 0) {
        time.textContent = leftText(left);
        return;
      }
      time.textContent = 'a moment';
      if (!reloaded) {
        reloaded = true;
        clearInterval(ticker);
        setTimeout(() => { if (alive) ctx.navigate(location.hash || '#/league'); }, 5000); // the rollover runs a little after midnight
      }
    };
    tick();
    clearInterval(ticker);
    ticker = setInterval(tick, 1000);
  }

  // Your league and last season's outcome.
  function drawStanding() {
    const { answer } = state;
    const yours = answer.yours;
    const me = ctx.me();
    const guest = Boolean(me && me.guest);
    const line = el('p', { class: 'league-yours', 'data-testid': 'league-yours', 'data-league': yours || '' });
    if (yours) {
      line.append('You play in the ', el('strong', {}, `${leagueName(yours)} league`),
        yours === answer.league ? ' (below).' : '. ',
        yours === answer.league ? '' : el('a', { href: `#/league/${yours}` }, 'See your league'));
    } else if (guest) {
      line.append('Guests play with practice chips, which count for no league: sign up to play in the leagues.');
    } else if (me) {
      line.append(el('strong', {}, 'Not in a league yet: '), `play a game in any room of real chips and you join the ${leagueName(answer.leagues[0].key)} league.`);
    } else {
      line.append('Sign in to play in the leagues.');
    }
    clear(standing).append(line);
    const last = answer.last;
    if (last) {
      standing.append(el('p', { class: `league-last outcome-${last.outcome}`, 'data-testid': 'league-last', 'data-outcome': last.outcome, 'data-season': last.season },
        el('span', { class: 'league-last-mark', 'aria-hidden': 'true' }, { up: '▲', down: '▼', out: '✕' }[last.outcome] || '●'),
        el('span', { class: 'league-last-text' }, lastText(last, me))));
    }
  }

  function lastText(last, me) {
    const place = last.place ? `${ordinal(last.place)} in ${leagueName(last.league)}` : `${leagueName(last.league)} league`;
    const prize = last.prize ? `, +${formatChips(last.prize)} gold` : '';
    const head = `Season ${last.season}: ${place}, `;
    switch (last.outcome) {
      case 'up':
        return `${head}promoted to ${leagueName(last.to)}${prize}`;
      case 'down':
        return `${head}dropped to ${leagueName(last.to)}${prize}${last.place ? '' : ` (fewer than ${state.answer.min_games} games)`}`;
      case 'out':
        return `${head}out of the tables: no game all season. Play a game in any room to come back.`;
      case 'blocked': {
        const keys = state.answer.leagues.map((entry) => entry.key);
        const above = keys[keys.indexOf(last.league) + 1];
        const tier = above ? state.tiers.get(above) : null;
        const level = me && me.ladder ? me.ladder.level : 0;
        const why = above === keys[keys.length - 1] && tier && level >= tier.level
          ? `the ${leagueName(above)} league opens when enough players reach it`
          : tier ? `the ${tier.name} room opens at level ${tier.level}` : `the ${leagueName(above)} room is not open to you yet`;
        return `${head}stayed: ${why}${prize}`;
      }
      default:
        return `${head}stayed in ${leagueName(last.league)}${prize}`;
    }
  }

  function drawTabs() {
    const { answer } = state;
    clear(tabs).append(...answer.leagues.map((entry) => el('a', {
      class: 'board-tab league-tab', href: `#/league/${entry.key}`, 'data-testid': `league-tab-${entry.key}`,
      'data-yours': entry.key === answer.yours ? 'true' : false, 'aria-current': entry.key === answer.league ? 'page' : false,
    }, entry.name, entry.key === answer.yours ? el('span', { class: 'league-tab-yours', title: 'your league' }, ' · yours') : null)));
    clear(select).append(...answer.leagues.map((entry) => el('option', { value: entry.key, selected: entry.key === answer.league },
      `${entry.name}${entry.key === answer.yours ? ' (yours)' : ''}`)));
  }

  function drawRules() {
    const { answer } = state;
    const keys = answer.leagues.map((entry) => entry.key);
    const index = keys.indexOf(answer.league);
    const rule = answer.leagues[index];
    const above = index + 1 < keys.length ? answer.leagues[index + 1].name : null;
    const below = index > 0 ? answer.leagues[index - 1].name : null;
    title.textContent = `${rule.name} league`;
    let up;
    if (!above) up = 'The top league: nobody goes up from here.';
    else if (rule.promote_at !== null && rule.promote_at !== undefined) up = `From ${rule.promote_at} up: a rating of ${rule.promote_at} or more goes up to ${above}.`;
    else if (rule.promote_places) up = `Top ${rule.promote_places} go up to ${above}.`;
    else up = `Nobody goes up to ${above}.`;
    let down;
    if (!below) down = `Nobody goes down from the ${rule.name} league.`;
    else if (rule.relegate_below !== null && rule.relegate_below !== undefined) down = `Below ${rule.relegate_below} down: a rating under ${rule.relegate_below} goes down to ${below}.`;
    else if (rule.relegate_places) down = `Last ${rule.relegate_places} go down to ${below}.`;
    else down = `Nobody goes down to ${below}.`;
    const games = `${answer.min_games} games this season to count, in the ${rule.name} room or a higher one${below ? `; with fewer you go down to ${below}` : ''}.`;
    const prizes = rule.prizes && rule.prizes.length
      ? `Prizes: ${rule.prizes.map((gold, i) => `${ordinal(i + 1)} ${formatChips(gold)} gold`).join(', ')}, promoted or not.`
      : 'No prizes in this league.';
    clear(rules).append(
      el('li', { class: 'rule-up', 'data-testid': 'league-rule-up' }, el('span', { class: 'rule-mark', 'aria-hidden': 'true' }, '▲'), up),
      el('li', { class: 'rule-down', 'data-testid': 'league-rule-down' }, el('span', { class: 'rule-mark', 'aria-hidden': 'true' }, '▼'), down),
      el('li', { class: 'rule-games', 'data-testid': 'league-rule-games' }, el('span', { class: 'rule-mark', 'aria-hidden': 'true' }, '#'), games),
      el('li', { class: 'rule-prizes', 'data-testid': 'league-rule-prizes' }, el('span', { class: 'rule-mark', 'aria-hidden': 'true' }, '★'), prizes));
    clear(legend).append(...[
      above ? el('span', { class: 'legend-up' }, `promotion zone: up to ${above}`) : null,
      below ? el('span', { class: 'legend-down' }, `relegation zone: down to ${below}`) : null,
      el('span', { class: 'legend-short' }, `short of ${answer.min_games} games: not placed yet`),
    ].filter(Boolean));
  }

  // Each line's zone, by the league's rule; the places count only qualified lines.
  function zones() {
    const { answer } = state;
    const keys = answer.leagues.map((entry) => entry.key);
    const index = keys.indexOf(answer.league);
    const rule = answer.leagues[index];
    const hasAbove = index + 1 < keys.length;
    const hasBelow = index > 0;
    const qualified = state.lines.filter((line) => line.games >= answer.min_games).length;
    const complete = !state.next;
    const result = new Map();
    let place = 0;
    for (const line of state.lines) {
      let zone = '';
      if (line.games < answer.min_games) {
        zone = 'short';
      } else {
        place += 1;
        const up = hasAbove && ((rule.promote_at != null && line.rating >= rule.promote_at) || place <= (rule.promote_places || 0));
        const down = hasBelow && ((rule.relegate_below != null && line.rating < rule.relegate_below)
          || (complete && rule.relegate_places > 0 && place > qualified - rule.relegate_places));
        zone = up ? 'up' : down ? 'down' : '';
      }
      result.set(line.account, { zone, place: zone === 'short' ? null : place });
    }
    return result;
  }

  function draw() {
    const { answer } = state;
    const me = ctx.me();
    const own = answer.me ? answer.me.account : me && me.id;
    const marks = zones();
    const zoneWords = { up: 'promotion zone', down: 'relegation zone', short: `short of ${answer.min_games} games` };
    clear(body).append(...state.lines.map((line) => {
      const you = line.account === own;
      const { zone } = marks.get(line.account);
      return el('tr', {
        class: `${you ? 'is-me ' : ''}${zone ? `zone-${zone}` : ''}`.trim(), 'data-testid': `league-row-${line.account}`,
        'data-rank': line.rank, 'data-zone': zone, 'data-me': you ? 'true' : false,
      },
      el('td', { class: 'col-rank' }, rankBadge(line.rank)),
      el('td', { class: 'col-name' },
        el('span', { class: 'board-name' }, line.name),
        you ? el('span', { class: 'badge badge-me' }, 'you') : null,
        zone === 'short'
          ? el('span', { class: 'zone-tag zone-tag-short', title: zoneWords.short }, `${answer.min_games - line.games} more games`)
          : zone ? el('span', { class: `zone-tag zone-tag-${zone}`, title: zoneWords[zone] },
            el('span', { 'aria-hidden': 'true' }, zone === 'up' ? '▲' : '▼'),
            el('span', { class: 'sr-only' }, ` ${zoneWords[zone]}`)) : null),
      el('td', { class: 'col-num col-rating' }, String(line.rating)),
      el('td', { class: 'col-num' }, formatChips(line.games)),
      el('td', { class: 'col-num' }, formatChips(line.firsts)));
    }));
    table.hidden = state.lines.length === 0;
    empty.hidden = state.lines.length > 0;
    clear(empty);
    const keys = answer.leagues.map((entry) => entry.key);
    if (answer.league === keys[keys.length - 1] && state.lines.length === 0) {
      empty.append(el('p', { 'data-testid': 'league-closed' }, `The ${leagueName(answer.league)} league opens when enough players reach it.`));
    } else {
      empty.append(el('p', {}, `Nobody is on the ${leagueName(answer.league)} table yet this season: players appear after ${RATED_AFTER} counted games.`));
    }
    more.hidden = !state.next;
    more.disabled = false;
    drawMine(me, own);
  }

  // Your line when the table does not show it: only in the league you play in.
  function drawMine(me, own) {
    const { answer } = state;
    clear(mine);
    const line = answer.me;
    const onPage = line && line.rank !== null && state.lines.some((entry) => entry.account === own);
    mine.hidden = Boolean(onPage) || !me || me.guest || answer.yours !== answer.league;
    if (mine.hidden) return;
    mine.dataset.rank = line && line.rank !== null ? line.rank : '';
    if (line && line.rank !== null) {
      mine.append(...ownPlace(line));
    } else {
      const games = line ? line.games : 0;
      mine.append(el('p', {}, el('strong', {}, 'Not on the table yet: '),
        `${games} of ${RATED_AFTER} counted games this season (${answer.min_games} to count for promotion).`));
    }
  }

  return {
    destroy() {
      alive = false;
      clearInterval(ticker);
    },
  };
}

// "4 d 6 h", "5 h 12 min", "3 min 20 s", "12 s"
export function leftText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${s} s`;
  return `${s} s`;
}

export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : { 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th';
  return `${n}${suffix}`;
}
