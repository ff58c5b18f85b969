// How a game is named, the same on the table, in the history and in the replay: by its table and
// its number there ("Table 12 · game 3", what the players saw while playing it), and its saved
// record by the record's id ("record #16", the id in #/hand/<id> and the API). The two numbers
// differ (a table counts its own games; records are numbered across the whole room), so each is
// always shown with its word.

export function gameName(table, gameNo) {
  if (!table) return gameNo ? `Game ${gameNo}` : 'Game';
  return gameNo ? `Table ${table} · game ${gameNo}` : `Table ${table}`;
}

export function recordName(id) {
  return `record #${id}`;
}
