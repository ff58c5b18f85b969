// Your profile (#/profile): where you stand on the ladder (level, title, the clover bar to the
// next level and the next title), your chips (silver against the silver limit, gold), games and
// rating, and the daily bonus: collect it (POST /api/daily-bonus), see what it was made of and
// what the silver limit cut off, and the time to the next one (Berlin midnight, from the server).
// Then the achievements (each milestone, the gold it pays, the date you earned it) and your invite
// link for friends (/#/join/<name>: copy it; how many you invited and were paid for), from GET
// /api/achievements. A guest has no ladder: the page says so and offers an account.
//
//   renderProfile(root, ctx) -> {destroy()}
//   ctx: {api, ui, explain, navigate, me, refreshMe, signUp}
//
// data-testid hooks: profile, profile-guest (a guest's notice), profile-level (data-level),
//   profile-title, clover-bar (js/ladder.js), profile-clover, profile-to-next, profile-next-title,
//   profile-silver (data-chips), profile-silver-limit (data-limit), profile-gold (data-gold),
//   profile-games (data-games), profile-rating (data-rating, empty before 20 games),
//   profile-leaderboard, bonus (the daily bonus card, data-available), bonus-collect,
//   bonus-breakdown, bonus-base, bonus-streak, bonus-level, bonus-total, bonus-credited,
//   bonus-lost (only when the limit cut something off), bonus-collected, bonus-next (data-at),
//   achievements (the catalogue of GET /api/achievements: data-earned, how many),
//   achievement-<key> (data-earned="true" with achievement-date-<key>, else "false"),
//   achievement-gold-<key>, invite-friend (the invite card), friend-link (your /#/join/<name>
//   link, read-only), friend-copy, friend-invited (data-invited, data-paid), profile-league

import { RATED_AFTER, progressBar, untilText } from './ladder.js';

export function renderProfile(root, ctx) {
  const { el, clear, formatChips, toast, copyText } = ctx.ui;
  let alive = true;
  let ticker = null;
  let bonus = null; // today's POST /api/daily-bonus answer, once collected on this page
  let reloadedFor = null; // the next_bonus_at already asked again about
  let extras = null; // GET /api/achievements, once asked
  const page = el('section', { class: 'profile', 'data-testid': 'profile' }, el('p', { class: 'loading' }, 'Loading your profile…'));
  clear(root).append(page);

  async function load() {
    const me = await ctx.refreshMe();
    if (!alive || !me) return;
    draw(me);
    if (me.guest || !me.ladder) return;
    try {
      extras = await ctx.api('GET', '/api/achievements');
    } catch (error) {
      extras = { error };
    }
    if (alive) drawExtras();
  }

  // ---- achievements and invitations (GET /api/achievements) ----------------------------------
  const extraGrid = el('div', { class: 'profile-grid profile-extras' });

  function drawExtras() {
    clear(extraGrid);
    if (!extras) return;
    if (extras.error) {
      extraGrid.append(el('p', { class: 'form-error', role: 'alert' }, ctx.explain(extras.error.code, extras.error.message)));
      return;
    }
    extraGrid.append(achievementsCard(extras.achievements), inviteCard(extras.invite));
  }

  function achievementsCard(list) {
    const earned = list.filter((entry) => entry.earned_at).length;
    const day = (iso) => new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
    return el('article', { class: 'profile-card achievements-card', 'data-testid': 'achievements', 'data-earned': earned },
      el('div', { class: 'card-head' },
        el('h2', {}, 'Achievements'),
        el('span', { class: 'muted small' }, `${earned} of ${list.length} earned`)),
      el('ul', { class: 'achievement-list' }, ...list.map((entry) => {
        const got = Boolean(entry.earned_at);
        return el('li', { class: `achievement${got ? ' is-earned' : ''}`, 'data-testid': `achievement-${entry.key}`, 'data-earned': got ? 'true' : 'false' },
          el('span', { class: 'achievement-mark', 'aria-hidden': 'true' }, got ? '✓' : ''),
          el('div', { class: 'achievement-text' },
            el('strong', {}, entry.title, el('span', { class: 'sr-only' }, got ? ' (earned)' : ' (not earned yet)')),
            el('span', { class: 'muted small' }, entry.description),
            got ? el('span', { class: 'achievement-date small', 'data-testid': `achievement-date-${entry.key}` }, `Earned ${day(entry.earned_at)}`) : null),
          el('span', { class: 'achievement-gold', 'data-testid': `achievement-gold-${entry.key}`, title: 'gold chips, paid once' }, `${formatChips(entry.gold)} gold`));
      })),
      el('p', { class: 'muted small' }, 'Each achievement pays its gold once, when you earn it.'));
  }

  function inviteCard(invite) {
    const link = `${location.origin}${location.pathname}#/join/${encodeURIComponent(invite.invited_by)}`;
    const field = el('input', {
      class: 'mono friend-link', readonly: true, value: link, 'data-testid': 'friend-link', 'aria-label': 'your invite link',
      onfocus: (event) => event.target.select(),
    });
    const copy = el('button', {
      class: 'btn btn-primary', type: 'button', 'data-testid': 'friend-copy',
      onclick: async () => toast(await copyText(link) ? 'Your invite link is copied.' : 'Select the link and copy it.', 'success'),
    }, 'Copy link');
    return el('article', { class: 'profile-card invite-card', 'data-testid': 'invite-friend' },
      el('h2', {}, 'Invite a friend'),
      el('p', {}, `Send a friend your link. When they sign up through it and finish ${formatChips(invite.games)} games in rooms of real chips, you get ${formatChips(invite.gold)} gold.`),
      el('div', { class: 'friend-row' }, field, copy),
      el('p', { class: 'friend-invited', 'data-testid': 'friend-invited', 'data-invited': invite.invited, 'data-paid': invite.paid },
        el('strong', {}, `${formatChips(invite.invited)} invited`), `, paid for ${formatChips(invite.paid)}`),
      el('p', { class: 'muted small' }, `${formatChips(invite.gold)} gold each once they finish ${formatChips(invite.games)} games, for up to ${formatChips(invite.most)} friends.`));
  }

  function draw(me) {
    clearInterval(ticker);
    ticker = null;
    clear(page);
    if (me.guest || !me.ladder) {
      page.append(el('div', { class: 'panel notice', 'data-testid': 'profile-guest' },
        el('h1', {}, 'Climb the ladder with an account'),
        el('p', {}, 'Guests play with practice chips, which earn no clover, no levels and no rating. Sign up to collect a daily bonus, climb the levels and appear on the leaderboards.'),
        el('button', { class: 'btn btn-primary', type: 'button', onclick: () => ctx.signUp() }, 'Sign up')));
      return;
    }
    const ladder = me.ladder;
    page.append(
      el('header', { class: 'profile-head' },
        el('h1', {}, me.name),
        el('p', { class: 'muted' }, 'Your place on the ladder: finished games in rooms of real chips earn clover points, and clover brings levels, titles and the rooms they open.')),
      el('div', { class: 'profile-grid' }, levelCard(ladder), bonusCard(ladder), chipsCard(me, ladder), playCard(ladder)),
      extraGrid);
    drawExtras();
  }

  function levelCard(ladder) {
    const top = !ladder.to_next;
    const left = ladder.to_next - ladder.into_level;
    return el('article', { class: 'profile-card profile-level-card' },
      el('div', { class: 'level-line' },
        el('div', { class: 'level-medal', 'data-testid': 'profile-level', 'data-level': ladder.level, 'aria-label': `level ${ladder.level}` },
          el('span', { class: 'level-medal-word', 'aria-hidden': 'true' }, 'level'),
          el('span', { class: 'level-medal-number', 'aria-hidden': 'true' }, String(ladder.level))),
        el('div', {},
          el('h2', { class: 'level-title', 'data-testid': 'profile-title' }, ladder.title),
          el('p', { class: 'muted small' }, `Level ${ladder.level} · ${formatChips(ladder.clover)} clover earned in all`))),
      progressBar(ladder),
      el('p', { class: 'clover-numbers' },
        el('span', { 'data-testid': 'profile-clover' }, top ? 'Top level' : `${formatChips(ladder.into_level)} / ${formatChips(ladder.to_next)} clover`),
        el('span', { 'data-testid': 'profile-to-next' }, top ? 'the top of the ladder' : `${formatChips(left)} clover to level ${ladder.level + 1}`)),
      el('p', { class: 'small', 'data-testid': 'profile-next-title' },
        ladder.next_title
          ? `Next title: ${ladder.next_title} at level ${ladder.next_title_level}.`
          : `You hold the highest title: ${ladder.title}.`),
      el('p', { class: 'muted small' }, 'Each new level pays gold chips, and a new title more. Higher rooms multiply the clover of their games.'));
  }

  function chipsCard(me, ladder) {
    const silver = me.chips ?? 0;
    const gold = me.gold ?? 0;
    return el('article', { class: 'profile-card' },
      el('h2', {}, 'Your chips'),
      el('dl', { class: 'profile-facts' },
        el('div', { class: 'fact-silver' },
          el('dt', {}, 'Silver chips'),
          el('dd', {},
            el('span', { 'data-testid': 'profile-silver', 'data-chips': silver }, formatChips(silver)),
            el('span', { class: 'fact-of', 'data-testid': 'profile-silver-limit', 'data-limit': ladder.silver_limit }, ` / ${formatChips(ladder.silver_limit)} silver`))),
        el('div', { class: 'fact-gold' },
          el('dt', {}, 'Gold chips'),
          el('dd', { 'data-testid': 'profile-gold', 'data-gold': gold }, `${formatChips(gold)} gold`))),
      el('p', { class: 'muted small' },
        `Your silver limit is ${formatChips(ladder.silver_limit)} at level ${ladder.level}, and grows with each level. It caps the daily bonus only: the bonus never fills your silver above it, and chips you win at the tables are never cut off.`),
      el('p', { class: 'muted small' }, 'Gold chips come with new levels and titles. At the tables both are worth the same; silver is used first.'));
  }

  function playCard(ladder) {
    const rated = ladder.rating !== null && ladder.rating !== undefined;
    return el('article', { class: 'profile-card' },
      el('h2', {}, 'Your games'),
      el('dl', { class: 'profile-facts' },
        el('div', {},
          el('dt', {}, 'Games played'),
          el('dd', { 'data-testid': 'profile-games', 'data-games': ladder.games }, formatChips(ladder.games))),
        el('div', {},
          el('dt', {}, 'Rating'),
          el('dd', { 'data-testid': 'profile-rating', 'data-rating': rated ? ladder.rating : '' },
            rated ? String(ladder.rating) : el('span', { class: 'fact-note' }, `rated after ${RATED_AFTER} games (${Math.min(ladder.games, RATED_AFTER)} of ${RATED_AFTER})`)))),
      el('p', { class: 'muted small' }, 'Your rating is your average points per game, times 100: how well you play, not how much. Practice games do not count.'),
      el('div', { class: 'profile-links' },
        el('a', { class: 'btn btn-ghost btn-small', href: '#/leaderboard', 'data-testid': 'profile-leaderboard' }, 'See the leaderboards'),
        el('a', { class: 'btn btn-ghost btn-small', href: '#/league', 'data-testid': 'profile-league' }, 'Your league')));
  }

  // ---- the daily bonus ------------------------------------------------------------------
  function bonusCard(ladder) {
    const card = el('article', { class: 'profile-card bonus-card', 'data-testid': 'bonus', 'data-available': ladder.bonus_available ? 'true' : 'false' },
      el('h2', {}, 'Daily bonus'));
    if (ladder.bonus_available) {
      const button = el('button', { class: 'btn btn-primary bonus-collect', type: 'button', 'data-testid': 'bonus-collect' }, 'Collect daily bonus');
      button.addEventListener('click', () => collect(button));
      card.append(
        el('p', {}, 'Your daily bonus of silver chips is ready: a base amount, more for each day in a row you collect it, and your level\'s bonus.'),
        button);
    } else {
      card.append(el('p', { class: 'bonus-collected', 'data-testid': 'bonus-collected' },
        el('span', { class: 'bonus-tick', 'aria-hidden': 'true' }, '✓'),
        ` Collected today${ladder.bonus_streak > 1 ? ` · ${ladder.bonus_streak} days in a row` : ''}.`));
    }
    if (bonus && !ladder.bonus_available) card.append(breakdown(bonus, ladder.level)); // (not a day old)
    if (!ladder.bonus_available) card.append(countdown(ladder.next_bonus_at));
    card.append(el('p', { class: 'muted small' }, 'A new bonus is ready every day at midnight, Berlin time. The bonus only fills your silver up to your silver limit.'));
    return card;
  }

  function breakdown(answer, level) {
    const row = (label, value, testid, cls = '') => el('div', { class: cls, 'data-testid': testid }, el('dt', {}, label), el('dd', {}, value));
    const days = `${answer.streak} day${answer.streak === 1 ? '' : 's'} in a row`;
    return el('div', { class: 'bonus-breakdown', 'data-testid': 'bonus-breakdown' },
      el('dl', {},
        row('Base', `+${formatChips(answer.base)}`, 'bonus-base'),
        row(`Streak bonus (${days})`, `+${formatChips(answer.streak_bonus)}`, 'bonus-streak'),
        row(`Level bonus (level ${level})`, `+${formatChips(answer.level_bonus)}`, 'bonus-level'),
        row('Total', `${formatChips(answer.total)} silver`, 'bonus-total', 'bonus-sum'),
        row('Added to your silver', `${formatChips(answer.credited)}`, 'bonus-credited', 'bonus-sum')),
      answer.lost > 0
        ? el('p', { class: 'bonus-lost', 'data-testid': 'bonus-lost' },
          `${formatChips(answer.lost)} lost: your silver is at its limit (${formatChips(answer.limit)}).`)
        : null);
  }

  async function collect(button) {
    button.disabled = true;
    try {
      bonus = await ctx.api('POST', '/api/daily-bonus');
      if (!alive) return;
      toast(bonus.credited > 0 ? `${formatChips(bonus.credited)} silver chips added to your wallet.` : 'Daily bonus collected: your silver is already at its limit.', 'success');
    } catch (error) {
      if (!alive) return;
      toast(ctx.explain(error.code, error.message), 'error');
    }
    const me = await ctx.refreshMe(); // the top bar's chips too
    if (alive && me) draw(me);
  }

  function countdown(at) {
    const text = el('span', { class: 'bonus-next-time' });
    const line = el('p', { class: 'bonus-next', 'data-testid': 'bonus-next', 'data-at': at }, 'Next bonus in ', text);
    const update = () => {
      const left = at - Date.now();
      if (left > 0) {
        text.textContent = untilText(left);
        return;
      }
      line.textContent = 'Your next bonus is ready.';
      if (reloadedFor !== at) { // once per midnight: the server says whether it is there
        reloadedFor = at;
        load();
      }
    };
    update();
    ticker = setInterval(update, 1000);
    return line;
  }

  load();
  return {
    destroy() {
      alive = false;
      clearInterval(ticker);
    },
  };
}
