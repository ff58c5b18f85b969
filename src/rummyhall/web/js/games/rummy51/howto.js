// "How to play" for Rummy 51, in our own words: the lobby and the table show it through
// js/games/registry.js (howToPlay) and js/howto.js, so the shell never names a game. The numbers
// are the engine's (src/rummyhall/games/rummy51/rules.py); keep them in step.
//
// Shape: {title, summary, sections: [{heading, items: [[term, words], ...]}]}

export const howToPlay = {
  title: 'Rummy 51',
  summary: 'Empty your hand before anyone else. Your first cards go down as an opening worth 51 or more; after that you can add to any group on the table and steal jokers from it. The player who throws their last card wins.',
  sections: [
    {
      heading: 'The cards',
      items: [
        ['Shoe', 'Two packs and four jokers, 108 cards, for 2 to 6 players.'],
        ['Hands', 'Fourteen cards each. Whoever moves first gets a fifteenth and starts by throwing one, without drawing. The first move goes one seat round the table each game.'],
        ['Piles', 'The rest is the face-down stock. Thrown cards go face up on the discard pile.'],
      ],
    },
    {
      heading: 'Your turn',
      items: [
        ['Draw', 'Click the stock, or the top of the discard pile when it is offered (it glows).'],
        ['Play', 'Once past the first round: open, or, having opened, lay down new groups, add cards to groups on the table and swap jokers.'],
        ['Throw', 'End every turn by throwing a card on the discard pile: pick it and press Discard, or drag it onto the pile.'],
        ['First round', 'Until everybody has had a turn, nobody lays anything down, and anyone may take the top discard.'],
        ['Timer', 'Each turn has a clock (30 seconds unless the table says otherwise). When it runs out the turn is finished for you: a card is drawn if you had not drawn, and the card drawn is thrown.'],
      ],
    },
    {
      heading: 'Groups',
      items: [
        ['Set', 'Three or four cards of one rank, each of a different suit: 8♠ 8♥ 8♣.'],
        ['Run', 'Three or more cards of one suit in a row: 4♦ 5♦ 6♦. The ace is low (A 2 3) or high (Q K A), never in between (K A 2 is no run).'],
        ['Joker', 'Stands for any card a group is missing; the table labels it with that card (=6♠). A group always has at least one real card.'],
        ['Values', '2 to 9 count their number; 10, J, Q, K and A count 10; a joker counts as the card it stands for.'],
      ],
    },
    {
      heading: 'Opening',
      items: [
        ['51', 'Your first lay-down must be groups worth 51 or more together, in one turn, with at most one joker in each group.'],
        ['The tray', 'Pick cards in your hand and press Make group: the tray shows each group\u2019s value and the total against 51. Hint fills it with the best opening your hand holds. Open sends it.'],
        ['Taking the discard', 'After the first round, if you have not opened you may take the top discard only to open in that same turn. If you cannot, put it back and draw from the stock.'],
      ],
    },
    {
      heading: 'After opening',
      items: [
        ['New groups', 'Lay more sets and runs down through the tray (Lay down).'],
        ['Lay off', 'Add a card to any group on the table, yours or another player\u2019s: drag it onto the group, or pick it and press the group\u2019s +. A joker dropped on the left half of a run goes at its low end, on the right half at its high end. A set of four is full.'],
        ['Swap a joker', 'Hold the card a joker on the table stands for? Drop it on the joker (or pick it and click the joker): your card takes its place and the joker comes to your hand.'],
        ['Keep one', 'You always keep a card to throw: the last card never goes onto the table.'],
      ],
    },
    {
      heading: 'Jokers on the pile',
      items: [
        ['No lone jokers', 'A joker cannot be thrown alone unless jokers are all you hold.'],
        ['Bury', 'Pick a joker and another card and press Bury: the card lands on top with the joker under it, where nobody can take it.'],
      ],
    },
    {
      heading: 'Winning and scores',
      items: [
        ['Going out', 'The game ends when someone throws their last card. Doing it in the very turn you open, with everything else laid down, is a Rummy.'],
        ['Scores', 'Lower is better: the winner scores −40; a player who opened scores the cards still held (a joker 20); a player who never opened scores 100.'],
        ['Places', 'By score, then by fewer cards left. The winner takes every player\u2019s stake.'],
      ],
    },
  ],
};
