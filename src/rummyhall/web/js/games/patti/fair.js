// How Rummy Patti deals from a shuffled deck (docs/records.md, "What the house deals"), for the
// browser's fair-deal check (js/fair.js verifyRecord, through the view module's `dealtCards`
// export): three rounds, one card to each seat in turn order, then the open card; no cut.

// The cards the engine gave `view.viewer` from `deck` ({hand, open, cut: null}); null when that
// seat was not dealt in.
export function dealtCards(deck, view) {
  const seat = view && view.viewer;
  const order = (view && view.order) || [];
  const index = order.indexOf(seat);
  if (index < 0) return null;
  const count = order.length;
  const hand = [0, 1, 2].map((round) => deck[index + round * count]);
  return { hand, open: deck[3 * count], cut: null };
}
