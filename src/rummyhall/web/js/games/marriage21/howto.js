// "How to play" for 21-card Marriage Rummy, in our own words (the rules in full:
// docs/rules/marriage-21.md). The numbers are the engine's
// (src/rummyhall/games/marriage21/rules.py and settle.py); keep them in step.
//
// Shape: {title, summary, sections: [{heading, items: [[term, words], ...]}]}

export const howToPlay = {
  title: '21-card Marriage',
  summary: 'Three packs, 21 cards each. Build three pure sequences and meld the rest to win, and hold value cards: they pay you even when you lose.',
  sections: [
    {
      heading: 'A turn',
      items: [
        ['Draw', 'Take the top card of the closed deck or of the open pile.'],
        ['Discard', 'Throw one card on the open pile; you are back to 21 cards.'],
        ['Declare', 'Instead, put a card in the finish slot when your 21 cards show a winning shape. The others then show their groups.'],
        ['Time', 'A turn has a timer, plus a bank of extra seconds for the deal. Miss three turns in a row and you are out, scored as a middle drop.'],
      ],
    },
    {
      heading: 'Winning shapes',
      items: [
        ['Standard', 'Three or more pure sequences, and every other card in a valid sequence or set.'],
        ['Three tunnelas', 'Three groups of three identical cards (7♥ 7♥ 7♥); the rest may be anything.'],
        ['Eight dublees', 'Eight pairs of identical cards, each its own group; the rest may be anything.'],
        ['Eight jokers', 'Eight wild cards together in one group; the rest may be anything.'],
      ],
    },
    {
      heading: 'Wild and value cards',
      items: [
        ['Cut joker', 'The card turned up at the start. Every card of its rank is wild, and so are the printed jokers.'],
        ['Upper and lower jokers', 'The cards one rank above and below the cut joker, in its suit: wild too. In their own place they keep a sequence pure.'],
        ['Value cards', 'The cut, upper and lower jokers themselves (marked CUT, UP, LO). Everyone still in the deal collects for theirs from each other player still in it: 10, 30 or 50 for one, two or three of a kind.'],
        ['Marriage', 'A cut, an upper and a lower joker together: 100 from each player (300 for two, 500 for three), instead of their value as single cards.'],
      ],
    },
    {
      heading: 'Scoring a deal',
      items: [
        ['Card points', '2 to 9 their number; 10, J, Q, K and A ten; wild cards nothing. With no pure sequence all your cards count; with one or two, those are spared; with three or more, every meld is spared. At most 120.'],
        ['Two points only', 'A loser who shows three pure sequences with the rest melded, six dublees, or seven wild cards in one group.'],
        ['Drops', '30 before you have drawn in the deal, 70 after. A wrong declaration costs 120, and the deal goes on without you.'],
        ['Net', 'Card points, value cards and marriages together; nobody loses more than 200 in a deal. Chips are the net times the table’s point value.'],
      ],
    },
  ],
};
