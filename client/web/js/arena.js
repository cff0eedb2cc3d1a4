// The wire protocol over one WebSocket (JSON text frames): requests answered by id,
// events to listeners, and a resume with the saved token after any drop.

const TOKEN_KEY = "solitaire-arena.token";

export class ArenaError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
    this.reason = message;
  }
}

export class Arena {
  constructor(url) {
    this.url = url;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.player = null;
    this.ready = null;
    this.closing = false;
    this.pause = 250;
  }

  get token() { return localStorage.getItem(TOKEN_KEY); }

  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return () => this.listeners.get(type).delete(listener);
  }

  emit(type, message) {
    for (const listener of this.listeners.get(type) ?? []) listener(message);
    for (const listener of this.listeners.get("*") ?? []) listener(message);
  }

  // Open the connection and say hello: with the saved token, or as a new guest `name`.
  async start(name) {
    this.ready = this.open(name);
    return this.ready;
  }

  open(name) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.ws = ws;
      ws.onmessage = (frame) => this.received(JSON.parse(frame.data));
      ws.onclose = () => this.dropped(ws);
      ws.onopen = async () => {
        try {
          const hello = this.token
            ? { type: "hello", token: this.token, legal_moves: true }
            : { type: "hello", name, legal_moves: true };
          let welcome;
          try {
            welcome = await this.send(hello);
          } catch (error) {
            if (error.code !== "bad_token" || !name) throw error;
            localStorage.removeItem(TOKEN_KEY); // an expired guest: start again
            welcome = await this.send({ type: "hello", name, legal_moves: true });
          }
          localStorage.setItem(TOKEN_KEY, welcome.token);
          this.player = welcome;
          this.pause = 250;
          this.emit("welcome", welcome);
          resolve(welcome);
        } catch (error) {
          reject(error);
        }
      };
      ws.onerror = () => reject(new ArenaError("connection_lost", "cannot reach the server"));
    });
  }

  dropped(ws) {
    for (const { reject } of this.pending.values()) reject(new ArenaError("connection_lost", "the connection dropped"));
    this.pending.clear();
    if (ws !== this.ws || this.closing || !this.token) return;
    this.emit("connection", { state: "lost" });
    setTimeout(() => this.reconnect(), this.pause);
  }

  async reconnect() {
    this.pause = Math.min(this.pause * 2, 4000);
    try {
      this.ready = this.open(null);
      await this.ready;
      this.emit("connection", { state: "back" });
    } catch {
      // onclose schedules the next try
    }
  }

  received(message) {
    const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (waiting) {
      this.pending.delete(message.id);
      if (message.type === "error") waiting.reject(new ArenaError(message.code, message.message));
      else waiting.resolve(message);
      return;
    }
    if (message.type === "error" && message.id === undefined && this.pending.size) {
      // Dropped by the rate limit: replies come in order, so it is the oldest request's.
      const [id, oldest] = this.pending.entries().next().value;
      this.pending.delete(id);
      oldest.reject(new ArenaError(message.code, message.message));
      return;
    }
    this.emit(message.type, message);
  }

  send(message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new ArenaError("connection_lost", "not connected"));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ ...message, id }));
    });
  }

  // A request once connected (waits for a resume under way).
  async request(message) {
    await this.ready;
    return this.send(message);
  }
}
