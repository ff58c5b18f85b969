// A game's mark on a special card (a value card, say), drawn inside the card's box at its top
// left, under the corner index: that strip stays in view when cards overlap in a hand.
//
//   addBadge(node, badge) -> node    badge: {text, title?} or a string; null: nothing
//
// Test hook: data-testid="card-badge" (data-badge: its text). The card's aria-label gains the
// badge's title (or text), so a screen reader hears it too.

export function addBadge(node, badge) {
  if (!badge) return node;
  const { text, title } = typeof badge === 'string' ? { text: badge, title: '' } : badge;
  const mark = document.createElement('span');
  mark.className = 'h13-badge';
  mark.dataset.testid = 'card-badge';
  mark.dataset.badge = text;
  mark.textContent = text;
  mark.setAttribute('aria-hidden', 'true');
  if (title) mark.title = title;
  node.classList.add('h13-badged');
  const label = node.getAttribute('aria-label');
  if (label) node.setAttribute('aria-label', `${label}, ${title || text}`);
  node.append(mark);
  return node;
}
