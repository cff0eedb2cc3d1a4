// The wire protocol over one WebSocket (JSON text frames): requests answered by id,
// events to listeners, and a resume with the saved token after any drop.

const TOKEN_KEY = "solitaire-arena.token";
// Seeds are unsigned 64-bit integers (a deal mixed from seed shares takes all 64 bits,
// shared/fairness.py mixed_seed; the server's own seed and a daily's take 63), past what
// a number holds exactly (2^53): JSON.parse would round them, so a long one is read as its
// digits (text). `"seed":` unescaped is only ever a key: a quote inside a string comes
// escaped.
const LONG_SEED = /"seed":\s*(\d{16,})/g;
// Milliseconds that tell a live connection from a dead one. A link that stops delivering
// without closing (Wi-Fi gone, a NAT's mapping timed out, a laptop switching networks)
// never fires `close` until the OS gives up on it (about 15 min), so the page watches it
// itself: a request unanswered for `request`, or a connection that heard nothing for
// `quiet`, sends a `ping`; if nothing at all comes within `answer` after it, the page
// closes that connection and reconnects. A new connection not open within `request` is
// given up too. Tests shorten them with `window.solitaireArenaTiming` (set before the
// page's scripts run).
export const TIMING = Object.freeze({ request: 10000, quiet: 15000, answer: 5000 });

export function parseFrame(text) {
  return JSON.parse(text.replace(LONG_SEED, '"seed":"$1"'));
}

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
    this.pending = new Map(); // id -> { resolve, reject, ws }
    this.listeners = new Map();
    this.player = null; // the welcome, kept up to date by register
    // Why each race this page heard of was cancelled (race_cancelled's message): a page
    // drawn after the news (it comes right after a welcome) still says it.
    this.cancelled = new Map();
    this.ready = null;
    this.closing = false;
    this.pause = 250;
    // A visitor nobody signed in on who only reads and watches (the lobby's list, Live,
    // Watch, Verify, the leaderboard) needs a session, not a player: a viewer's (hello
    // with viewer), which the server stores nothing for. Playing starts the visitor's own
    // guest under the name they choose.
    this.watchOnly = false;
    // Why the server closed this page's connection when it signed the player out there
    // ("signed out: the account's password was changed"): said once the resume is refused.
    this.signedOutBecause = null;
    this.timing = { ...TIMING, ...(globalThis.solitaireArenaTiming ?? {}) };
  }

  // The saved session's token (a player's: a viewer has none).
  get token() { return localStorage.getItem(TOKEN_KEY); }

  // The token this page says hello with: the saved one (a viewer has none).
  get sessionToken() { return this.watchOnly ? null : this.token; }

  // Whether a dropped connection is said hello on again: a player's with its token, a
  // viewer's as a new viewer.
  get resumable() { return this.watchOnly || Boolean(this.token); }

  // The player this page plays as: null before one signs in, and while only watching.
  get playing() { return this.watchOnly ? null : this.player; }

  // The account's username, or null for a guest (or nobody yet).
  get username() { return this.player?.username ?? null; }

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
  // A viewer's session is closed first: from now on the page plays.
  async start(name) {
    if (this.watchOnly) {
      const watching = this.ws;
      this.watchOnly = false;
      this.player = null;
      this.ws = null;
      if (watching) watching.close(1000, "playing now");
    }
    return this.attempt(name);
  }

  // A session to watch with when nobody signed in on this page (see `watchOnly`).
  async watch() {
    if (this.watchOnly && this.ready) return this.ready;
    this.watchOnly = true;
    return this.attempt(null);
  }

  // A hello (see open) kept as `ready` while it is under way. A refused one (a name the
  // server does not take, rate_limited, ...) is forgotten with its connection, so the next
  // start begins afresh; only a lost connection with a token to resume is left to
  // reconnect().
  async attempt(name) {
    const hello = this.open(name);
    this.ready = hello;
    try {
      return await hello;
    } catch (error) {
      if (this.ready === hello && !(error.code === "connection_lost" && this.resumable)) {
        this.ready = null;
        const ws = this.ws;
        this.ws = null; // closed on purpose: no resume
        if (ws) ws.close();
      }
      throw error;
    }
  }

  open(name) {
    return new Promise((resolve, reject) => {
      const ws = this.connection();
      this.ws = ws;
      ws.onopen = async () => {
        this.heartbeat(ws);
        try {
          const token = this.sessionToken;
          const hello = this.watchOnly ? { type: "hello", viewer: true, legal_moves: true }
            : token ? { type: "hello", token, legal_moves: true, changed_piles: true }
            : { type: "hello", name, legal_moves: true, changed_piles: true };
          let welcome;
          try {
            welcome = await this.sendOn(ws, hello);
          } catch (error) {
            if (error.code !== "bad_token") throw error;
            if (token && this.sessionToken && this.sessionToken !== token) {
              // Another tab of this browser saved a new token meanwhile (it registered, or
              // changed the password): the next try, on a new connection, resumes with it.
              ws.close();
              throw error;
            }
            // Expired, logged out or revoked (another tab's saved token is not this one's).
            localStorage.removeItem(TOKEN_KEY);
            if (!name) {
              // A resume that cannot be: nobody is signed in on this page any more.
              this.player = null;
              ws.close();
              this.signedOut("signed out");
              throw error;
            }
            welcome = await this.sendOn(ws, { type: "hello", name, legal_moves: true, changed_piles: true }); // start again
          }
          this.welcomed(welcome);
          resolve(welcome);
        } catch (error) {
          reject(error);
        }
      };
      ws.onerror = () => reject(new ArenaError("connection_lost", "cannot reach the server"));
    });
  }

  // A new WebSocket to the server, its frames received and its close seen to. Not open
  // within `timing.request`, it is given up (a connection attempt into a dead link waits
  // minutes for the OS otherwise).
  connection() {
    const ws = new WebSocket(this.url);
    ws.onmessage = (frame) => {
      ws.heard = performance.now();
      this.received(parseFrame(frame.data));
    };
    ws.onclose = (event) => this.dropped(ws, event);
    setTimeout(() => { if (ws.readyState === WebSocket.CONNECTING) this.abandon(ws); }, this.timing.request);
    return ws;
  }

  // Keeps an eye on the open connection `ws` (see TIMING): quiet for `timing.quiet`, it is
  // checked with a ping.
  heartbeat(ws) {
    ws.heard = performance.now();
    const beat = () => {
      if (ws.readyState !== WebSocket.OPEN) return;
      const quiet = performance.now() - ws.heard;
      if (quiet < this.timing.quiet) { ws.beat = setTimeout(beat, this.timing.quiet - quiet); return; }
      this.probe(ws);
      ws.beat = setTimeout(beat, this.timing.answer);
    };
    ws.beat = setTimeout(beat, this.timing.quiet);
  }

  // Whether `ws` still delivers: a ping, and if nothing at all (its pong or anything
  // else) came on it within `timing.answer`, it is dead and given up. The ping waits among
  // the requests (an error without an id is matched to the oldest), answering nobody.
  probe(ws) {
    if (ws.probing || ws.readyState !== WebSocket.OPEN) return;
    ws.probing = true;
    const asked = performance.now();
    const id = this.nextId++;
    this.pending.set(id, { resolve() {}, reject() {}, ws, timer: null });
    ws.send(JSON.stringify({ type: "ping", id }));
    setTimeout(() => {
      ws.probing = false;
      this.pending.delete(id);
      if (!(ws.heard >= asked)) this.abandon(ws);
    }, this.timing.answer);
  }

  // A connection found dead: closed by this page and dropped at once (the reconnect path
  // of any drop), without waiting for its close event, which for a dead link comes only
  // when the closing handshake or the OS gives up on it.
  abandon(ws) {
    if (ws.readyState >= WebSocket.CLOSING) return;
    const failed = ws.onerror;
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    clearTimeout(ws.beat);
    ws.close(1000, "no answer");
    failed?.call(ws); // a connection not yet open: the attempt fails as if refused
    this.dropped(ws, null);
  }

  welcomed(welcome) {
    if (!this.watchOnly) localStorage.setItem(TOKEN_KEY, welcome.token);
    this.player = welcome;
    this.signedOutBecause = null;
    this.pause = 250;
    this.emit("welcome", welcome);
  }

  // Log in to an account on a new connection (`login` replaces `hello` there). Only once
  // it is welcomed does it replace the page's connection (a guest's, or none): a wrong
  // password leaves the page as it was. The new token is kept as hello's is.
  login(username, password) {
    const attempt = new Promise((resolve, reject) => {
      const ws = this.connection();
      ws.onerror = () => reject(new ArenaError("connection_lost", "cannot reach the server"));
      ws.onopen = async () => {
        this.heartbeat(ws);
        try {
          const welcome = await this.sendOn(ws, { type: "login", username, password, legal_moves: true, changed_piles: true });
          const old = this.ws;
          this.ws = ws;
          if (old && old !== ws) old.close(1000, "logged in elsewhere on this page");
          this.watchOnly = false; // an account plays: its token is saved
          this.welcomed(welcome);
          resolve(welcome);
        } catch (error) {
          ws.close();
          reject(error);
        }
      };
    });
    attempt.then((welcome) => { this.ready = Promise.resolve(welcome); }, () => {});
    return attempt;
  }

  // The guest on this page goes by a new name (the server's form of it is returned); its
  // seats in races not over take it.
  async rename(name) {
    const renamed = await this.request({ type: "rename", name });
    this.player = { ...this.player, name: renamed.name };
    this.emit("account", this.player);
    return renamed.name;
  }

  // The guest on this page claims `username`; their player and races stay theirs. The
  // account has a new token (the guest's stopped working): saved in place of the guest's.
  async register(username, password) {
    const account = await this.request({ type: "register", username, password });
    this.renewed(account.token);
    this.player = { ...this.player, name: account.username, username: account.username };
    this.emit("account", this.player);
    return account;
  }

  // A new password: every token of the account stops working, this page's too; the
  // server's ok carries this session's new one, saved in its place.
  async changePassword(oldPassword, newPassword) {
    const ok = await this.request({ type: "change_password", old_password: oldPassword, new_password: newPassword });
    this.renewed(ok.token);
    return ok;
  }

  // The server gave this session a new token (the one it said hello with was revoked):
  // kept as hello's is, so a reload or a dropped connection resumes with it.
  renewed(token) {
    if (token && !this.watchOnly) localStorage.setItem(TOKEN_KEY, token);
  }

  // Revoke this page's token (the server closes the connection after ok), and forget it.
  async logout() {
    await this.request({ type: "logout" });
    this.forget();
  }

  // Nobody is signed in on this page any more: no token, no connection, no resume.
  forget() {
    localStorage.removeItem(TOKEN_KEY);
    const ws = this.ws;
    this.ws = null;
    this.player = null;
    this.ready = null;
    if (ws) ws.close();
    this.emit("signed_out", { reason: null });
  }

  // Nobody is signed in on this page any more: why, in the server's words when it closed
  // the connection for it, else `otherwise`.
  signedOut(otherwise) {
    const reason = this.signedOutBecause ?? otherwise;
    this.signedOutBecause = null;
    this.emit("signed_out", { reason });
  }

  dropped(ws, closed) {
    clearTimeout(ws.beat);
    if (ws === this.ws && closed?.reason?.startsWith("signed out")) this.signedOutBecause = closed.reason;
    for (const [id, waiting] of this.pending) {
      if (waiting.ws !== ws) continue;
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      // Sent, never answered: it may have taken effect (a move: send it again under its seq).
      waiting.reject(Object.assign(new ArenaError("connection_lost", "the connection dropped"), { unanswered: true }));
    }
    if (ws !== this.ws || this.closing) return;
    if (!this.resumable) { this.tokenGone(); return; }
    this.emit("connection", { state: "lost" });
    setTimeout(() => this.reconnect(), this.pause);
  }

  // The saved token went while this page was signed in with it: another tab of this
  // browser logged out (and forgot it). Nobody is signed in here either, and it says so
  // as a token revoked elsewhere does, with the server's reason when it gave one. (This
  // page's own logout forgot its player first.)
  tokenGone() {
    if (!this.player || this.watchOnly) return;
    const ws = this.ws;
    this.ws = null;
    this.player = null;
    this.ready = null;
    if (ws) ws.close();
    this.signedOut("signed out in another tab");
  }

  async reconnect() {
    if (!this.resumable) { this.tokenGone(); return; } // signed out meanwhile (here, or in another tab)
    if (this.ws?.readyState === WebSocket.OPEN && this.player) return; // a login replaced the dropped one
    this.pause = Math.min(this.pause * 2, 4000);
    try {
      this.ready = this.open(null);
      await this.ready;
      this.emit("connection", { state: "back" });
    } catch {
      // onclose schedules the next try (a token the server no longer knows: signed_out)
    }
  }

  received(message) {
    const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (waiting) {
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.type === "error") waiting.reject(new ArenaError(message.code, message.message));
      else waiting.resolve(message);
      return;
    }
    if (message.type === "error" && message.id === undefined && this.pending.size) {
      // Dropped by the rate limit: replies come in order, so it is the oldest request's.
      const [id, oldest] = this.pending.entries().next().value;
      this.pending.delete(id);
      clearTimeout(oldest.timer);
      oldest.reject(new ArenaError(message.code, message.message));
      return;
    }
    if (message.type === "renamed" && this.player) {
      // Its name changed on another page (a rename, or a register: now an account's).
      this.player = { ...this.player, name: message.name, ...(message.username ? { username: message.username } : {}) };
      this.emit("account", this.player);
    }
    if (message.type === "race_cancelled") this.cancelled.set(message.race_id, message.message);
    this.emit(message.type, message);
  }

  send(message) {
    return this.sendOn(this.ws, message);
  }

  sendOn(ws, message) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!ws || ws.readyState !== WebSocket.OPEN) {
        reject(new ArenaError("connection_lost", "not connected"));
        return;
      }
      // Unanswered for `timing.request`, the link is checked (and checked again as long as
      // the answer is awaited): a dead one is dropped, which fails the request.
      const waiting = { resolve, reject, ws, timer: null };
      const overdue = () => {
        if (this.pending.get(id) !== waiting) return;
        this.probe(ws);
        waiting.timer = setTimeout(overdue, this.timing.request);
      };
      waiting.timer = setTimeout(overdue, this.timing.request);
      this.pending.set(id, waiting);
      ws.send(JSON.stringify({ ...message, id }));
    });
  }

  // A request once connected (waits for a resume under way).
  async request(message) {
    if (!this.ready) throw new ArenaError("hello_required", "choose a name or sign in first");
    await this.ready;
    return this.send(message);
  }
}
