// How Rummy 51 deals from a shuffled deck (src/rummyhall/games/rummy51/engine.py, the deal), for
// the browser's fair-deal check (js/fair.js verifyRecord, through the view module's `dealtCards`
// export): one card at a time round the table from the player who moves first, fourteen rounds,
// and one more card to that first player (15 cards: they start by throwing, without a draw); the
// rest is the stock. Nothing is turned face up, and there is no cut.

const HAND = 14;

// The seats in dealing order: the first mover (the view's `first`), then on round the table.
function dealOrder(view) {
  const seats = ((view && view.seats) || []).map((s) => s.seat).sort((a, b) => a - b);
  const at = seats.indexOf(view && view.first);
  return at < 0 ? [] : [...seats.slice(at), ...seats.slice(0, at)];
}

// The cards the engine gave `view.viewer` from `deck` ({hand, open: null, cut: null}); null when
// that seat was not dealt in.
export function dealtCards(deck, view) {
  const order = dealOrder(view);
  const index = order.indexOf(view && view.viewer);
  if (index < 0) return null;
  const count = order.length;
  const hand = [];
  for (let round = 0; round < HAND; round += 1) hand.push(deck[index + round * count]);
  if (index === 0) hand.push(deck[HAND * count]);
  return { hand, open: null, cut: null };
}
