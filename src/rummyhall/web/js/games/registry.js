// The game views the table shell can load, by the engine's name (info.game).
// Each module exports createView(ctx) -> {update(message), destroy()} (see docs/client.md).
export const GAME_VIEWS = {
  indian13: () => import('./indian13.js'),
  patti: () => import('./patti.js'),
};
