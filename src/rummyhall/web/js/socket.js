// One WebSocket to /ws for every table the page watches (docs/protocol.md).
//
//   const socket = new TableSocket();          // connects at once
//   socket.watch(tableId, onMessage)            // onMessage(snapshot | update | closed | error)
//   socket.unwatch(tableId)
//   socket.act(tableId, action) -> Promise<ack or update> (a watched table answers an action
//                                    with the update carrying its cid) rejects with {code, message}
//   socket.sit(tableId, {seat, buy_in}) / socket.leave(tableId) -> Promise<ack>
//   socket.addEventListener('status', e => e.detail.online)   // for the reconnect banner
//   socket.addEventListener('signedout', ...)   // the handshake was refused (4401)
//
// On a dropped connection it reconnects with backoff (0.25 s doubling to 5 s, with jitter),
// watches every table again with its last seq, and resends every unanswered message with the
// same cid (the server applies a cid once).

let counter = 0;
function newCid() {
  counter += 1;
  const random = Math.random().toString(36).slice(2, 10);
  return `c${Date.now().toString(36)}-${counter}-${random}`;
}

export class TableSocket extends EventTarget {
  constructor(url) {
    super();
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.url = url || `${scheme}//${location.host}/ws`;
    this.ws = null;
    this.online = false;
    this.closed = false;
    this.attempts = 0;
    this.watches = new Map(); // table id -> {onMessage, seq}
    this.pending = new Map(); // cid -> {message, resolve, reject}
    this.timer = null;
    this.pingTimer = null;
    this.lastSeen = 0;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      this.attempts = 0;
      this.lastSeen = Date.now();
      this.setOnline(true);
      for (const [table, watch] of this.watches) {
        this.send({ type: 'watch', table, ...(watch.seq != null ? { since: watch.seq } : {}) });
      }
      for (const entry of this.pending.values()) this.send(entry.message);
      this.startPing();
    });
    ws.addEventListener('message', (event) => {
      if (this.ws !== ws) return;
      this.lastSeen = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(message);
    });
    ws.addEventListener('close', (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      this.setOnline(false);
      if (event.code === 4401) {
        this.dispatchEvent(new CustomEvent('signedout'));
        return;
      }
      this.scheduleReconnect();
    });
    ws.addEventListener('error', () => {
      // a 'close' follows; nothing to do here
    });
  }

  scheduleReconnect() {
    if (this.closed || this.timer) return;
    const base = Math.min(5000, 250 * 2 ** this.attempts);
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempts += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  /** Reconnect now (e.g. the browser says it is back online). */
  reconnectNow() {
    if (this.online || this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.attempts = 0;
    if (!this.ws) this.connect();
  }

  startPing() {
    this.stopPing();
    // a ping every 20 s; no answer for 45 s means the link is dead: drop it and reconnect
    this.pingTimer = setInterval(() => {
      if (!this.ws) return;
      if (Date.now() - this.lastSeen > 45000) {
        const ws = this.ws;
        this.ws = null;
        try { ws.close(); } catch { /* already closed */ }
        this.setOnline(false);
        this.scheduleReconnect();
        return;
      }
      this.send({ type: 'ping', cid: newCid() });
    }, 20000);
  }

  stopPing() {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  setOnline(online) {
    if (this.online === online) return;
    this.online = online;
    this.dispatchEvent(new CustomEvent('status', { detail: { online } }));
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  receive(message) {
    const { type } = message;
    if (type === 'update' && message.cid != null && this.pending.has(message.cid)) {
      // The update caused by our own action carries its cid: it is the action's answer.
      const entry = this.pending.get(message.cid);
      this.pending.delete(message.cid);
      entry.resolve(message);
    }
    if (type === 'snapshot' || type === 'update' || type === 'closed') {
      const watch = this.watches.get(message.table);
      if (!watch) return;
      if (typeof message.seq === 'number') {
        if (type === 'update' && watch.seq != null && message.seq < watch.seq) return; // stale
        watch.seq = message.seq;
      }
      watch.received = performance.now();
      watch.onMessage(message);
      if (type === 'closed') this.watches.delete(message.table);
      return;
    }
    if (type === 'ack' || type === 'error') {
      const entry = message.cid != null ? this.pending.get(message.cid) : null;
      if (entry) {
        this.pending.delete(message.cid);
        if (type === 'ack') entry.resolve(message);
        else entry.reject({ code: message.code, message: message.message, table: message.table });
        return;
      }
      if (type === 'error') {
        const watch = message.table != null ? this.watches.get(message.table) : null;
        if (watch) watch.onMessage(message);
        else this.dispatchEvent(new CustomEvent('error', { detail: message }));
      }
    }
    // pong: lastSeen was updated already
  }

  watch(table, onMessage) {
    const id = Number(table);
    const known = this.watches.get(id);
    this.watches.set(id, { onMessage, seq: known ? known.seq : null });
    this.send({ type: 'watch', table: id });
  }

  unwatch(table) {
    const id = Number(table);
    if (!this.watches.delete(id)) return;
    this.send({ type: 'unwatch', table: id });
  }

  request(message) {
    const cid = newCid();
    const full = { ...message, cid };
    return new Promise((resolve, reject) => {
      this.pending.set(cid, { message: full, resolve, reject });
      this.send(full); // when offline, it goes out on reconnect
    });
  }

  act(table, action) {
    return this.request({ type: 'act', table: Number(table), action });
  }

  sit(table, { seat = null, buy_in = null } = {}) {
    const message = { type: 'sit', table: Number(table) };
    if (seat != null) message.seat = seat;
    if (buy_in != null) message.buy_in = buy_in;
    return this.request(message);
  }

  leave(table) {
    return this.request({ type: 'leave', table: Number(table) });
  }

  close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopPing();
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    for (const entry of this.pending.values()) entry.reject({ code: 'offline', message: 'closed' });
    this.pending.clear();
    this.watches.clear();
  }
}
