// Pointer-event dragging for cards (mouse, pen and touch alike), with no library.
//
//   draggable(node, {source, targetAt, drop, click, canDrag})
//     source()              -> what is dragged (any value), read at pointer down
//     canDrag(source)       -> false to forbid dragging (a click still works)
//     targetAt(x, y, src)   -> {el, cls, ...} the drop target under the pointer, or null; `el`
//                              gets the class `cls` while it is hovered
//     drop(src, target)     -> called on release over a target
//     click(event)          -> called when the pointer went down and up without moving
//
// A drag starts once the pointer has moved 6 px; a floating copy of the card follows the
// pointer (it ignores pointer events, so document.elementFromPoint finds what lies under it).
// While a drag is on, <body> has the class h13-dragging; a window event h13-dragend follows it.

const THRESHOLD = 6;

export function draggable(node, opts) {
  node.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 && event.pointerType === 'mouse') return;
    const source = opts.source ? opts.source() : null;
    const allowed = !opts.canDrag || opts.canDrag(source);
    const startX = event.clientX;
    const startY = event.clientY;
    let ghost = null;
    let target = null;
    let offsetX = 0;
    let offsetY = 0;

    const highlight = (next) => {
      if (target && target.el && target.cls) target.el.classList.remove(target.cls);
      target = next;
      if (target && target.el && target.cls) target.el.classList.add(target.cls);
    };

    const begin = () => {
      const rect = node.getBoundingClientRect();
      offsetX = startX - rect.left;
      offsetY = startY - rect.top;
      ghost = node.cloneNode(true);
      ghost.removeAttribute('data-testid');
      ghost.removeAttribute('id');
      ghost.setAttribute('aria-hidden', 'true');
      ghost.classList.add('h13-ghost');
      ghost.style.width = `${rect.width}px`;
      ghost.style.height = `${rect.height}px`;
      document.body.append(ghost);
      node.classList.add('h13-drag-source');
      document.body.classList.add('h13-dragging');
    };

    const place = (x, y) => {
      ghost.style.transform = `translate(${x - offsetX}px, ${y - offsetY}px) rotate(-4deg)`;
    };

    const move = (ev) => {
      if (ev.pointerId !== event.pointerId) return;
      if (!ghost) {
        if (!allowed) return;
        if (Math.hypot(ev.clientX - startX, ev.clientY - startY) < THRESHOLD) return;
        begin();
      }
      ev.preventDefault();
      place(ev.clientX, ev.clientY);
      highlight(opts.targetAt(ev.clientX, ev.clientY, source));
    };

    const finish = (ev, cancelled) => {
      if (ev.pointerId !== event.pointerId) return;
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', cancel);
      if (!ghost) {
        if (!cancelled && opts.click) opts.click(ev);
        return;
      }
      const last = target;
      highlight(null);
      ghost.remove();
      node.classList.remove('h13-drag-source');
      document.body.classList.remove('h13-dragging');
      window.dispatchEvent(new CustomEvent('h13-dragend'));
      // A click event follows the pointerup of a drag on some browsers: swallow it.
      const swallow = (click) => {
        click.stopPropagation();
        click.preventDefault();
      };
      window.addEventListener('click', swallow, { capture: true, once: true });
      setTimeout(() => window.removeEventListener('click', swallow, { capture: true }), 0);
      if (!cancelled && last) opts.drop(source, last);
    };
    const up = (ev) => finish(ev, false);
    const cancel = (ev) => finish(ev, true);

    window.addEventListener('pointermove', move, { passive: false });
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', cancel);
  });
  // Touch: keep the browser from scrolling or zooming while a card is dragged.
  node.style.touchAction = 'none';
  node.addEventListener('dragstart', (event) => event.preventDefault());
}

// The element under (x, y), ignoring the floating card.
export function elementAt(x, y) {
  return document.elementFromPoint(x, y);
}
