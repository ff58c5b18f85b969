// 13-card Indian Rummy at the table (points and pool): the rummy family's view
// (js/games/rummy/view.js) with this game's numbers and words. The view's data-testid hooks are
// listed there; the how-to-play guide is in indian13/howto.js.
//
// export function createView(ctx) -> {update(message), destroy(), leaveNote()}   (ctx: see js/table.js)
// and the rest of a game view module's interface (docs/client.md): howToPlay, dealtCards,
// roomHeading, givingUp.

import { dealtCardsFor } from './rummy/fair.js';
import { createRummyView, roomHeadingFor } from './rummy/view.js';

// The game's short guide for the lobby and the table (js/howto.js); the words are in indian13/howto.js.
export { howToPlay } from './indian13/howto.js';

// The deal order the history's fair-deal check follows (js/fair.js): 13 cards a hand.
export const dealtCards = dealtCardsFor(13);

// The lobby's heading of one of this game's rooms: "13 cards · pool 101" -> "Pool 101".
export const roomHeading = roomHeadingFor('13 cards');

// What leaving in the middle of a game gives up, for the lobby's warning.
export const givingUp = 'a drop at rummy';

const OPTIONS = {
  // Saved groupings keep the key they always had ("rummyhall.i13.<table>.<game>.<deal>"), so a
  // reload in the middle of a deal finds them.
  storage: 'i13',
  handSize: 13,
  // POST /api/check takes the view's short profile name ("classic", "vengala"); /api/arrange
  // wants the full one.
  checkProfile: (view) => view.profile,
  arrangeProfile: (view) => `indian13/${view.profile}`,
  wrongPoints: 80,
};

export function createView(ctx) {
  return createRummyView(ctx, OPTIONS);
}
