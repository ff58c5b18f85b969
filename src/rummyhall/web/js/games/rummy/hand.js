// A rummy hand of any size: cards laid out in the player's groups, each group labelled with its
// kind. The groups wrap onto as many rows as the width needs, and so do the cards of a group too
// long for one row (css/rummy.css), so a 21-card hand fits a phone.
// Cards move by dragging (pointer events: mouse and touch) or by keyboard:
//   Enter / Space     select or unselect the focused card
//   Left / Right      move the focus; with a card selected, move that card within the hand
//   Up / Down         with a card selected, move it to the previous / next group
//   N                 put the selected card in a group of its own
//   D                 discard the selected card (when you may);  F  declare with it (finish)
//   Escape            unselect
//
// createHand(root, opts) -> {render(groups, state), focusCard(pos), element}
//   opts.cards                the cards.js module
//   opts.onMove(from, to)     a card moved inside the hand ({group, index} positions;
//                             to.group === groups.length: a new group)
//   opts.onSelect(pos|null)   the selection changed
//   opts.onKey(key, pos)      'discard' or 'declare' asked from the keyboard
//   opts.onDropOut(pos, target) a card was dropped on an outside target (open pile, finish slot)
//   opts.outsideTarget(x, y)  -> {el, cls, kind} of an outside target under the pointer, or null
// state: {labels: [{text, kind, points}] per group (text, when given, is shown instead of the
//         kind's name), selected: pos|null, picked: Set of "g:i" positions also shown selected
//         (a game that picks several cards at once; clicks and Enter on them still call
//         onSelect(pos), only `selected` gets onSelect(null)), isWild(card) (or wild: a rank), badge(card) ->
//         {text, title} | null (rummy/badge.js), fresh: Set
//         of "g:i" positions to mark as new, newGroup: index of the "new cards" group or -1,
//         disabled: bool}
//
// Test hooks: data-testid="hand" (the container), "group" (each group, data-kind; data-new="true"
// on the "new cards" group), "group-label",
// "hand-card" (each card, data-card, data-group, data-index), "group-new" (the new-group slot).

import { addBadge } from './badge.js';
import { draggable, elementAt } from './drag.js';

const KIND_WORDS = {
  pure_sequence: 'Pure sequence',
  impure_sequence: 'Impure sequence',
  set: 'Set',
  tunnela: 'Tunnela',
  jokers: 'Jokers',
  dublee: 'Dublee',
  invalid: 'Invalid',
};

export function kindWords(kind) {
  return KIND_WORDS[kind] || 'Checking…';
}

export function createHand(root, opts) {
  const { cards } = opts;
  const element = document.createElement('div');
  element.className = 'h13-hand';
  element.dataset.testid = 'hand';
  element.setAttribute('role', 'group');
  element.setAttribute('aria-label', 'Your hand');
  root.append(element);
  let groups = [];
  let state = { labels: [], selected: null };

  function posOf(node) {
    return { group: Number(node.dataset.group), index: Number(node.dataset.index) };
  }

  function cardEl(pos) {
    return element.querySelector(`[data-testid="hand-card"][data-group="${pos.group}"][data-index="${pos.index}"]`);
  }

  // Where a card dropped at (x, y) goes: {el, cls, kind: 'hand', to} or an outside target.
  function targetAt(x, y) {
    const outside = opts.outsideTarget ? opts.outsideTarget(x, y) : null;
    if (outside) return outside;
    const under = elementAt(x, y);
    if (!under || !element.contains(under)) {
      // Near the hand (in its padding, between rows): the nearest card's slot.
      const box = element.getBoundingClientRect();
      if (x < box.left || x > box.right || y < box.top - 20 || y > box.bottom + 20) return null;
    }
    const slot = under && under.closest('[data-testid="group-new"]');
    if (slot) return { el: slot, cls: 'h13-over', kind: 'hand', to: { group: groups.length, index: 0 } };
    const card = under && under.closest('[data-testid="hand-card"]');
    if (card && element.contains(card)) {
      const rect = card.getBoundingClientRect();
      const pos = posOf(card);
      // Cards overlap: the visible strip of a card is its left part, so compare with a point
      // left of the centre.
      const after = x > rect.left + Math.min(rect.width / 2, 22);
      return {
        el: card,
        cls: after ? 'h13-insert-after' : 'h13-insert-before',
        kind: 'hand',
        to: { group: pos.group, index: pos.index + (after ? 1 : 0) },
      };
    }
    const group = under && under.closest('[data-testid="group"]');
    if (group && element.contains(group)) {
      const g = Number(group.dataset.group);
      return { el: group, cls: 'h13-over', kind: 'hand', to: { group: g, index: groups[g].length } };
    }
    return { el: element.querySelector('[data-testid="group-new"]'), cls: 'h13-over', kind: 'hand', to: { group: groups.length, index: 0 } };
  }

  function onKeyDown(event) {
    const node = event.currentTarget;
    const pos = posOf(node);
    const selected = state.selected && state.selected.group === pos.group && state.selected.index === pos.index;
    const key = event.key;
    if (key === 'Enter' || key === ' ') {
      event.preventDefault();
      opts.onSelect(selected ? null : pos);
      return;
    }
    if (key === 'Escape') {
      opts.onSelect(null);
      return;
    }
    const all = [...element.querySelectorAll('[data-testid="hand-card"]')];
    const at = all.indexOf(node);
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      event.preventDefault();
      const step = key === 'ArrowLeft' ? -1 : 1;
      if (!selected) {
        const next = all[at + step];
        if (next) next.focus();
        return;
      }
      const row = groups[pos.group];
      let to;
      if (step < 0 && pos.index === 0) {
        if (pos.group === 0) return;
        to = { group: pos.group - 1, index: groups[pos.group - 1].length };
      } else if (step > 0 && pos.index === row.length - 1) {
        if (pos.group === groups.length - 1) {
          if (row.length === 1) return;
          to = { group: groups.length, index: 0 };
        } else {
          to = { group: pos.group + 1, index: 0 };
        }
      } else {
        to = { group: pos.group, index: pos.index + (step > 0 ? 2 : -1) };
      }
      opts.onMove(pos, to, { keyboard: true });
      return;
    }
    if ((key === 'ArrowUp' || key === 'ArrowDown') && selected) {
      event.preventDefault();
      const g = pos.group + (key === 'ArrowUp' ? -1 : 1);
      if (g < 0) return;
      const to = g >= groups.length ? { group: groups.length, index: 0 } : { group: g, index: groups[g].length };
      if (g >= groups.length && groups[pos.group].length === 1) return;
      opts.onMove(pos, to, { keyboard: true });
      return;
    }
    if ((key === 'n' || key === 'N') && selected) {
      event.preventDefault();
      opts.onMove(pos, { group: groups.length, index: 0 }, { keyboard: true });
      return;
    }
    if ((key === 'd' || key === 'D') && selected) {
      event.preventDefault();
      opts.onKey('discard', pos);
      return;
    }
    if ((key === 'f' || key === 'F') && selected) {
      event.preventDefault();
      opts.onKey('declare', pos);
    }
  }

  // FLIP: remember where every card was, rebuild, then slide cards from there.
  function positions() {
    const seen = new Map();
    const rects = new Map();
    for (const node of element.querySelectorAll('[data-testid="hand-card"]')) {
      const card = node.dataset.card;
      const n = (seen.get(card) || 0) + 1;
      seen.set(card, n);
      rects.set(`${card}~${n}`, node.getBoundingClientRect());
    }
    return rects;
  }

  // A message arriving in the middle of a drag must not pull the cards from under the pointer:
  // the hand is drawn again once the drag is over.
  let pending = null;
  const onDragEnd = () => {
    if (!pending) return;
    const [g, s] = pending;
    pending = null;
    render(g, s);
  };
  window.addEventListener('h13-dragend', onDragEnd);

  function render(nextGroups, nextState) {
    if (document.body.classList.contains('h13-dragging')) {
      pending = [nextGroups, nextState];
      return;
    }
    pending = null;
    const hadFocus = element.contains(document.activeElement) ? posOf(document.activeElement) : null;
    const before = positions();
    groups = nextGroups;
    state = { ...state, ...nextState };
    element.replaceChildren();
    element.classList.toggle('h13-disabled', Boolean(state.disabled));
    groups.forEach((group, g) => {
      const label = state.labels[g] || {};
      const box = document.createElement('div');
      box.className = `h13-group h13-kind-${label.kind || 'unknown'}`;
      box.dataset.testid = 'group';
      box.dataset.group = String(g);
      box.dataset.kind = label.kind || '';
      const isNew = state.newGroup === g;
      box.dataset.new = isNew ? 'true' : 'false';
      box.classList.toggle('h13-newcards', isNew);
      box.setAttribute('role', 'group');
      const words = label.text || (label.kind ? kindWords(label.kind) : 'Checking…');
      box.setAttribute('aria-label', `Group ${g + 1}${isNew ? ' (new cards)' : ''}: ${words}`);
      const tag = document.createElement('div');
      tag.className = 'h13-group-label';
      tag.dataset.testid = 'group-label';
      if (isNew) {
        const fresh = document.createElement('span');
        fresh.className = 'h13-new-tag';
        fresh.textContent = 'New';
        fresh.title = 'cards you drew; drag them into your groups';
        tag.append(fresh);
      }
      const name = document.createElement('span');
      name.className = 'h13-kind';
      name.textContent = words;
      tag.append(name);
      if (label.kind && label.points !== undefined && label.counted) {
        const pts = document.createElement('span');
        pts.className = 'h13-points';
        pts.textContent = `${label.points}`;
        pts.title = `${label.points} points count against you`;
        tag.append(pts);
      }
      const row = document.createElement('div');
      row.className = 'h13-cards';
      group.forEach((card, i) => {
        const pos = { group: g, index: i };
        const selected = state.selected && state.selected.group === g && state.selected.index === i;
        const picked = selected || Boolean(state.picked && state.picked.has(`${g}:${i}`));
        const wild = state.isWild ? state.isWild(card) : card === 'JK' || (state.wild && card.slice(0, -1) === state.wild);
        const node = cards.renderCard(card, { button: true, selected: picked, wild });
        if (state.badge) addBadge(node, state.badge(card));
        node.classList.add('h13-card');
        node.dataset.testid = 'hand-card';
        node.dataset.group = String(g);
        node.dataset.index = String(i);
        node.setAttribute('aria-pressed', picked ? 'true' : 'false');
        const fresh = state.fresh && state.fresh.has(`${g}:${i}`);
        if (fresh) node.classList.add('h13-fresh');
        node.setAttribute(
          'aria-label',
          `${node.getAttribute('aria-label')}, group ${g + 1}, card ${i + 1} of ${group.length}${fresh ? ', just drawn' : ''}`,
        );
        node.addEventListener('click', () => opts.onSelect(selected ? null : pos));
        node.addEventListener('keydown', onKeyDown);
        draggable(node, {
          source: () => posOf(node),
          canDrag: () => !state.locked,
          targetAt: (x, y) => targetAt(x, y),
          drop: (from, target) => {
            if (target.kind === 'hand') opts.onMove(from, target.to, { keyboard: false });
            else opts.onDropOut(from, target);
          },
        });
        row.append(node);
      });
      box.append(tag, row);
      element.append(box);
    });
    const slot = document.createElement('div');
    slot.className = 'h13-newgroup';
    slot.dataset.testid = 'group-new';
    slot.setAttribute('aria-hidden', 'true');
    slot.textContent = 'new group';
    element.append(slot);
    // Slide the cards that moved.
    const after = new Map();
    for (const node of element.querySelectorAll('[data-testid="hand-card"]')) {
      const card = node.dataset.card;
      const n = (after.get(card) || 0) + 1;
      after.set(card, n);
      const old = before.get(`${card}~${n}`);
      if (!old) continue;
      const now = node.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      node.animate(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }],
        { duration: 180, easing: 'cubic-bezier(.2,.7,.3,1)' },
      );
    }
    if (hadFocus && !state.focus) focusCard(hadFocus);
    if (state.focus) focusCard(state.focus);
  }

  function focusCard(pos) {
    if (!pos) return;
    let node = cardEl(pos);
    if (!node) {
      const all = element.querySelectorAll('[data-testid="hand-card"]');
      node = all[all.length - 1];
    }
    if (node) node.focus({ preventScroll: true });
  }

  return {
    element,
    render,
    focusCard,
    destroy: () => {
      window.removeEventListener('h13-dragend', onDragEnd);
      element.remove();
    },
  };
}
