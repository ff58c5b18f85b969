// "How to play" for Rummy Patti, in our own words: the lobby and the table show it through
// js/games/registry.js (howToPlay) and js/howto.js, so the shell never names a game. The
// numbers are the engine's defaults (src/rummyhall/games/patti/rules.py); keep them in step.
//
// Shape: {title, summary, sections: [{heading, items: [[term, words], ...]}]}

export const howToPlay = {
  title: 'Rummy Patti',
  summary: 'Three cards each and a pot in the middle. Pay to stay in, swap a card if it helps, and either outlast everyone or hold the best hand when the cards are turned over.',
  sections: [
    {
      heading: 'Before the cards',
      items: [
        ['Boot', 'The ante: everyone puts it in the pot before the deal. If you cannot cover it you sit that game out.'],
        ['The centre', 'After the hands, two cards go to the middle: one face up (the open card) and one face down (the closed card).'],
      ],
    },
    {
      heading: 'Your turn: pick one',
      items: [
        ['Chaal', 'Pay the current price to keep your cards and stay in.'],
        ['Chaal 2X', 'Pay double. From then on everyone pays the higher price, up to the table’s max chaal (128 boots).'],
        ['Exchange', 'Give up one of your cards and take the open or the closed centre card instead; you pay the chaal. The card you gave up takes its place in the centre.'],
        ['Sideshow', 'With three or more still in, pay the chaal and ask the nearest player before you (who has already had a turn) to compare hands in private. If they accept, the two of you see each other’s cards; if they refuse, nothing is shown.'],
        ['Show', 'With exactly two left, pay the chaal and both hands are turned over: the better one takes the pot.'],
        ['Pack', 'Fold. You are out of this game and lose what you already paid.'],
      ],
    },
    {
      heading: 'How a game ends',
      items: [
        ['Last one in', 'Everyone else packed: you take the pot without showing.'],
        ['Show', 'Two players left and one calls for it.'],
        ['Pot limit', 'Once the pot reaches 1,024 boots, every hand still in is shown and the best wins. Equal hands split the pot.'],
        ['Timer', 'Run out of time and a plain chaal is paid for you; do it twice in a row and you are packed.'],
      ],
    },
    {
      heading: 'Hands, best first',
      items: [
        ['Trail', 'Three of a rank: Q♠ Q♥ Q♦.'],
        ['Pure sequence', 'Three in a row, one suit: 7♣ 8♣ 9♣.'],
        ['Sequence', 'Three in a row, mixed suits.'],
        ['Colour', 'Three of one suit, not in a row.'],
        ['Pair', 'Two of a rank and one other card.'],
        ['High card', 'Anything else: the highest card decides, then the next. Suits never break a tie.'],
      ],
    },
  ],
};
