// "How to play": a dialog with a game's own guide. The words live in each game's view module
// (its `howToPlay` export, found through js/games/registry.js), so the lobby and the table shell
// show any game's guide without naming one.
//
//   howToPlayButton(game, {testid, label, small}) -> <button> that opens the guide (hidden when
//                                                    the game has none)
//   openHowToPlay(game) -> Promise<boolean>          false when the game has no guide
//
// data-testid hooks: how-to-play (the dialog, data-game), how-to-play-section, how-to-play-close

import { gameGuide } from './games/registry.js';
import { el, openDialog, toast } from './ui.js';

export async function openHowToPlay(game) {
  let guide = null;
  try {
    guide = await gameGuide(game);
  } catch (error) {
    console.error('how to play', error);
  }
  if (!guide) {
    toast('There is no guide for this game yet.', 'info');
    return false;
  }
  const body = el('div', { class: 'howto' },
    guide.summary ? el('p', { class: 'howto-summary' }, guide.summary) : null,
    ...(guide.sections || []).map((section) => el('section', { class: 'howto-section', 'data-testid': 'how-to-play-section' },
      el('h3', {}, section.heading),
      el('dl', {}, ...(section.items || []).flatMap(([term, words]) => [el('dt', {}, term), el('dd', {}, words)])))));
  const dialog = openDialog({
    title: `How to play ${guide.title}`,
    body,
    testid: 'how-to-play',
    actions: [{ label: 'Close', kind: 'primary', testid: 'how-to-play-close' }],
  });
  dialog.element.classList.add('dialog-wide');
  dialog.element.dataset.game = game;
  return true;
}

export function howToPlayButton(game, { testid = `how-to-play-${game}`, label = 'How to play', small = true } = {}) {
  return el('button', {
    class: `btn btn-ghost${small ? ' btn-small' : ''} howto-open`, type: 'button', 'data-testid': testid,
    'aria-haspopup': 'dialog', onclick: () => openHowToPlay(game),
  }, label);
}
