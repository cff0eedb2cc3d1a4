// The fairness arithmetic of docs/deals.md, in the browser: SHA-256 (our own, synchronous,
// so it works where crypto.subtle is missing: plain http on a LAN address), seed shares
// for create/join/ready, and the deal of a seed (SHA-256 counter mode, unbiased draws,
// Fisher–Yates). No game rules: only how a seed becomes a layout.

const encoder = new TextEncoder();
const rotr = (x, n) => (x >>> n) | (x << (32 - n));
// The constants are the first 32 bits of the fractional parts of the square roots (the
// start) and cube roots (the rounds) of the first primes, as FIPS 180-4 defines them.
const fraction = (x) => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
const PRIMES = [];
for (let n = 2; PRIMES.length < 64; n++) if (PRIMES.every((p) => n % p)) PRIMES.push(n);
const K = PRIMES.map((p) => fraction(Math.cbrt(p)));
const START = PRIMES.slice(0, 8).map((p) => fraction(Math.sqrt(p)));

// SHA-256 of bytes (a Uint8Array), as 32 bytes.
export function sha256Bytes(data) {
  const padded = new Uint8Array(Math.ceil((data.length + 9) / 64) * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const bytes = new DataView(padded.buffer);
  bytes.setUint32(padded.length - 8, Math.floor(data.length / 2 ** 29));
  bytes.setUint32(padded.length - 4, (data.length * 8) >>> 0);
  const h = START.slice();
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = bytes.getUint32(block + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      w[i] = w[i - 16] + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[i - 7] + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10));
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    [a, b, c, d, e, f, g, k].forEach((x, i) => { h[i] = (h[i] + x) | 0; });
  }
  const out = new DataView(new ArrayBuffer(32));
  h.forEach((x, i) => out.setUint32(i * 4, x >>> 0));
  return new Uint8Array(out.buffer);
}

export const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

// SHA-256 of a text (UTF-8), in hex.
export function sha256(text) {
  return hex(sha256Bytes(encoder.encode(text)));
}

// ----- seed shares: committed at create/join, revealed at ready (kept per race in this
// browser's localStorage, so a reload or another tab of the same player still reveals the
// share committed to; a page with none gets ready without it, and the deal leaves it out)

const SHARE_KEY = "solitaire-arena.share.";
// The races whose shares are kept, oldest first: only the latest SHARES_KEPT stay.
const SHARES_ORDER_KEY = "solitaire-arena.shares";
const SHARES_KEPT = 48;

// A new share (256 random bits, hex) and its commitment; null where the page has no
// random source.
export function newShare() {
  if (!globalThis.crypto?.getRandomValues) return null;
  const share = hex(crypto.getRandomValues(new Uint8Array(32)));
  return { share, commitment: sha256(share) };
}

export function keepShare(raceId, share) {
  if (!share) return;
  localStorage.setItem(SHARE_KEY + raceId, share);
  const order = [...keptRaces().filter((id) => id !== raceId), raceId];
  for (const old of order.splice(0, Math.max(0, order.length - SHARES_KEPT))) localStorage.removeItem(SHARE_KEY + old);
  localStorage.setItem(SHARES_ORDER_KEY, JSON.stringify(order));
}

export function shareOf(raceId) {
  return localStorage.getItem(SHARE_KEY + raceId) ?? undefined;
}

function keptRaces() {
  try {
    const order = JSON.parse(localStorage.getItem(SHARES_ORDER_KEY) ?? "[]");
    return Array.isArray(order) ? order.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

// A share committed before the race exists: with quick_match (kept as "queue.<game>", the
// same one when asking again while queued) or a rematch offer or acceptance (kept as
// "rematch.<race id that ended>"), until match_found or rematch_started seats us; then
// kept as the race's, and revealed with reveal_share during the countdown.
const PENDING_KEY = SHARE_KEY + "pending.";

export function pendingShare(key, reuse = false) {
  const kept = reuse ? sessionStorage.getItem(PENDING_KEY + key) : null;
  if (kept) return { share: kept, commitment: sha256(kept) };
  const fresh = newShare();
  if (fresh) sessionStorage.setItem(PENDING_KEY + key, fresh.share);
  else sessionStorage.removeItem(PENDING_KEY + key);
  return fresh;
}

export function seatPendingShare(key, raceId) {
  const share = sessionStorage.getItem(PENDING_KEY + key);
  sessionStorage.removeItem(PENDING_KEY + key);
  keepShare(raceId, share);
  return share ?? undefined;
}

export function forgetPendingShares(prefix) {
  for (const key of Object.keys(sessionStorage)) if (key.startsWith(PENDING_KEY + prefix)) sessionStorage.removeItem(key);
}

// ----- the deal

export function commitmentOf(game, serverSeed, salt) {
  return sha256(`solitaire-arena:${game}:${serverSeed}:${salt}`);
}

// The deal's seed from the server's seed and the shares ({player id: share}), as text.
export function mixedSeed(game, serverSeed, shares) {
  const ids = Object.keys(shares).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  if (!ids.length) return String(serverSeed);
  const text = `solitaire-arena:mix:v1:${game}:${serverSeed}` + ids.map((id) => `:${id}=${shares[id]}`).join("");
  return new DataView(sha256Bytes(encoder.encode(text)).buffer).getBigUint64(0).toString();
}

// The 52 cards in dealing order for `game` and `seed` (decimal text), version 1.
export function dealingOrder(game, seed) {
  const deck = [];
  for (const suit of "CDHS") for (const rank of "A23456789TJQK") deck.push(rank + suit);
  let block = 0;
  let words = [];
  const word = () => {
    if (!words.length) {
      const digest = new DataView(sha256Bytes(encoder.encode(`solitaire-arena:deal:v1:${game}:${seed}:${block++}`)).buffer);
      words = [0, 8, 16, 24].map((at) => digest.getBigUint64(at));
    }
    return words.shift();
  };
  const below = (m) => {
    const bound = BigInt(m);
    const limit = 2n ** 64n - ((2n ** 64n) % bound);
    for (;;) {
      const x = word();
      if (x < limit) return Number(x % bound);
    }
  };
  for (let i = 51; i >= 1; i--) {
    const j = below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// The layout as docs/deals.md lays the dealing order out: pile -> cards, bottom to top.
export function dealLayout(game, seed) {
  const order = dealingOrder(game, seed);
  const piles = {};
  if (game === "eight-off") {
    for (let t = 1; t <= 8; t++) piles[`t${t}`] = order.slice(0, 48).filter((_, i) => i % 8 === t - 1);
    for (let r = 1; r <= 8; r++) piles[`r${r}`] = r <= 4 ? [order[47 + r]] : [];
    for (let f = 1; f <= 4; f++) piles[`f${f}`] = [];
  } else if (game === "eagle-wing") {
    piles.reserve = order.slice(0, 13);
    for (let t = 1; t <= 8; t++) piles[`t${t}`] = [order[12 + t]];
    piles.f1 = [order[21]];
    for (let f = 2; f <= 4; f++) piles[`f${f}`] = [];
    piles.stock = order.slice(22);
    piles.waste = [];
  } else {
    for (let p = 1; p <= 28; p++) piles[`p${p}`] = [order[p - 1]];
    piles.stock = order.slice(28);
    piles.waste = [];
  }
  return piles;
}
