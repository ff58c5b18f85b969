// The games the client can show, found at run time: GET /api/games lists every game of the
// installation (name, title, label, blurb, the URL of its view module and of its style sheet),
// and this module loads a game's view module from that URL with import(). Nothing here, and
// nothing in the shell (app.js, table.js, history.js, howto.js), names a game: a new game is a
// new folder on the server and a new view module here (docs/client.md, "Game view modules").
//
//   gameList() -> Promise<[{name, title, label, blurb, view, style, order}]>   (asked once)
//   gameInfo(game) -> Promise<{...} | null>          one game's entry; null for an unknown game
//   gameLabel(game) -> Promise<string>               its short name, or the name itself
//   gameView(game) -> Promise<module | null>         its view module (loaded once); null if none
//   gameViews() -> Promise<[{info, module}]>         every game's view module, in lobby order
//   gameGuide(game) -> Promise<howToPlay | null>     the game's "how to play" guide
//   loadGameStyles() -> Promise                      links every game's style sheet (once)

let listing = null;
const modules = new Map();
let styles = null;

export function gameList() {
  if (!listing) {
    listing = fetch('/api/games', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then((response) => {
        if (!response.ok) throw new Error(`GET /api/games answered ${response.status}`);
        return response.json();
      })
      .then((data) => data.games || [])
      .catch((error) => {
        listing = null; // ask again next time
        throw error;
      });
  }
  return listing;
}

export async function gameInfo(game) {
  return (await gameList()).find((info) => info.name === game) || null;
}

export async function gameLabel(game) {
  try {
    const info = await gameInfo(game);
    return (info && info.label) || game;
  } catch {
    return game;
  }
}

export async function gameView(game) {
  if (!modules.has(game)) {
    const loading = gameInfo(game).then((info) => (info && info.view ? import(info.view) : null));
    loading.catch(() => modules.delete(game));
    modules.set(game, loading);
  }
  return modules.get(game);
}

export async function gameViews() {
  const list = await gameList();
  const loaded = await Promise.all(list.map((info) => gameView(info.name)));
  return list.map((info, i) => ({ info, module: loaded[i] }));
}

export async function gameGuide(game) {
  const module = await gameView(game);
  return (module && module.howToPlay) || null;
}

// Each game's style sheet, linked where index.html marks the place for them (so the cascade is
// the same as if the page listed them there); resolves once they are loaded or have failed.
export function loadGameStyles() {
  if (!styles) {
    styles = gameList().then((list) => {
      const marker = document.querySelector('meta[name="game-styles"]');
      return Promise.all(list.filter((info) => info.style).map((info) => new Promise((resolve) => {
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = info.style;
        link.dataset.game = info.name;
        link.addEventListener('load', resolve);
        link.addEventListener('error', resolve);
        if (marker) marker.before(link);
        else document.head.append(link);
      })));
    }).catch((error) => {
      styles = null;
      console.error('game styles', error);
    });
  }
  return styles;
}
