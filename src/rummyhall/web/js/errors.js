// Plain words for every error code of docs/protocol.md (HTTP, WebSocket and the game engines).
// explain(code, fallbackMessage?) -> a sentence for people.

const WORDS = {
  // transport and schema
  bad_request: 'That request was not understood. Please check what you typed.',
  bad_message: 'The game did not understand that message. Please try again.',
  not_found: 'There is nothing at that address.',
  method_not_allowed: 'That request was not understood. Please reload the page.',
  too_large: 'That message was too large to send.',
  rate_limited: 'Slow down a little: too many tries in a short time. Please wait a moment and try again.',
  network: 'The server cannot be reached. Check your connection and try again.',
  offline: 'You are offline; the table will come back when the connection does.',
  internal: 'Something went wrong on our side. The table goes on; please try again.',
  forbidden: 'Only the operator may do that.',
  busy: 'The room is busy right now. Please try again in a moment.',
  node_draining: 'This server is handing its tables over before a restart. Please try again: another server will answer.',
  not_a_node: 'This server runs alone: it has no other server to hand its tables to.',
  wrong_node: 'That is another server than the one named: nothing was done.',
  // accounts
  not_signed_in: 'Please sign in first.',
  bad_name: 'That name cannot be used. A name is 3 to 20 letters, digits, dashes or underscores, and names starting with "guest-" are kept for guests.',
  weak_password: 'That password is too weak. Use at least 8 characters.',
  name_taken: 'That name is already taken. Try another one, or log in if it is yours.',
  bad_login: 'The name or the password is wrong.',
  // lobby and seats
  unknown_room: 'That room does not exist.',
  unknown_table: 'That table does not exist any more. If it is a private table, open its invite link.',
  too_many_tables: 'You have opened as many tables as you may at once. Play at one of them, or wait until one closes (a table nobody sits at closes after a minute).',
  unknown_invite: 'That invite link is not valid, or its table has closed.',
  unknown_hand: 'That game record cannot be found.',
  unknown_account: 'That player cannot be found.',
  table_closed: 'That table has closed.',
  table_moved: 'The table has moved to another server: reconnecting you to it.',
  already_seated: 'You already have a seat at this table.',
  seated_elsewhere: 'You already have a seat at another table: go back to it or leave it first, or choose to sit here as well.',
  table_full: 'This table is full.',
  seat_taken: 'Someone else just took that seat.',
  bad_seat: 'That seat does not exist at this table.',
  bad_buy_in: 'The buy-in is below the smallest stack this room allows.',
  insufficient_chips: 'You do not have enough chips for that.',
  practice_only: 'Guests play with practice chips only. Sign up for an account to play in the rooms for real chips.',
  order_conflict: 'That order id was used already, for another player or amount.',
  refill_not_needed: 'You still have enough practice chips: refills are for when they run low.',
  room_locked: 'That room opens at a higher level: finish games in the rooms you have to earn clover and climb to its title.',
  not_seated: 'You do not have a seat at this table.',
  no_game: 'No game is running at this table right now.',
  // the ladder
  bonus_claimed: 'You have collected today\'s daily bonus already. The next one is ready at midnight, Berlin time.',
  unknown_board: 'There is no such leaderboard.',
  bad_cursor: 'That page of the leaderboard cannot be found. Please reload the leaderboard.',
  unknown_league: 'There is no such league.',
  // game engines
  bad_action: 'That move was not understood.',
  not_your_turn: 'It is not your turn yet.',
  illegal_action: 'That move is not allowed right now.',
  invalid_cards: 'Those cards cannot be played that way.',
  game_over: 'This game is already over.',
  unknown_seat: 'That seat is not in this game.',
  too_early: 'Too early: wait for the right moment.',
  too_late: 'Too late: the time for that has passed.',
};

export const CODES = Object.freeze(Object.keys(WORDS));

export function explain(code, fallbackMessage) {
  if (code && Object.prototype.hasOwnProperty.call(WORDS, code)) return WORDS[code];
  if (fallbackMessage) {
    const text = String(fallbackMessage);
    return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.');
  }
  return 'That did not work. Please try again.';
}
