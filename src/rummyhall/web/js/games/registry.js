// The game views the table shell can load, by the engine's name (info.game).
// Each module exports createView(ctx) -> {update(message), destroy()} (see docs/client.md),
// and howToPlay: the game's short guide ({title, summary, sections}; see js/howto.js).
export const GAME_VIEWS = {
  indian13: () => import('./indian13.js'),
  patti: () => import('./patti.js'),
};

// A game's "how to play" guide from its view module, or null for a game without one.
export async function gameGuide(game) {
  const load = GAME_VIEWS[game];
  if (!load) return null;
  const module = await load();
  return module.howToPlay || null;
}
