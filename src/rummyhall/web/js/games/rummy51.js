// Rummy 51 at the table: the stock and the discard pile, every player's groups on the table, your
// hand, the tray where you put your opening (51 or more) or later groups together, laying off
// and joker swaps by drag or by the groups' "+", and the result with places. The view itself is
// rummy51/view.js (its data-testid hooks are listed there); the rules it follows are the
// engine's (src/rummyhall/games/rummy51/), the tray's values rummy51/groups.js.
//
// export function createView(ctx) -> {update(message), destroy(), leaveNote()}   (ctx: see js/table.js)
// and the rest of a game view module's interface (docs/client.md): howToPlay, dealtCards,
// outcome, replay, roomHeading, givingUp.

import { createRummy51View } from './rummy51/view.js';

// The game's short guide for the lobby and the table (js/howto.js): rummy51/howto.js.
export { howToPlay } from './rummy51/howto.js';
// The deal order the history's fair-deal check follows (js/fair.js): rummy51/fair.js.
export { dealtCards } from './rummy51/fair.js';
// The history's outcome (place, score, chips) and the replay's seats, centre and result line.
export { outcome, replay } from './rummy51/replay.js';

// The lobby's heading of one of this game's rooms: its stake (every room has the same title;
// the lobby shows the seats beside it).
export function roomHeading(room) {
  const stake = room.stake || room.title;
  return stake.charAt(0).toUpperCase() + stake.slice(1);
}

// What leaving in the middle of a game gives up, for the lobby's warning.
export const givingUp = 'your stake at Rummy 51';

export function createView(ctx) {
  return createRummy51View(ctx);
}
