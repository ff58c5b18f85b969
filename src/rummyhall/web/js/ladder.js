// The ladder's words and pieces, shared by the profile (js/profile.js), the leaderboards
// (js/leaderboard.js) and the table's level-up moment (js/table.js). Every number comes from the
// server (GET /api/me's `ladder`, GET /api/leaderboard); nothing here knows the level table.
//
//   withArticle(title)            "a Butterfly", "an Ant"
//   ladderOf(me)                  {level, title, gold} of a registered player's /api/me, else null
//   berlinMonth(date?)            "2025-06": the ladder's month (Berlin time), for month:<yyyy-mm>
//   monthName("2025-06")          "June 2025"
//   progressBar(ladder)           the clover bar of a level: into_level of to_next
//   untilText(ms)                 "5 h 03 min 12 s"
//   levelUpCard(before, after, {onProfile})  the level-up moment: a card among the toasts
//
// data-testid hooks: clover-bar (data-into, data-to-next), levelup (data-level), levelup-title,
//   levelup-gold, levelup-profile, levelup-close

import { el, formatChips } from './ui.js';

export const RATED_AFTER = 20; // games before a rating shows (docs/rules/room.md#rating)
const LEVELUP_MS = 12000;

// A rank on a board or a league table; the first three get a medal's colour.
export function rankBadge(rank) {
  return el('span', { class: `rank${rank <= 3 ? ` rank-${rank}` : ''}` }, String(rank));
}

// Your own ranked line, pinned under a board or a league table that does not show it.
export function ownPlace(line) {
  return [
    el('span', { class: 'board-me-label' }, 'Your place'),
    el('span', { class: 'rank' }, `#${line.rank}`),
    el('span', { class: 'board-name' }, line.name),
    el('span', { class: 'board-me-fact' }, `rating ${line.rating}`),
    el('span', { class: 'board-me-fact' }, `${formatChips(line.games)} games`),
    el('span', { class: 'board-me-fact' }, `${formatChips(line.firsts)} firsts`),
  ];
}

export function withArticle(title) {
  return `${/^[aeiou]/i.test(title) ? 'an' : 'a'} ${title}`;
}

export function ladderOf(me) {
  if (!me || !me.ladder) return null;
  return { level: me.ladder.level, title: me.ladder.title, gold: me.gold ?? 0 };
}

export function berlinMonth(date = new Date()) {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit' }).formatToParts(date);
  const part = (type) => parts.find((entry) => entry.type === type).value;
  return `${part('year')}-${part('month')}`;
}

export function monthName(key) {
  const [year, month] = key.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, 15)).toLocaleString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

// The bar of a level: the clover earned since it began, of what it needs (full at the top).
export function progressBar(ladder) {
  const top = !ladder.to_next;
  const share = top ? 1 : Math.max(0, Math.min(1, ladder.into_level / ladder.to_next));
  return el('div', {
    class: 'clover-bar', role: 'progressbar', 'data-testid': 'clover-bar',
    'data-into': ladder.into_level, 'data-to-next': ladder.to_next,
    'aria-valuemin': 0, 'aria-valuemax': top ? 1 : ladder.to_next, 'aria-valuenow': top ? 1 : ladder.into_level,
    'aria-label': top ? 'top level reached' : `${formatChips(ladder.into_level)} of ${formatChips(ladder.to_next)} clover to level ${ladder.level + 1}`,
  }, el('span', { class: 'clover-fill', style: { width: `${(share * 100).toFixed(1)}%` } }));
}

export function untilText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (h) return `${h} h ${two(m)} min ${two(s)} s`;
  if (m) return `${m} min ${two(s)} s`;
  return `${s} s`;
}

// The level-up moment: a card in the toasts' place (under the game's result, which stays in
// view; announced by their live region): "Level 3 — you are now a Butterfly! +55 gold", gone
// after a while or when closed. `before` and `after` are ladderOf(me) values; the gold is what
// the wallet gained between them (levels and titles pay gold).
let shown = null;
export function levelUpCard(before, after, { onProfile } = {}) {
  if (shown) shown.remove();
  const newTitle = after.title !== before.title;
  const gold = after.gold - before.gold;
  const close = () => {
    card.classList.remove('shown');
    clearTimeout(timer);
    setTimeout(() => card.remove(), 250);
    if (shown === card) shown = null;
  };
  const card = el('div', { class: 'toast levelup', 'data-testid': 'levelup', 'data-level': after.level },
    el('div', { class: 'levelup-badge', 'aria-hidden': 'true' }, String(after.level)),
    el('div', { class: 'levelup-text' },
      el('strong', { class: 'levelup-title', 'data-testid': 'levelup-title' },
        `Level ${after.level} — ${newTitle ? `you are now ${withArticle(after.title)}!` : 'you climbed a level!'}`),
      el('span', { class: 'levelup-more' },
        gold > 0 ? el('span', { class: 'levelup-gold', 'data-testid': 'levelup-gold' }, `+${formatChips(gold)} gold`) : null,
        onProfile ? el('button', { class: 'link-button', type: 'button', 'data-testid': 'levelup-profile', onclick: () => { close(); onProfile(); } }, 'See your profile') : null)),
    el('button', { class: 'levelup-close', type: 'button', 'data-testid': 'levelup-close', 'aria-label': 'Close', onclick: close }, '×'));
  (document.getElementById('toasts') || document.body).append(card);
  shown = card;
  requestAnimationFrame(() => card.classList.add('shown'));
  const timer = setTimeout(close, LEVELUP_MS);
  return card;
}
