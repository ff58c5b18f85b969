// Cards in the text notation of docs/records.md: "7H", "10S", "QC", "JK", optionally "#n" for
// the physical copy ("7H#2"). Faces are inline SVG (corner indices, pips, court frames, joker),
// so they scale with the --card-w CSS variable and need no fonts or images.
//
//   parseCard(text)       -> {code, rank, suit, joker, copy, red, text}
//   cardLabel(text)       -> "seven of hearts", "joker"
//   renderCard(text, opts) -> <div class="card" data-card="7H" role="img" aria-label="seven of hearts">
//        opts: {faceDown, small, selected, wild, button (a <button> instead of a div), label, testid}
//   renderBack(opts)      -> a face-down card (class "card back", no data-card)

const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const RANK_WORDS = {
  A: 'ace', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight',
  9: 'nine', 10: 'ten', J: 'jack', Q: 'queen', K: 'king',
};
const SUIT_WORDS = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' };
const SUIT_SIGNS = { '♠': 'S', '♥': 'H', '♦': 'D', '♣': 'C' };
export const SUIT_SYMBOL = { S: '♠', H: '♥', D: '♦', C: '♣' };
export const RANK_ORDER = RANKS;

export function parseCard(text) {
  const raw = String(text).trim();
  const [cardText, copyText] = raw.split('#');
  const upper = cardText.toUpperCase();
  const copy = copyText && /^\d+$/.test(copyText) ? Number(copyText) : 0;
  if (upper === 'JK') {
    return { code: 'JK', rank: null, suit: null, joker: true, copy, red: false, text: raw };
  }
  let suit = upper.slice(-1);
  if (SUIT_SIGNS[suit]) suit = SUIT_SIGNS[suit];
  let rank = upper.slice(0, -1);
  if (rank === 'T') rank = '10';
  if (!SUIT_WORDS[suit] || !RANKS.includes(rank)) {
    throw new Error(`not a card: ${text}`);
  }
  return { code: rank + suit, rank, suit, joker: false, copy, red: suit === 'H' || suit === 'D', text: raw };
}

export function cardLabel(text) {
  const card = typeof text === 'string' ? parseCard(text) : text;
  if (card.joker) return 'joker';
  return `${RANK_WORDS[card.rank]} of ${SUIT_WORDS[card.suit]}`;
}

// ---- SVG drawing (a 100 x 140 card) ---------------------------------------------------------
const NS = 'http://www.w3.org/2000/svg';
const SUIT_PATHS = {
  H: 'M50 92C22 68 2 50 6 28 10 8 38 4 50 28 62 4 90 8 94 28 98 50 78 68 50 92Z',
  D: 'M50 4 90 50 50 96 10 50Z',
  S: 'M50 6C70 30 98 44 94 66 91 84 68 88 56 72 58 84 62 90 70 96H30C38 90 42 84 44 72 32 88 9 84 6 66 2 44 30 30 50 6Z',
  C: 'M50 6A20 20 0 0 1 66 39 20 20 0 1 1 56 70C58 84 62 90 70 96H30C38 90 42 84 44 70A20 20 0 1 1 34 39 20 20 0 0 1 50 6Z',
};
const PIPS = {
  // [x, y] on the 100 x 140 face; pips below the middle are drawn upside down
  A: [[50, 70]],
  2: [[50, 30], [50, 110]],
  3: [[50, 30], [50, 70], [50, 110]],
  4: [[33, 30], [67, 30], [33, 110], [67, 110]],
  5: [[33, 30], [67, 30], [50, 70], [33, 110], [67, 110]],
  6: [[33, 30], [67, 30], [33, 70], [67, 70], [33, 110], [67, 110]],
  7: [[33, 30], [67, 30], [50, 50], [33, 70], [67, 70], [33, 110], [67, 110]],
  8: [[33, 30], [67, 30], [50, 50], [33, 70], [67, 70], [50, 90], [33, 110], [67, 110]],
  9: [[33, 28], [67, 28], [33, 56], [67, 56], [50, 70], [33, 84], [67, 84], [33, 112], [67, 112]],
  10: [[33, 28], [67, 28], [50, 42], [33, 56], [67, 56], [33, 84], [67, 84], [50, 98], [33, 112], [67, 112]],
};

function svg(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  return node;
}

function suitShape(suit, x, y, size, flip) {
  const scale = size / 100;
  const transform = `translate(${x} ${y})${flip ? ' rotate(180)' : ''} scale(${scale}) translate(-50 -50)`;
  return svg('path', { d: SUIT_PATHS[suit], transform, class: 'pip' });
}

function corner(card, flip) {
  const group = svg('g', { class: 'index', transform: flip ? 'rotate(180 50 70)' : '' });
  const label = svg('text', {
    x: 12, y: 21, 'text-anchor': 'middle', class: 'rank',
    'font-size': card.rank === '10' ? 17 : 20, 'letter-spacing': card.rank === '10' ? -1.5 : 0,
  });
  label.textContent = card.rank;
  group.append(label, suitShape(card.suit, 12, 33, 13, false));
  return group;
}

function courtFace(card, face) {
  face.append(svg('rect', { x: 22, y: 16, width: 56, height: 108, rx: 5, class: 'court-frame' }));
  const letter = svg('text', { x: 50, y: 62, 'text-anchor': 'middle', class: 'court-letter', 'font-size': 36 });
  letter.textContent = card.rank;
  const lower = svg('text', { x: 50, y: 62, 'text-anchor': 'middle', class: 'court-letter', 'font-size': 36, transform: 'rotate(180 50 70)' });
  lower.textContent = card.rank;
  face.append(letter, lower, suitShape(card.suit, 50, 70, 22, false));
}

function jokerFace(face) {
  face.append(svg('rect', { x: 8, y: 8, width: 84, height: 124, rx: 6, class: 'joker-frame' }));
  face.append(svg('path', {
    class: 'joker-star',
    d: 'M50 40 57 60 78 60 61 72 67 92 50 80 33 92 39 72 22 60 43 60Z',
  }));
  const word = svg('text', { x: 50, y: 118, 'text-anchor': 'middle', class: 'joker-word', 'font-size': 15, 'letter-spacing': 2 });
  word.textContent = 'JOKER';
  const top = svg('text', { x: 50, y: 30, 'text-anchor': 'middle', class: 'joker-word', 'font-size': 15, 'letter-spacing': 2 });
  top.textContent = 'JOKER';
  face.append(top, word);
}

export function faceSvg(text) {
  const card = typeof text === 'string' ? parseCard(text) : text;
  const face = svg('svg', { viewBox: '0 0 100 140', class: 'face', 'aria-hidden': 'true', focusable: 'false' });
  face.append(svg('rect', { x: 0.5, y: 0.5, width: 99, height: 139, rx: 8, class: 'paper' }));
  if (card.joker) {
    jokerFace(face);
    return face;
  }
  face.append(corner(card, false), corner(card, true));
  if (['J', 'Q', 'K'].includes(card.rank)) {
    courtFace(card, face);
  } else if (card.rank === 'A') {
    face.append(suitShape(card.suit, 50, 70, 44, false));
  } else {
    for (const [x, y] of PIPS[card.rank]) face.append(suitShape(card.suit, x, y, 19, y > 72));
  }
  return face;
}

export function backSvg() {
  const back = svg('svg', { viewBox: '0 0 100 140', class: 'face', 'aria-hidden': 'true', focusable: 'false' });
  back.append(svg('rect', { x: 0.5, y: 0.5, width: 99, height: 139, rx: 8, class: 'back-paper' }));
  back.append(svg('rect', { x: 7, y: 7, width: 86, height: 126, rx: 5, class: 'back-field' }));
  const pattern = svg('g', { class: 'back-pattern' });
  for (let y = 14; y < 130; y += 12) {
    for (let x = 14 + ((y / 12) % 2 ? 6 : 0); x < 90; x += 12) {
      pattern.append(svg('path', { d: `M${x} ${y - 4}L${x + 4} ${y}L${x} ${y + 4}L${x - 4} ${y}Z` }));
    }
  }
  back.append(pattern);
  back.append(svg('circle', { cx: 50, cy: 70, r: 15, class: 'back-medal' }));
  const mark = svg('text', { x: 50, y: 76, 'text-anchor': 'middle', class: 'back-mark', 'font-size': 16 });
  mark.textContent = 'RH';
  back.append(mark);
  return back;
}

function shell(opts, extraClass) {
  const tag = opts.button ? 'button' : 'div';
  const node = document.createElement(tag);
  if (opts.button) node.type = 'button';
  node.className = `card ${extraClass}`.trim();
  if (opts.small) node.classList.add('small');
  if (opts.selected) node.classList.add('selected');
  if (opts.testid) node.dataset.testid = opts.testid;
  return node;
}

export function renderBack(opts = {}) {
  const node = shell(opts, 'back');
  if (!opts.button) node.setAttribute('role', 'img');
  node.setAttribute('aria-label', opts.label || 'face-down card');
  node.append(backSvg());
  return node;
}

export function renderCard(text, opts = {}) {
  if (opts.faceDown || text === null || text === undefined || text === '?') return renderBack(opts);
  const card = parseCard(text);
  const node = shell(opts, card.joker ? 'joker' : card.red ? 'red' : 'black');
  node.dataset.card = String(text);
  if (!card.joker) {
    node.dataset.rank = card.rank;
    node.dataset.suit = card.suit;
  }
  if (!opts.button) node.setAttribute('role', 'img');
  if (opts.wild) node.classList.add('wild');
  let label = opts.label || cardLabel(card);
  if (opts.wild && !card.joker && !opts.label) label += ', wild joker';
  node.setAttribute('aria-label', label);
  if (opts.selected && opts.button) node.setAttribute('aria-pressed', 'true');
  node.append(faceSvg(card));
  if (opts.wild && !card.joker) node.append(Object.assign(document.createElement('span'), { className: 'wild-mark', textContent: '★' }));
  return node;
}
