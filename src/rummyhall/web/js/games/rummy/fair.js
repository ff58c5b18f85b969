// How a rummy game of the family deals from a shuffled deck (docs/records.md, "What the house
// deals"), for the browser's fair-deal check (js/fair.js verifyRecord, through the view module's
// `dealtCards` export): on the first deal of a match the toss reads natural cards from the top,
// passing over jokers; then one round per card of a hand, one card to each seat in turn order,
// then the cut joker, then the first open card. Only the number of cards a hand gets differs
// from game to game.
//
//   dealtCardsFor(handSize) -> dealtCards(deck, view)

// The cards the engine gave `view.viewer` from `deck` ({hand, cut, open}); null when that seat
// was not dealt in; {toss: false} when the toss cards are not the top of this deck.
export function dealtCardsFor(handSize) {
  return function dealtCards(deck, view) {
    const seat = view && view.viewer;
    const order = (view && view.order) || [];
    const index = order.indexOf(seat);
    if (index < 0) return null;
    const count = order.length;
    let position = 0;
    if (view.deal === 1) {
      for (const entry of view.toss || []) {
        while (position < deck.length && deck[position] === 'JK') position += 1;
        if (deck[position] !== entry.card) return { hand: [], open: null, cut: null, toss: false };
        position += 1;
      }
    }
    const rest = deck.slice(position);
    const hand = [];
    for (let round = 0; round < handSize; round += 1) hand.push(rest[index + round * count]);
    return { hand, cut: rest[handSize * count], open: rest[handSize * count + 1] };
  };
}
