// "How to play" for 13-card rummy, in our own words: the lobby and the table show it through
// js/games/registry.js (howToPlay) and js/howto.js, so the shell never names a game. The
// numbers are the ones the engine uses (src/rummyhall/games/indian13/rules.py); keep them in step.
//
// Shape: {title, summary, sections: [{heading, items: [[term, words], ...]}]}

export const howToPlay = {
  title: '13-card rummy',
  summary: 'You hold 13 cards. Sort them into runs and sets, then be the first to declare: the others pay for the cards they could not fit anywhere.',
  sections: [
    {
      heading: 'A turn',
      items: [
        ['Draw', 'Pick up one card: the top of the closed deck (unseen) or the card last thrown on the open pile.'],
        ['Discard', 'Put one card face up on the open pile. That ends your turn, and you are back to 13 cards.'],
        ['Declare', 'Instead of discarding, lay the spare card in the finish slot when your other 13 cards are all in valid groups. Everyone else then shows their groups and is scored.'],
        ['Time', 'Each turn has a timer, plus a bank of extra seconds for the whole deal. Miss three turns in a row and you are taken out of the deal (scored as a middle drop).'],
      ],
    },
    {
      heading: 'Groups',
      items: [
        ['Pure sequence', 'Three or more cards of one suit in an unbroken run, with nothing standing in: 4♠ 5♠ 6♠. Ace goes low (A 2 3) or high (Q K A), never round the corner.'],
        ['Sequence', 'A run of one suit where a joker fills a gap: 9♥ JK J♥.'],
        ['Set', 'Three or four cards of one rank, each of a different suit; a joker may stand in for a missing suit.'],
        ['Ready to declare', 'At least two sequences, one of them pure, and every other card inside a sequence or a set.'],
      ],
    },
    {
      heading: 'Jokers',
      items: [
        ['Printed joker', 'The JK cards: wild in every deal.'],
        ['Cut joker', 'At the start of each deal a card is turned face up beside the deck. Every card of that rank, in any suit, is wild for the deal. (If the turned card is a printed joker, the aces are wild.)'],
        ['Wild cards', 'Stand in for any card in a sequence or a set, and count nothing. Think twice before throwing one away: the table asks you to confirm.'],
      ],
    },
    {
      heading: 'Scoring a deal',
      items: [
        ['Card points', 'Cards left out of groups count against you: 2 to 9 their number; 10, J, Q, K and A ten each; wild cards nothing. Without the sequences you need, everything outside your pure sequences counts (in vengala, every card). Nobody scores more than 80 in a deal.'],
        ['Drop', 'At the start of your turn, before you draw, you may give up the deal for a fixed score: cheaper as a first drop (you have not drawn yet this deal) than as a middle drop (you have).'],
        ['Wrong declaration', 'Declaring with groups that do not hold up costs the full 80, and the deal goes on without you.'],
      ],
    },
    {
      heading: 'Kinds of table',
      items: [
        ['Points', 'A game is one deal. Every loser pays the winner their points times the table’s point value.'],
        ['Pool 101 and 201', 'Everyone pays the entry fee into a prize pot. Scores add up deal after deal; reaching 101 (or 201) knocks you out, and the last player left takes the pot, less the house’s cut.'],
        ['Rejoin', 'Knocked out of a pool? While everyone still in is low enough (79 in pool 101, 174 in pool 201), you may pay the entry fee again and come back one point above the highest score still in.'],
      ],
    },
    {
      heading: 'Classic and vengala',
      items: [
        ['Classic', 'Two to six players, two decks with one printed joker each. A cut-rank card turned up as the first open card can only be taken on the very first turn, and a wild card just thrown cannot be picked up by the next player. Drops cost 20 / 40.'],
        ['Vengala', 'Two to five players and more printed jokers. One of your two sequences must have four cards or more, each group may lean on one joker at most, and three identical cards (a tunnela) count as a pure sequence. A thrown wild card may be picked up. Drops cost 10 / 30.'],
      ],
    },
  ],
};
