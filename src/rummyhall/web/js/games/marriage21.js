// 21-card Marriage Rummy at the table: the rummy family's view (js/games/rummy/view.js) with
// Marriage's numbers and words, its wild cards (the cut rank, printed jokers, and the upper and
// lower jokers), badges on its value cards (CUT, UP, LO) and result columns for the value-card
// exchange and each seat's net. The view's data-testid hooks are listed in rummy/view.js; the
// how-to-play guide is in marriage21/howto.js.
//
// export function createView(ctx) -> {update(message), destroy(), leaveNote()}   (ctx: see js/table.js)
// and the rest of a game view module's interface (docs/client.md): howToPlay, dealtCards,
// roomHeading, givingUp.

import { dealtCardsFor } from './rummy/fair.js';
import { createRummyView, roomHeadingFor } from './rummy/view.js';

export { howToPlay } from './marriage21/howto.js';

// The deal order the history's fair-deal check follows (js/fair.js): the shared rummy engine's
// (the toss's cards, one card a round to each seat, the cut, the open card), 21 cards a hand.
export const dealtCards = dealtCardsFor(21);

// The lobby's heading of one of this game's rooms: "21 cards · Marriage" -> "Marriage".
export const roomHeading = roomHeadingFor('21 cards');

export const givingUp = 'a drop at Marriage';

const RANK = (card) => card.replace(/[SHDC]$/, '');

// The value cards of the deal, from the view: [cut, upper, lower] ("" before the first deal).
function values(view) {
  return (view && view.value_cards) || [];
}

const BADGES = ['CUT', 'UP', 'LO'];
const NAMES = ['cut joker', 'upper joker', 'lower joker'];

function holdingText(holding) {
  if (!holding) return '–';
  const parts = [];
  if (holding.marriages) parts.push(`${holding.marriages} marriage${holding.marriages > 1 ? 's' : ''}`);
  for (const kind of ['cut', 'upper', 'lower']) {
    const left = holding[kind] - holding.marriages;
    if (left) parts.push(`${left} ${kind === 'cut' ? 'cut' : kind === 'upper' ? 'up' : 'lo'}`);
  }
  return parts.length ? `${parts.join(', ')} (${holding.worth})` : '–';
}

const OPTIONS = {
  storage: 'm21',
  handSize: 21,
  checkProfile: () => 'marriage21',
  arrangeProfile: () => 'marriage21',
  wrongPoints: 120,
  className: 'm21',
  // Wild: every card of the wild rank (aces when a printed joker was cut), the printed jokers,
  // and the upper and lower jokers.
  isWild: (card, view) => {
    if (card === 'JK') return true;
    if (view && view.wild_rank && RANK(card) === view.wild_rank) return true;
    return values(view).includes(card);
  },
  wildText: (view) => {
    const [cut, upper, lower] = values(view);
    if (!cut) return '';
    const rank = view.wild_rank === 'A' ? 'ace' : view.wild_rank;
    return `Wild: every ${rank}, jokers, ${upper} and ${lower}. Value cards: ${cut} ${upper} ${lower}`;
  },
  badge: (card, view) => {
    const index = values(view).indexOf(card);
    if (index < 0) return null;
    return { text: BADGES[index], title: `${NAMES[index]} (a value card)` };
  },
  resultColumns: [
    {
      key: 'values',
      heading: 'Value',
      title: 'Value cards held at the end (what they collect from each other seat still in the deal)',
      cell: (row, data) => holdingText(((data.summary || {}).values || {})[String(row.seat)]),
    },
    {
      key: 'net',
      heading: 'Net',
      title: 'Card points, value cards and the 200 cap together: what the deal pays',
      cell: (row, data) => {
        const line = ((data.summary || {}).settlement || {})[String(row.seat)];
        if (!line) return '';
        return `${line.net > 0 ? '+' : ''}${line.net}${line.cap_relief ? ' (capped)' : ''}`;
      },
    },
  ],
};

export function createView(ctx) {
  return createRummyView(ctx, OPTIONS);
}
