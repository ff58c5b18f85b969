// Small DOM helpers shared by every screen.
//   el(tag, attrs, ...children)  attrs: class, text, dataset, style (object), on<Event> handlers,
//                                anything else becomes an attribute (false/null/undefined: left out)
//   toast(text, kind?)           kind: 'info' | 'error' | 'success'; data-testid="toast"
//   openDialog({title, body, actions}) -> {close, element}; confirmDialog(title, text) -> Promise<bool>
//   formatChips(n)               12,345
//   arrowKeys(container, selector, {orientation}) roving focus with arrow keys (Home/End too)

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key === 'dataset') Object.assign(node.dataset, value);
      else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
      else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2).toLowerCase(), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

const chipFormat = new Intl.NumberFormat('en-US');
export function formatChips(n) {
  if (n === null || n === undefined || Number.isNaN(Number(n))) return '–';
  return chipFormat.format(Number(n));
}

export function toast(text, kind = 'info', ms = 3800) {
  const box = document.getElementById('toasts') || document.body;
  const item = el('div', { class: `toast toast-${kind}`, 'data-testid': 'toast', role: kind === 'error' ? 'alert' : 'status' }, text);
  box.append(item);
  requestAnimationFrame(() => item.classList.add('shown'));
  const remove = () => {
    item.classList.remove('shown');
    setTimeout(() => item.remove(), 300);
  };
  setTimeout(remove, ms);
  item.addEventListener('click', remove);
  return item;
}

// A modal dialog on <dialog>: Escape closes it, focus goes back where it was.
export function openDialog({ title, body, actions = [], testid = 'dialog', onClose } = {}) {
  const previous = document.activeElement;
  const heading = el('h2', { class: 'dialog-title', id: `dlg-${Math.random().toString(36).slice(2)}` }, title);
  const dialog = el('dialog', { class: 'dialog', 'data-testid': testid, 'aria-labelledby': heading.id });
  const buttons = el('div', { class: 'dialog-actions' });
  const close = (value) => {
    if (!dialog.open) return;
    dialog.close();
    dialog.remove();
    if (previous && previous.focus) previous.focus();
    if (onClose) onClose(value);
  };
  for (const action of actions) {
    buttons.append(el('button', {
      class: `btn ${action.kind ? `btn-${action.kind}` : ''}`,
      type: 'button',
      'data-testid': action.testid,
      onclick: async () => {
        const keep = action.onClick ? await action.onClick() : undefined;
        if (keep !== true) close(action.value);
      },
    }, action.label));
  }
  dialog.append(heading, el('div', { class: 'dialog-body' }, body), buttons);
  dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(undefined); });
  document.body.append(dialog);
  dialog.showModal();
  return { element: dialog, close };
}

export function confirmDialog(title, text, { yes = 'Yes', no = 'Cancel' } = {}) {
  return new Promise((resolve) => {
    openDialog({
      title,
      body: el('p', {}, text),
      testid: 'confirm',
      actions: [
        { label: no, value: false, testid: 'confirm-no' },
        { label: yes, value: true, kind: 'primary', testid: 'confirm-yes' },
      ],
      onClose: (value) => resolve(Boolean(value)),
    });
  });
}

// Roving focus inside `container`: arrow keys move between the elements matching `selector`
// (Left/Up back, Right/Down forward, Home/End to the ends). Returns a function that removes it.
export function arrowKeys(container, selector, { orientation = 'both', onMove } = {}) {
  const handler = (event) => {
    const back = orientation !== 'vertical' ? ['ArrowLeft'] : [];
    const forward = orientation !== 'vertical' ? ['ArrowRight'] : [];
    if (orientation !== 'horizontal') { back.push('ArrowUp'); forward.push('ArrowDown'); }
    const items = [...container.querySelectorAll(selector)].filter((item) => !item.disabled);
    const at = items.indexOf(document.activeElement);
    if (at < 0 || !items.length) return;
    let next = null;
    if (back.includes(event.key)) next = Math.max(0, at - 1);
    else if (forward.includes(event.key)) next = Math.min(items.length - 1, at + 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = items.length - 1;
    if (next === null) return;
    event.preventDefault();
    items[next].focus();
    if (onMove) onMove(items[next], next);
  };
  container.addEventListener('keydown', handler);
  return () => container.removeEventListener('keydown', handler);
}

// Enter/Space activate a non-button element that acts as one (role="button", tabindex="0").
export function activateOnKeys(node, callback) {
  node.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      callback(event);
    }
  });
  return node;
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el('textarea', { style: { position: 'fixed', opacity: '0' } });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}
