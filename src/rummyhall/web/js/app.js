// The page: a hash router, the top bar (name + chips, always visible), the sign-in screen and
// the lobby. Routes:
//   #/              sign-in screen (signed out) or the lobby
//   #/table/<id>    a table (js/table.js); a reload comes back to it
//   #/invite/<code> the private table of an invite link, with a "take a seat" button
//   #/history       your last games (js/history.js)   #/hand/<id>  one game's replay
//   #/profile       your level, chips, rating and daily bonus (js/profile.js)
//   #/leaderboard[/<board>]  the leaderboards (js/leaderboard.js): all, game:<name>, month:<yyyy-mm>
//   #/league[/<key>]  the league season: your league, the zones, last season (js/league.js)
//   #/join/<name>   a friend's invite link: signed out, the sign-in screen says who invited you and
//                   Sign up sends invited_by; signed in, the lobby
//
// data-testid hooks: topbar, player-name, account (a player's name: opens account-dialog with
//   password-old, password-new, password-error, password-change, password-cancel), chips (real chips; not shown to a guest, who holds
//   none), practice-chips, practice-refill (shown when practice chips run low), nav-lobby,
//   nav-history, nav-profile (not for a guest), nav-leaderboard, nav-league, nav-more (a narrow
//   screen's menu button: Profile, Leaderboards and Leagues fold into it), bonus-dot (the daily
//   bonus is ready), logout,
//   signin, signin-name, signin-password, signin-login, signin-register, signin-guest,
//   signin-error, signin-invited (a join link's "Invited by <name>", data-name), lobby, guest-notice (a guest: what practice chips are, real chips need an
//   account), guest-sign-up, game-<game>, rooms-<game>-practice / rooms-<game>-chips (a game's
//   practice rooms and rooms for real chips; gold twins are not shown), room-<key>
//   (data-currency), practice-badge-<key>, gold-note-<key> (a player with gold: the room plays
//   gold when their silver runs short), gold-chips (the top bar's gold),
//   fact-cost-<key> / fact-buy-in-<key> /
//   fact-min-stack-<key> (a room's money: entry fee, point value or boot; buy-in; seat minimum),
//   quick-seat-<key>, create-private-<key>, needs-account-<key> (instead of those two, for a
//   guest in a room for real chips),
//   tables-<key>, table-row-<id>, watch-<id>, join-<id>, your-tables, your-table-<id>,
//   rejoin-<id>, leave-<id>, elsewhere-dialog (elsewhere-go, elsewhere-also),
//   invite-input, invite-open, invite-dialog, invite-link, invite-copy, invite-go,
//   how-to-play-<game> (opens the game's guide: js/howto.js)
//
// The games come from GET /api/games (js/games/registry.js): their names, their blurbs, and
// from each game's view module how its rooms are headed (roomHeading) and what leaving in the
// middle of a game gives up (givingUp); this file names no game.

import { api, ApiError } from './api.js';
import { explain } from './errors.js';
import { el, clear, toast, formatChips, openDialog, confirmDialog, copyText } from './ui.js';
import * as ui from './ui.js';
import * as cards from './cards.js';
import { TableSocket } from './socket.js';
import { renderTable } from './table.js';
import { howToPlayButton } from './howto.js';
import { sitWithConsent } from './seating.js';
import { gameList, gameViews, loadGameStyles } from './games/registry.js';

const root = document.getElementById('app');
const topbar = document.getElementById('topbar');

const app = {
  me: null,
  games: [], // GET /api/games, asked on start
  socket: null,
  screen: null, // {destroy()} of the current screen
  routeToken: 0,
  navigate(hash, { replace = false } = {}) {
    if (replace) {
      history.replaceState(null, '', hash);
      route();
    } else if (location.hash === hash) {
      route();
    } else {
      location.hash = hash;
    }
  },
  async refreshMe() {
    try {
      app.me = await api('GET', '/api/me');
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        signedOut();
        return null;
      }
      return app.me;
    }
    drawTopbar();
    return app.me;
  },
};
window.rummyhall = app; // for debugging and tests

// ---- the top bar --------------------------------------------------------------------------
let topbarRoute = null; // the route the top bar was last drawn for
function drawTopbar() {
  // Drawn again for new wallet figures (refreshMe) the menu stays as it was; a new page closes it.
  const route = location.hash || '#/';
  const keepOpen = route === topbarRoute && Boolean(topbar.querySelector('.nav.open'));
  topbarRoute = route;
  clear(topbar);
  const brand = el('a', { class: 'brand', href: '#/', 'aria-label': 'Rummy Hall, the lobby' },
    el('span', { class: 'brand-mark', 'aria-hidden': 'true' }, '♠'), el('span', { class: 'brand-name' }, 'Rummy Hall'));
  topbar.append(brand);
  if (!app.me) return;
  const current = (...prefixes) => (prefixes.some((prefix) => route.startsWith(prefix)) ? 'page' : false);
  // Profile (a registered player's: a guest has no ladder), Leaderboards and Leagues: links like the
  // others on a wide screen; on a narrow one they fold into the menu button's list. A dot says
  // the daily bonus is ready.
  const bonusReady = Boolean(app.me.ladder && app.me.ladder.bonus_available);
  const dot = () => (bonusReady ? el('span', { class: 'nav-dot', 'data-testid': 'bonus-dot', title: 'your daily bonus is ready' }) : null);
  const extra = el('div', { class: 'nav-more-list', id: 'nav-more-list' },
    app.me.guest ? null : el('a', { href: '#/profile', 'data-testid': 'nav-profile', class: 'nav-link', 'aria-current': current('#/profile') },
      'Profile', dot(), bonusReady ? el('span', { class: 'sr-only' }, ' (daily bonus ready)') : null),
    el('a', { href: '#/leaderboard', 'data-testid': 'nav-leaderboard', class: 'nav-link', 'aria-current': current('#/leaderboard') }, 'Leaderboards'),
    el('a', { href: '#/league', 'data-testid': 'nav-league', class: 'nav-link', 'aria-current': current('#/league') }, 'Leagues'));
  const toggle = el('button', {
    class: 'nav-more', type: 'button', 'data-testid': 'nav-more', 'aria-expanded': 'false', 'aria-controls': 'nav-more-list',
    'aria-label': 'More: profile, leaderboards and leagues', title: 'Profile, leaderboards and leagues',
    onclick: (event) => {
      event.stopPropagation();
      const open = !nav.classList.contains('open');
      nav.classList.toggle('open', open);
      toggle.setAttribute('aria-expanded', String(open));
    },
  }, el('span', { class: 'nav-more-bars', 'aria-hidden': 'true' }), dot());
  const nav = el('nav', { class: 'nav', 'aria-label': 'main' },
    el('a', { href: '#/', 'data-testid': 'nav-lobby', class: 'nav-link', 'aria-current': route === '#/' ? 'page' : false }, 'Lobby'),
    el('a', { href: '#/history', 'data-testid': 'nav-history', class: 'nav-link', 'aria-current': current('#/history', '#/hand') }, 'History'),
    el('div', { class: 'nav-more-wrap' }, toggle, extra));
  if (keepOpen) {
    nav.classList.add('open');
    toggle.setAttribute('aria-expanded', 'true');
  }
  // The wallets: silver and gold chips (a guest holds none, so none are shown) and practice
  // chips, always named as such; a refill button when practice chips run low.
  const real = app.me.guest ? null : el('span', {
    class: 'chips-pill', 'data-testid': 'chips', 'data-chips': app.me.chips,
    'aria-label': `${formatChips(app.me.chips)} silver chips in your wallet`, title: 'Silver chips: the daily bonus fills them, and the tables play them first.',
  }, el('span', { class: 'chip-icon', 'aria-hidden': 'true' }), formatChips(app.me.chips));
  const gold = app.me.guest ? null : el('span', {
    class: 'chips-pill chips-gold', 'data-testid': 'gold-chips', 'data-chips': app.me.gold ?? 0,
    'aria-label': `${formatChips(app.me.gold ?? 0)} gold chips in your wallet`, title: 'Gold chips: played at a room\'s gold tables once your silver runs short.',
  }, el('span', { class: 'chip-icon chip-icon-gold', 'aria-hidden': 'true' }), formatChips(app.me.gold ?? 0));
  const practice = el('span', {
    class: `chips-pill chips-practice${app.me.guest ? '' : ' chips-secondary'}`, 'data-testid': 'practice-chips', 'data-chips': app.me.practice ?? 0,
    'aria-label': `${formatChips(app.me.practice ?? 0)} practice chips in your wallet`,
    title: 'Practice chips: free and worth nothing, for the practice rooms only.',
  }, el('span', { class: 'chip-icon chip-icon-practice', 'aria-hidden': 'true' }),
  el('span', { class: 'chips-amount' }, formatChips(app.me.practice ?? 0),
    el('span', { class: 'chips-unit' }, ' practice', el('span', { class: 'chips-unit-long' }, ' chips'))));
  const refill = app.me.practice_refill ? el('button', {
    class: 'btn btn-small refill', type: 'button', 'data-testid': 'practice-refill', onclick: refillPractice,
    title: 'Practice chips are free: top them back up',
  }, 'Refill') : null;
  // A player's name opens their account (the password); a guest has no password to change.
  const name = el('span', { 'data-testid': 'player-name', 'data-name': app.me.name }, app.me.name);
  const who = el('div', { class: 'who' },
    app.me.guest
      ? el('span', { class: 'who-name', title: 'guest account' }, name, el('span', { class: 'badge badge-guest' }, 'guest'))
      : el('button', {
        class: 'who-name link-button', type: 'button', 'data-testid': 'account',
        title: 'Your account: change your password', onclick: openAccount,
      }, name),
    real, gold, practice, refill,
    el('button', { class: 'btn btn-ghost btn-small logout', type: 'button', 'data-testid': 'logout', onclick: logout }, 'Log out'));
  topbar.append(nav, who);
}

// The menu of a narrow top bar closes on a click elsewhere, on Escape and when the page changes
// (drawTopbar).
function closeMenu() {
  const nav = topbar.querySelector('.nav.open');
  if (!nav) return false;
  nav.classList.remove('open');
  const toggle = nav.querySelector('.nav-more');
  if (toggle) toggle.setAttribute('aria-expanded', 'false');
  return true;
}
document.addEventListener('click', (event) => {
  if (!event.target.closest || !event.target.closest('.nav-more-list')) closeMenu();
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && closeMenu()) {
    const toggle = topbar.querySelector('.nav-more');
    if (toggle) toggle.focus();
  }
});

async function refillPractice(event) {
  event.currentTarget.disabled = true;
  try {
    const { practice } = await api('POST', '/api/practice/refill');
    toast(`Your practice chips are topped up to ${formatChips(practice)}.`, 'success');
  } catch (error) {
    toast(explain(error.code, error.message), 'error');
  }
  await app.refreshMe();
}

// The account dialog: a new password, given the current one. Every other session of the
// account is signed out by the server (their pages go back to the sign-in screen).
function openAccount() {
  const current = el('input', { type: 'password', autocomplete: 'current-password', 'data-testid': 'password-old', required: true });
  const fresh = el('input', { type: 'password', autocomplete: 'new-password', minlength: 8, 'data-testid': 'password-new', required: true });
  const problem = el('p', { class: 'form-error', role: 'alert', 'data-testid': 'password-error', hidden: true });
  const body = el('form', { class: 'account-form', onsubmit: (event) => event.preventDefault() },
    el('p', { class: 'muted small' }, `Signed in as ${app.me.name}. A new password signs you out everywhere else.`),
    el('label', {}, 'Current password', current),
    el('label', {}, 'New password (at least 8 characters)', fresh),
    problem);
  openDialog({
    title: 'Your account',
    body,
    testid: 'account-dialog',
    actions: [
      { label: 'Cancel', testid: 'password-cancel' },
      {
        label: 'Change password', kind: 'primary', testid: 'password-change',
        onClick: async () => {
          try {
            const { ended_sessions: ended } = await api('POST', '/api/password', { old: current.value, new: fresh.value });
            const elsewhere = ended ? ` ${ended} other session${ended === 1 ? ' was' : 's were'} signed out.` : '';
            toast(`Your password is changed.${elsewhere}`, 'success');
            return false;
          } catch (error) {
            problem.textContent = error.code === 'bad_login' ? 'That is not your current password.' : explain(error.code, error.message);
            problem.hidden = false;
            return true; // keep the dialog open
          }
        },
      },
    ],
  });
  current.focus();
}

async function logout() {
  try {
    await api('POST', '/api/logout');
  } catch {
    // signed out either way
  }
  signedOut();
}

function signedOut() {
  app.me = null;
  if (app.socket) app.socket.close();
  app.socket = null;
  drawTopbar();
  if (location.hash && location.hash !== '#/' && !location.hash.startsWith('#/invite/') && !location.hash.startsWith('#/table/')) {
    history.replaceState(null, '', '#/');
  }
  route();
}

function ensureSocket() {
  if (app.socket) return app.socket;
  const socket = new TableSocket();
  socket.addEventListener('signedout', () => {
    if (app.socket === socket) signedOut();
  });
  socket.addEventListener('error', (event) => {
    const { code, message } = event.detail;
    toast(explain(code, message), 'error');
  });
  app.socket = socket;
  return socket;
}

// ---- routing ------------------------------------------------------------------------------
async function route() {
  const token = ++app.routeToken;
  if (app.screen) {
    try { app.screen.destroy(); } catch (error) { console.error(error); }
    app.screen = null;
  }
  drawTopbar();
  const hash = location.hash || '#/';
  if (!app.me) {
    renderSignIn(hash);
    return;
  }
  let match;
  document.body.dataset.route = hash.split('/')[1] || 'lobby';
  if (hash.startsWith('#/join/')) {
    // A friend's invite link is for signing up: a signed-in player just goes to the lobby.
    app.navigate('#/', { replace: true });
    return;
  }
  if ((match = hash.match(/^#\/table\/(\d+)$/))) {
    app.screen = renderTable(root, {
      tableId: Number(match[1]), socket: ensureSocket(), navigate: app.navigate, refreshMe: app.refreshMe,
      me: () => app.me, onTableMessage: (message) => { app.lastTableMessage = message; },
    });
  } else if ((match = hash.match(/^#\/invite\/([\w-]+)$/))) {
    clear(root).append(el('p', { class: 'loading' }, 'Opening the invite…'));
    try {
      const { table } = await api('GET', `/api/invites/${encodeURIComponent(match[1])}`);
      if (token !== app.routeToken) return;
      toast('You were invited to this table. Take a seat when you are ready.', 'info');
      app.navigate(`#/table/${table.id}`, { replace: true });
    } catch (error) {
      if (token !== app.routeToken) return;
      clear(root).append(el('section', { class: 'panel notice', 'data-testid': 'invite-error' },
        el('h1', {}, 'Invite not found'), el('p', {}, explain(error.code, error.message)),
        el('a', { class: 'btn btn-primary', href: '#/' }, 'Go to the lobby')));
    }
  } else if (hash === '#/history' || (match = hash.match(/^#\/hand\/(\d+)$/))) {
    clear(root).append(el('p', { class: 'loading' }, 'Loading…'));
    try {
      const history = await import('./history.js');
      if (token !== app.routeToken) return;
      const ctx = { api, cards, ui, explain, navigate: app.navigate, me: () => app.me, refreshMe: app.refreshMe };
      clear(root);
      const screen = match ? history.renderHand(root, ctx, Number(match[1])) : history.renderHistory(root, ctx);
      app.screen = screen && typeof screen.destroy === 'function' ? screen : null;
    } catch (error) {
      console.error(error);
      clear(root).append(el('p', { class: 'panel notice' }, 'The history could not be loaded.'));
    }
  } else if (hash === '#/profile' || (match = hash.match(/^#\/leaderboard(?:\/([\w:-]+))?$/))) {
    clear(root).append(el('p', { class: 'loading' }, 'Loading…'));
    try {
      const module = await import(match ? './leaderboard.js' : './profile.js');
      if (token !== app.routeToken) return;
      const ctx = { api, ui, explain, navigate: app.navigate, me: () => app.me, refreshMe: app.refreshMe, signUp: logout };
      app.screen = match ? module.renderLeaderboard(root, ctx, match[1] || 'all') : module.renderProfile(root, ctx);
    } catch (error) {
      console.error(error);
      clear(root).append(el('p', { class: 'panel notice' }, 'This page could not be loaded.'));
    }
  } else if ((match = hash.match(/^#\/league(?:\/([\w-]+))?$/))) {
    clear(root).append(el('p', { class: 'loading' }, 'Loading…'));
    try {
      const module = await import('./league.js');
      if (token !== app.routeToken) return;
      const ctx = { api, ui, explain, navigate: app.navigate, me: () => app.me };
      app.screen = module.renderLeague(root, ctx, match[1] || null);
    } catch (error) {
      console.error(error);
      clear(root).append(el('p', { class: 'panel notice' }, 'This page could not be loaded.'));
    }
  } else {
    app.screen = renderLobby(root);
  }
  root.focus({ preventScroll: true });
}

// ---- sign-in ------------------------------------------------------------------------------
function renderSignIn(hash) {
  document.body.dataset.route = 'signin';
  const name = el('input', { id: 'signin-name', name: 'username', autocomplete: 'username', required: true, minlength: 3, maxlength: 20, 'data-testid': 'signin-name', spellcheck: 'false', autocapitalize: 'none' });
  const password = el('input', { id: 'signin-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, 'data-testid': 'signin-password' });
  const error = el('p', { class: 'form-error', 'data-testid': 'signin-error', role: 'alert', hidden: true });
  const buttons = [];
  const busy = (on) => { for (const button of buttons) button.disabled = on; };
  // A friend's invite link (#/join/<name>): Sign up names them as the one who invited you.
  const joinMatch = hash.match(/^#\/join\/([^/?#]+)$/);
  let invitedBy = null;
  if (joinMatch) {
    try { invitedBy = decodeURIComponent(joinMatch[1]); } catch { invitedBy = joinMatch[1]; }
  }
  const fail = (err) => {
    error.hidden = false;
    error.textContent = err.code === 'unknown_account' && invitedBy
      ? `${explain(err.code, err.message)} The invite link names "${invitedBy}": check the link, or sign up without it from the start page.`
      : explain(err.code, err.message);
  };
  const signIn = async (path, body) => {
    error.hidden = true;
    busy(true);
    try {
      app.me = await api('POST', path, body);
      await app.refreshMe();
      const next = hash.startsWith('#/invite/') || hash.startsWith('#/table/') ? hash : '#/';
      app.navigate(next, { replace: true });
    } catch (err) {
      fail(err);
    } finally {
      busy(false);
    }
  };
  const withCredentials = (path) => (event) => {
    event.preventDefault();
    if (!name.value.trim() || !password.value) {
      fail({ code: null, message: 'enter a name and a password' });
      return;
    }
    const body = { name: name.value.trim(), password: password.value };
    if (invitedBy && path === '/api/register') body.invited_by = invitedBy;
    signIn(path, body);
  };
  // A join link is for signing up: Sign up is the main button there (and Enter's).
  const registerWith = (event) => { password.autocomplete = 'new-password'; withCredentials('/api/register')(event); };
  const login = invitedBy
    ? el('button', { class: 'btn', type: 'button', 'data-testid': 'signin-login', onclick: withCredentials('/api/login') }, 'Log in')
    : el('button', { class: 'btn btn-primary', type: 'submit', 'data-testid': 'signin-login' }, 'Log in');
  const register = invitedBy
    ? el('button', { class: 'btn btn-primary', type: 'submit', 'data-testid': 'signin-register' }, 'Sign up')
    : el('button', { class: 'btn', type: 'button', 'data-testid': 'signin-register', onclick: registerWith }, 'Sign up');
  const guest = el('button', { class: 'btn btn-ghost', type: 'button', 'data-testid': 'signin-guest', onclick: () => signIn('/api/guest') }, 'Play as a guest');
  const guestNote = el('p', { class: 'muted small guest-note' }, 'Guests play with free practice chips in the practice rooms. Sign up to play for real chips as well.');
  buttons.push(login, register, guest);
  if (invitedBy) password.autocomplete = 'new-password';
  const form = el('form', { class: 'signin-form', onsubmit: invitedBy ? registerWith : withCredentials('/api/login'), novalidate: true },
    el('label', { for: 'signin-name' }, 'Name'), name,
    el('label', { for: 'signin-password' }, 'Password'), password,
    error,
    el('div', { class: 'signin-buttons' }, ...(invitedBy ? [register, login] : [login, register])),
    el('div', { class: 'divider' }, el('span', {}, 'or')),
    guest, guestNote);
  const fan = el('div', { class: 'hero-fan', 'aria-hidden': 'true' },
    ...['AS', 'KH', 'JK', '10D', 'QC'].map((code) => cards.renderCard(code)));
  const invited = hash.startsWith('#/invite/');
  const joinNote = invitedBy ? el('p', { class: 'signin-invited', 'data-testid': 'signin-invited', 'data-name': invitedBy },
    el('span', { class: 'signin-invited-mark', 'aria-hidden': 'true' }, '✉'),
    el('span', {}, 'Invited by ', el('strong', {}, invitedBy), ': sign up to join them at Rummy Hall.')) : null;
  clear(root).append(el('section', { class: 'signin', 'data-testid': 'signin' },
    el('div', { class: 'signin-hero' }, fan,
      el('h1', {}, 'Rummy Hall'),
      el('p', { class: 'tagline' }, invited ? 'A friend invited you to a table. Sign in or play as a guest to join.' : tagline())),
    el('div', { class: 'panel signin-panel' }, el('h2', {}, invitedBy ? 'Sign up to play' : 'Sign in to play'), joinNote, form)));
  name.focus();
}

// The sign-in screen's tagline: "A, B and C with friends, strangers and bots.", the games' short
// names (GET /api/games).
function tagline() {
  const labels = app.games.map((info) => info.label);
  const games = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}` : labels[0] || 'Card games';
  return `${games} with friends, strangers and bots.`;
}

// ---- the lobby ----------------------------------------------------------------------------

// A room's money in words, each fact named for what it is: what a game costs (a pool's entry
// fee, a point's value, a boot), the chips you bring to the seat (the buy-in, from your
// wallet; the rest comes back when you leave) and the least a seat must hold to be dealt in.
// Read off the room's engine settings, so a new game with the same settings needs nothing here.
// In a practice room the chips are practice chips, and say so.
const isPractice = (room) => room.currency === 'practice';
// A silver room's gold twin (gold-<key>) is not shown: quick seat in the silver room takes you
// there when your silver runs short.
const isGold = (room) => room.currency === 'gold';

function roomFacts(room) {
  const config = room.config || {};
  const unit = isPractice(room) ? 'practice chips' : 'chips';
  const chips = (n) => `${formatChips(n)} ${unit}`;
  let cost;
  if (config.entry_fee !== undefined) {
    cost = { label: 'Entry fee', value: chips(config.entry_fee), why: 'Paid into the prize pot when the pool starts, and again if you rejoin after being knocked out.' };
  } else if (config.point_value !== undefined) {
    cost = { label: 'Point value', value: room.stake, why: 'Each point a loser scores costs this many chips; the winner collects them.' };
  } else if (config.boot !== undefined) {
    cost = { label: 'Boot', value: chips(config.boot), why: 'Every player puts the boot in the pot when a hand starts.' };
  } else if (config.stake !== undefined) {
    cost = { label: 'Stake', value: chips(config.stake), why: 'What every player puts in for a game: the winner takes the others\' stakes.' };
  } else {
    cost = { label: 'Stake', value: room.stake, why: '' };
  }
  return [
    { ...cost, testid: 'cost' },
    { label: 'You bring', value: chips(room.buy_in), testid: 'buy-in', why: `The buy-in: ${unit} moved from your wallet to your seat when you sit. Whatever is left goes back to your wallet when you leave.` },
    { label: 'Seat minimum', value: chips(room.min_stack), testid: 'min-stack', why: 'A seat needs at least this many chips to be dealt into a new game.' },
  ];
}

function renderLobby(rootNode) {
  let alive = true;
  const yours = el('section', { class: 'your-tables', 'data-testid': 'your-tables', hidden: true });
  const guestNotice = el('section', { class: 'guest-notice', 'data-testid': 'guest-notice', hidden: true },
    el('div', { class: 'guest-notice-text' },
      el('strong', {}, 'You are playing as a guest, with practice chips.'),
      el('p', {}, 'Practice chips are free and worth nothing: they are only for the practice rooms, and you can refill them when they run low. Rooms for real chips need an account.')),
    el('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'guest-sign-up', onclick: () => logout() }, 'Sign up'));
  const games = el('div', { class: 'games' }, el('p', { class: 'loading' }, 'Loading the rooms…'));
  const inviteInput = el('input', { id: 'invite-input', 'data-testid': 'invite-input', placeholder: 'paste an invite link or code', autocomplete: 'off', spellcheck: 'false' });
  const inviteForm = el('form', {
    class: 'invite-form', onsubmit: (event) => {
      event.preventDefault();
      const text = inviteInput.value.trim();
      const code = (text.match(/invite\/([\w-]+)/) || [null, text])[1];
      if (code) app.navigate(`#/invite/${code}`);
    },
  }, el('label', { for: 'invite-input', class: 'sr-only' }, 'Invite link or code'), inviteInput,
  el('button', { class: 'btn', type: 'submit', 'data-testid': 'invite-open' }, 'Open invite'));
  clear(rootNode).append(el('section', { class: 'lobby', 'data-testid': 'lobby' },
    el('div', { class: 'lobby-head' },
      el('div', {}, el('h1', {}, 'Lobby'), el('p', { class: 'muted' }, 'Pick a room: quick-seat joins a table with a free seat; bots fill the empty seats.')),
      inviteForm),
    guestNotice, yours, games));

  const tableLists = new Map(); // room key -> element
  const views = new Map(); // game -> {info, module}
  let rooms = [];

  async function load() {
    try {
      const [me, data, loaded] = await Promise.all([app.refreshMe(), api('GET', '/api/rooms'), gameViews()]);
      if (!alive) return;
      for (const entry of loaded) views.set(entry.info.name, entry);
      rooms = data.rooms;
      guestNotice.hidden = !(me && me.guest);
      drawYours(me);
      drawRooms(data);
      await refreshTables();
    } catch (error) {
      if (!alive) return;
      clear(games).append(el('p', { class: 'form-error' }, explain(error.code, error.message)));
    }
  }

  // Where you sit: the way back to each table, and a way to leave it without going there.
  function drawYours(me) {
    clear(yours);
    const list = (me && me.tables) || [];
    yours.hidden = list.length === 0;
    if (!list.length) return;
    yours.append(el('h2', {}, 'Your tables'),
      el('div', { class: 'your-list' }, ...list.map((entry) => el('div', { class: 'your-table', 'data-testid': `your-table-${entry.table}` },
        el('div', { class: 'your-table-name' },
          el('strong', {}, `Table ${entry.table}`),
          el('span', { class: 'muted small' }, ` ${entry.title}${entry.currency === 'practice' || entry.currency === 'gold' ? ` · ${entry.currency}` : ''} · seat ${entry.seat}${entry.playing ? ' · playing' : ''}`)),
        el('button', {
          class: 'btn btn-primary btn-small', type: 'button', 'data-testid': `rejoin-${entry.table}`,
          onclick: () => app.navigate(`#/table/${entry.table}`),
        }, 'Return'),
        el('button', {
          class: 'btn btn-ghost btn-small', type: 'button', 'data-testid': `leave-${entry.table}`,
          onclick: () => leaveFromLobby(entry),
        }, 'Leave')))));
  }

  async function leaveFromLobby(entry) {
    if (entry.playing) {
      const module = (views.get(entry.game) || {}).module;
      const givingUp = (module && module.givingUp) || 'giving it up';
      const ok = await confirmDialog(`Leave table ${entry.table}?`,
        `A game is in progress there: leaving gives it up now (${givingUp}, with what that costs), and you stand up when it ends. Your other chips go back to your wallet.`,
        { yes: 'Leave and give up', no: 'Stay' });
      if (!ok) return;
    }
    try {
      const answer = await api('POST', `/api/tables/${entry.table}/leave`);
      toast(answer && answer.after_game ? `You leave table ${entry.table} when its game ends.` : `You left table ${entry.table}; your chips are back in your wallet.`, 'success');
      drawYours(await app.refreshMe());
    } catch (error) {
      toast(explain(error.code, error.message), 'error');
    }
  }

  function drawRooms(data) {
    clear(games);
    tableLists.clear();
    const guest = Boolean(app.me && app.me.guest);
    const tiers = new Map((data.tiers || []).map((tier) => [tier.key, tier]));
    for (const game of data.games) {
      const gameRooms = data.rooms.filter((room) => room.game === game && !isGold(room));
      const { info = {}, module = null } = views.get(game) || {};
      // Two kinds of rooms: practice (free chips, open to guests) and real chips. A guest sees
      // the practice rooms first; a player the rooms for real chips.
      const kinds = [
        { key: 'practice', title: 'Practice rooms', note: 'Free practice chips, for learning: open to guests.', rooms: gameRooms.filter(isPractice) },
        { key: 'chips', title: 'Rooms for real chips', note: guest ? 'These need an account: sign up to play here.' : 'Your chips, won and lost for real.', rooms: gameRooms.filter((room) => !isPractice(room)) },
      ].filter((kind) => kind.rooms.length);
      if (!guest) kinds.reverse();
      const sections = kinds.map((kind) => el('div', { class: `room-kind room-kind-${kind.key}`, 'data-testid': `rooms-${game}-${kind.key}` },
        el('div', { class: 'room-kind-head' }, el('h3', {}, kind.title), el('p', { class: 'muted small' }, kind.note)),
        el('div', { class: 'room-grid' }, ...kind.rooms.map((room) => roomCard(room, guest, module, tiers.get(room.tier))))));
      games.append(el('section', { class: `game game-${game}`, 'data-testid': `game-${game}` },
        el('div', { class: 'game-head' },
          el('h2', {}, info.label || game), el('p', { class: 'muted' }, info.blurb || ''),
          howToPlayButton(game)),
        ...sections));
    }
  }

  // A room's heading: the game's view says (roomHeading), else the room's title.
  // A room in a tier shows the tier (its name and clover multiplier) and, until the player's
  // level opens it, what does: the server refuses it anyway (room_locked).
  function roomCard(room, guest, module, tier) {
    const list = el('div', { class: 'room-tables', 'data-testid': `tables-${room.key}` });
    tableLists.set(room.key, list);
    const heading = module && module.roomHeading ? module.roomHeading(room) : room.title;
    const practice = isPractice(room);
    const level = app.me && app.me.ladder ? app.me.ladder.level : 1;
    const closed = Boolean(tier) && !guest && level < tier.level;
    const locked = (guest && !practice) || closed; // a guest has no real chips; a tier its level
    const playsGold = !locked && !practice && app.me && app.me.gold > 0 && rooms.some((twin) => twin.key === `gold-${room.key}`);
    const actions = closed
      ? el('p', { class: 'needs-account', 'data-testid': `tier-locked-${room.key}` },
        `Opens with the title ${tier.title} (level ${tier.level}); you are level ${level}.`)
      : locked
      ? el('p', { class: 'needs-account', 'data-testid': `needs-account-${room.key}` },
        'Real chips: ', el('button', { class: 'link-button', type: 'button', onclick: () => logout() }, 'sign up'), ' to play here.')
      : el('div', { class: 'room-actions' },
        el('button', { class: 'btn btn-primary', type: 'button', 'data-testid': `quick-seat-${room.key}`, onclick: (event) => quickSeat(room, event.currentTarget) }, 'Quick seat'),
        el('button', { class: 'btn btn-ghost', type: 'button', 'data-testid': `create-private-${room.key}`, onclick: () => createPrivate(room) }, 'Private table'));
    return el('article', {
      class: `room${practice ? ' room-practice' : ''}${locked ? ' room-locked' : ''}`, 'data-testid': `room-${room.key}`, 'data-room': room.key, 'data-currency': room.currency || 'chips',
    },
      el('header', { class: 'room-head' },
        el('h3', {}, heading,
          practice ? el('span', { class: 'badge badge-practice', 'data-testid': `practice-badge-${room.key}`, title: 'played with practice chips' }, 'practice') : null,
          tier ? el('span', { class: `badge badge-tier tier-${tier.key}`, 'data-testid': `tier-badge-${room.key}`, title: `${tier.name} room: clover points ${tier.multiplier}` }, `${tier.name} ${tier.multiplier}`) : null),
        el('span', { class: 'room-seats', title: 'seats at a table' }, `${room.seats} seats`)),
      el('dl', { class: 'room-facts' }, ...roomFacts(room).map(({ label, value, why, testid }) => el('div', { title: why, 'data-testid': `fact-${testid}-${room.key}` },
        el('dt', {}, label), el('dd', {}, value)))),
      playsGold ? el('p', { class: 'muted small gold-note', 'data-testid': `gold-note-${room.key}` }, 'Plays gold when your silver runs short.') : null,
      actions,
      list);
  }

  async function refreshTables() {
    await Promise.all(rooms.filter((room) => tableLists.has(room.key)).map(async (room) => {
      try {
        const data = await api('GET', `/api/tables?room=${encodeURIComponent(room.key)}`);
        if (alive) drawTables(room, data.tables || []);
      } catch {
        // the next refresh tries again
      }
    }));
  }

  function drawTables(room, tables) {
    const list = tableLists.get(room.key);
    if (!list) return;
    clear(list);
    if (!tables.length) {
      list.append(el('p', { class: 'muted small' }, 'No open tables: quick seat starts one.'));
      return;
    }
    for (const table of tables) {
      const seats = table.seats || [];
      const taken = seats.filter(Boolean).length;
      const names = el('ul', { class: 'table-names' }, ...seats.filter(Boolean).map((seat) => el('li', {},
        seat.name, seat.bot ? el('span', { class: 'badge badge-bot' }, 'BOT') : null)));
      const mine = app.me && app.me.tables && app.me.tables.some((entry) => entry.table === table.id);
      list.append(el('div', { class: 'table-row', 'data-testid': `table-row-${table.id}` },
        el('div', { class: 'table-row-head' },
          el('strong', {}, `Table ${table.id}`),
          el('span', { class: 'muted small' }, `${taken}/${seats.length} seats${table.playing ? ' · playing' : ''}`)),
        names,
        el('div', { class: 'table-row-actions' },
          el('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': `watch-${table.id}`, onclick: () => app.navigate(`#/table/${table.id}`) }, mine ? 'Open' : 'Watch'),
          !mine && taken < seats.length && !(app.me && app.me.guest && !isPractice(room)) ? el('button', { class: 'btn btn-small', type: 'button', 'data-testid': `join-${table.id}`, onclick: () => join(table.id) }, 'Sit') : null)));
    }
  }

  async function quickSeat(room, button) {
    button.disabled = true;
    try {
      const answer = await sitWithConsent(app, (another) => api('POST', '/api/quick-seat', { room: room.key, another }));
      if (answer) app.navigate(`#/table/${answer.table}`);
    } finally {
      button.disabled = false;
    }
  }

  async function join(tableId) {
    const answer = await sitWithConsent(app, (another) => api('POST', `/api/tables/${tableId}/sit`, { seat: null, buy_in: null, another }));
    if (answer) app.navigate(`#/table/${tableId}`);
  }

  async function createPrivate(room) {
    try {
      const answer = await api('POST', '/api/tables', { room: room.key, private: true });
      const link = `${location.origin}${location.pathname}#/invite/${answer.invite}`;
      const field = el('input', { class: 'mono', readonly: true, value: link, 'data-testid': 'invite-link', 'aria-label': 'invite link', onfocus: (event) => event.target.select() });
      openDialog({
        title: 'Your private table',
        testid: 'invite-dialog',
        body: el('div', { class: 'invite-body' },
          el('p', {}, `Table ${answer.table.id}, ${room.title}, ${room.stake}. Send this link to the friends you want at the table; bots take the seats nobody takes.`),
          field),
        actions: [
          { label: 'Copy link', testid: 'invite-copy', onClick: async () => { toast(await copyText(link) ? 'Invite link copied.' : 'Select the link and copy it.', 'success'); return true; } },
          { label: 'Go to the table', kind: 'primary', testid: 'invite-go', onClick: () => { app.navigate(`#/table/${answer.table.id}`); } },
        ],
      });
    } catch (error) {
      toast(explain(error.code, error.message), 'error');
    }
  }

  load();
  const timer = setInterval(() => {
    if (!document.hidden) refreshTables();
  }, 5000);
  return {
    destroy() {
      alive = false;
      clearInterval(timer);
    },
  };
}

// ---- start --------------------------------------------------------------------------------
window.addEventListener('hashchange', route);
window.addEventListener('online', () => app.socket && app.socket.reconnectNow());

async function start() {
  // The games first (their names and style sheets), so no screen is drawn without them.
  try {
    app.games = await gameList();
    await loadGameStyles();
  } catch (error) {
    console.error('games', error);
  }
  // The session probe answers 200 signed in or not, so a signed-out first visit logs no failed
  // request in the console; /api/me (the wallet and the seats) only once there is someone.
  try {
    const session = await api('GET', '/api/session');
    app.me = session.signed_in ? await api('GET', '/api/me') : null;
  } catch (error) {
    app.me = null;
    if (!(error instanceof ApiError) || error.status !== 401) {
      toast(explain(error.code, error.message), 'error');
    }
  }
  route();
}

start();
