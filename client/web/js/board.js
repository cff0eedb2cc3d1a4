// A board drawn from the server's view, laid out as Aisleriot lays each game out, and
// moves built by clicks or keys from the legal moves the server sends (no rules here).

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_TEXT = { T: "10" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
// How long a moved card glides from its old place to its new one.
const GLIDE_MS = 140;
let animations = true;

// A server's text with its card codes ("9D", "TH") written as the board shows cards.
export function cardsInWords(text) {
  return text.replace(/\b([A2-9TJQK])([CDHS])\b/g, (_, rank, suit) => `${RANK_TEXT[rank] ?? rank}${SUITS[suit]}`);
}

// A rank as the page says it: "ace", "10", "7", "queen".
function rankName(rank) {
  return RANK_NAMES[rank] ?? RANK_TEXT[rank] ?? rank;
}

// A card as a screen reader says it: "ace of clubs", "10 of hearts".
export function cardName(code) {
  return `${rankName(code[0])} of ${SUIT_NAMES[code[1]]}`;
}

// Eagle Wing's redeals left (docs/rules.md), in words: "redeals left: 2", "no redeals left";
// `glue` goes between the words and the count.
function redealsWords(left, glue = " ") {
  return left ? `redeals left:${glue}${left}` : "no redeals left";
}

// Eagle Wing's base rank and redeals left, as the board says them beside its foundations
// (Aisleriot shows both too): the text of each line, or none for another game's view.
function eagleInfo(view) {
  const lines = [];
  if (view.game !== "eagle-wing") return lines;
  if (view.base_rank != null) lines.push(`base: ${rankName(view.base_rank)}`);
  // The count stays with its words where a phone's narrow box wraps the line.
  if (view.redeals_left != null) lines.push(redealsWords(view.redeals_left, "\u00a0"));
  return lines;
}

// What the game did by itself after a move (its ack's steps past the move's own cards:
// Eight Off's cards going home, Eagle Wing's reserve filling a pile), in words for a
// screen reader: "3 cards went home: ace of clubs, 2 of clubs, 3 of clubs"; "" if nothing.
export function autoplayWords(result) {
  const move = parseMove(result.move);
  if (!move.to || move.pair) return ""; // a deal, a redeal, Treize's removals: every step is the move's own
  const more = result.steps.slice(move.count).filter(([card]) => card);
  const home = more.filter(([, , to]) => to.startsWith("f"));
  const said = home.length ? [`${home.length} ${home.length === 1 ? "card" : "cards"} went home: ${home.map(([card]) => cardName(card)).join(", ")}`] : [];
  for (const [card, from, to] of more) if (!to.startsWith("f")) said.push(`${cardName(card)} moved from ${from} to ${to}`);
  return said.join("; ");
}

// Treize: the pyramid piles of the next row that cover `pile` (p1 is covered by p2 and
// p3); none for the last row, or a pile that is not the pyramid's.
function coveringPiles(pile) {
  if (!/^p\d+$/.test(pile)) return [];
  const index = Number(pile.slice(1));
  let row = 1;
  let first = 1; // the row's first pile
  while (first + row <= index) { first += row; row += 1; }
  return row === 7 ? [] : [`p${index + row}`, `p${index + row + 1}`];
}

// A move of each game, for the move field's placeholder.
export const MOVE_EXAMPLES = { "eagle-wing": "waste>t3", treize: "p9+wt", "eight-off": "t3>f1" };

// Moved cards glide to their new place (the page's switch, off under reduced motion).
export function setAnimations(on) { animations = on; }

// Pile names wider than a phone's card: on a narrow screen (style.css) the short one shows,
// or the next pile's fanned cards would cover the name.
const SHORT_LABELS = { reserve: "res" };

// Where each pile sits, in card slots (x) and rows (y); `fan` piles spread downwards.
// `row` is the row the arrow keys go along (left, right) and between (up, down); `reach`
// how many slots aside up and down may go from it.
function layout(game) {
  const slots = [];
  const at = (pile, x, y, row, fan = false, reach = 2) => slots.push({ pile, x, y, row, fan, reach });
  if (game === "eight-off") {
    for (let i = 0; i < 4; i++) at(`f${i + 1}`, 0, i * 1.5, i);
    for (let i = 0; i < 8; i++) at(`r${i + 1}`, 2 + i, 0, 0);
    for (let i = 0; i < 8; i++) at(`t${i + 1}`, 2 + i, 1.6, 1, true);
  } else if (game === "eagle-wing") {
    at("stock", 0, 0, 0); at("waste", 1, 0, 0);
    for (let i = 0; i < 4; i++) at(`f${i + 1}`, 3 + i, 0, 0);
    const names = ["t1", "t2", "t3", "t4", "reserve", "t5", "t6", "t7", "t8"];
    const drop = [2, 1, 0, 1, 3, 1, 0, 1, 2];
    names.forEach((name, i) => at(name, i, 1.6 + drop[i] * 0.45, 1, name !== "reserve"));
  } else {
    // Treize's stock and waste sit left of the pyramid's apex (3 slots from the stock):
    // down from either goes to it.
    at("stock", 0, 0, 0, false, 3); at("waste", 1, 0, 0, false, 3);
    let index = 1;
    for (let row = 1; row <= 7; row++) {
      for (let k = 0; k < row; k++) at(`p${index++}`, (7 - row) * 0.5 + k, 1.1 + (row - 1) * 0.55, row);
    }
  }
  return slots;
}

// Where each of Treize's waste cards lies (px from the pile's left), oldest first: the three
// that play (wb the first, wu and wt the last two) each show their corner whole, its rank
// and suit (`corner` wide), and those between show their edges, narrower the more there
// are, so that the whole waste stays within the pyramid's width (5 slots past the pile).
function wasteOffsets(count, { rem, step, corner }) {
  const between = Math.max(0, count - 3);
  const edge = between ? Math.min(rem * 0.9, (5 * step - 2 * corner) / between) : 0;
  const offsets = [];
  let x = 0;
  for (let index = 0; index < count; index++) {
    offsets.push(x);
    x += index === 0 || index === count - 2 ? corner : edge;
  }
  return offsets;
}

// Up or down from a pile: the nearest pile of the next row, if one is within its reach
// (two slots, unless the layout says otherwise).
function nearestInRow(slots, from, row) {
  let best = null;
  for (const slot of slots) {
    if (slot.row !== row || Math.abs(slot.x - from.x) > from.reach) continue;
    if (!best || Math.abs(slot.x - from.x) < Math.abs(best.x - from.x)) best = slot;
  }
  return best;
}

// A card: a button where the board is played, a picture where it is only shown.
function cardElement(code, role) {
  const element = document.createElement("div");
  element.setAttribute("role", role);
  if (!code) {
    element.className = "card back";
    element.setAttribute("aria-label", "face-down card");
    return element;
  }
  const rank = RANK_TEXT[code[0]] ?? code[0];
  const suit = code[1];
  element.className = code[0] === "T" ? `card ${suit} ten` : `card ${suit}`;
  element.dataset.card = code;
  element.setAttribute("aria-label", cardName(code));
  element.innerHTML = `<span class="corner">${rank}${SUITS[suit]}</span><span class="pip">${SUITS[suit]}</span>`;
  return element;
}

// A legal move taken apart: where from (and how many cards), where to, or a pair.
export function parseMove(move) {
  if (move === "deal" || move === "redeal") return { move, from: "stock", to: null, count: 1 };
  if (move.includes("+")) {
    const [a, b] = move.split("+");
    return { move, from: a, to: b, count: 1, pair: true };
  }
  if (!move.includes(">")) return { move, from: move, to: null, count: 1 };
  const [source, to] = move.split(">");
  const [from, count] = source.split(":");
  return { move, from, to, count: count ? Number(count) : 1 };
}

export class Board {
  // `onMove(move)` plays a move built by clicks or keys; without it the board is only
  // shown (no tab stop, nothing to pick), as it is while not playable (setPlayable).
  // `onNoMove(words)` says why a key pressed on a card did nothing (covered, no move).
  constructor(container, onMove = null, onNoMove = null) {
    this.container = container;
    this.onMove = onMove;
    this.onNoMove = onNoMove;
    this.playable = true;
    this.view = null;
    this.legal = [];
    this.selected = null; // { name, count }
    this.hinted = null; // a suggested move (parsed), outlined until the next view
    this.pairOn = null; // { name, picked, played }: a double click's first click (see draw)
    this.places = null; // where draw() put each card: { cards, tops } (see draw)
    // The keyboard: the board is one tab stop (a roving tabindex) over its stops, each
    // what a click would pick or drop on: a pile's top card, a fanned pile's card where
    // a group of cards can move, an empty pile. `focus` ({ pile, key }) survives redraws.
    this.stops = [];
    this.focus = null;
    // A window narrowed or widened past a phone's sizes (style.css) changes the cards'
    // size: the board is drawn again at the new one as its box's width changes (a board
    // out of the document, its page left, is not).
    this.sized = null; // the card sizes the board was last drawn at
    this.width = 0; // the board's width (px) as drawn, before fit() zooms it
    // A board wider than its box (a phone with a large font) is drawn smaller to fit it
    // (fit), again as the box's width changes.
    new ResizeObserver(() => {
      if (!this.view || !this.container.isConnected) return;
      if (this.sizes().key !== this.sized) this.draw();
      else this.fit();
    }).observe(container);
    if (onMove) {
      this.describe();
      container.addEventListener("keydown", (event) => this.key(event));
      container.addEventListener("focusin", (event) => {
        const stop = this.stops.find((s) => s.element === event.target);
        if (stop) this.rove(stop);
      });
    }
  }

  // The focus on the board's tab stop, while it is played (the race has just started).
  focusStop() {
    if (!this.played) return;
    const stop = this.stops.find((s) => s.element.tabIndex === 0) ?? this.stops[0];
    stop?.element.focus();
  }

  // Whether clicks and keys play on this board now.
  get played() { return Boolean(this.onMove) && this.playable; }

  // A board played, or only shown (a racer who finished, a race over): no tab stop,
  // nothing to pick up, no move sent.
  setPlayable(on) {
    if (this.playable === on) return;
    this.playable = on;
    this.selected = null;
    this.describe();
    this.draw();
  }

  // The board's name, with its keys while it is played, for screen readers.
  describe() {
    this.container.setAttribute("role", "group");
    if (!this.played) {
      this.container.setAttribute("aria-label", "board");
      this.container.removeAttribute("aria-keyshortcuts");
      return;
    }
    this.container.setAttribute("aria-label", "board: arrow keys go between piles, Enter or Space picks up and drops, F sends home to a foundation, Escape puts back");
    this.container.setAttribute("aria-keyshortcuts", "F");
  }

  // The board as `view` shows it; `steps` ([card, from, to], from a move's ack) glide.
  show(view, steps = null) {
    const before = this.places;
    this.view = view;
    this.legal = (view.legal_moves ?? []).map(parseMove);
    this.selected = null;
    this.hinted = null;
    this.draw();
    if (steps && animations && before) this.glide(before, steps);
  }

  // A hint: the cards `move` takes are outlined, and so is the pile they go to (the same
  // outline as a selected card's legal targets), until the next view is shown.
  hint(move) {
    this.hinted = move ? parseMove(move) : null;
    this.draw();
  }

  // FLIP: each moved card is drawn at its new place already and animated there from its
  // old one (transform only: no layout, and no delay to the redraw or to input). Places
  // are draw()'s own arithmetic, so nothing is measured and no layout is forced.
  glide(before, steps) {
    const moving = new Map();
    for (const [card, from, to] of steps) {
      const now = card ? this.places.cards.get(card) : this.places.tops.get(to);
      if (!now?.element || moving.has(now.element)) continue; // covered, or removed (Treize)
      const then = (card && before.cards.get(card)) ?? before.tops.get(from);
      if (then) moving.set(now.element, [then, now]);
    }
    for (const [element, [then, now]] of moving) {
      const dx = then.x - now.x;
      const dy = then.y - now.y;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      element.animate(
        [{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 10 }, { transform: "none", zIndex: 10 }],
        { duration: GLIDE_MS, easing: "ease-out" },
      );
    }
  }

  // The clickable name of a card: Treize's waste has three (docs/rules.md): wb the
  // oldest card (from 1 card on), wt the newest (from 2), wu the one under it (from 3).
  nameOf(pile, index, total) {
    if (this.view.game === "treize" && pile === "waste") {
      if (index === 0) return "wb";
      if (index === total - 1) return "wt";
      if (index === total - 2) return "wu";
    }
    return pile;
  }

  movesFrom(name) { return this.legal.filter((m) => m.from === name || (m.pair && m.to === name)); }

  // A click on `name` (the group of `count` from it): picks up, drops, or plays a card
  // that goes alone; whether it sent a move.
  click(name, count) {
    const alone = this.legal.find((m) => m.from === name && m.to === null && (m.move !== "deal" || name === "stock"));
    const send = (move) => { this.onMove(move); return true; };
    if (!this.selected) {
      if (alone && !this.legal.some((m) => m.from === name && m.to !== null)) return send(alone.move);
      if (this.movesFrom(name).length) { this.selected = { name, count }; this.draw(); }
      return false;
    }
    const from = this.selected;
    this.selected = null;
    if (from.name === name) {
      if (alone) return send(alone.move);
      this.draw();
      return false;
    }
    const candidates = this.legal.filter(
      (m) => (m.from === from.name && m.to === name) || (m.pair && m.from === name && m.to === from.name),
    );
    const exact = candidates.find((m) => m.count === from.count) ?? candidates.find((m) => m.count === 1) ?? candidates[0];
    if (exact) return send(exact.move);
    if (this.movesFrom(name).length) this.selected = { name, count };
    this.draw();
    return false;
  }

  // Drag and drop: pressed on a card, released over another pile, the move between them.
  // Only that pointer's release counts, and none once the browser cancels the pointer: on
  // a touch screen a swipe that starts on a card scrolls (pointercancel, no pointerup), and
  // the next tap elsewhere must not drop the card there.
  startDrag(event, name, count) {
    const from = { x: event.clientX, y: event.clientY };
    const pointer = event.pointerId;
    const done = () => {
      document.removeEventListener("pointerup", release);
      document.removeEventListener("pointercancel", cancel);
    };
    const cancel = (gone) => { if (gone.pointerId === pointer) done(); };
    const release = (up) => {
      if (up.pointerId !== pointer) return;
      done();
      const moved = Math.hypot(up.clientX - from.x, up.clientY - from.y) > 8;
      // Over a card, its name (Treize's waste has three); else what the pile's click aims at.
      const hit = document.elementFromPoint(up.clientX, up.clientY);
      const target = hit?.closest(".card[data-name]")?.dataset.name ?? hit?.closest(".pile")?.dataset.aim;
      if (!moved || !target || target === name) return; // a click, handled as one
      this.selected = { name, count };
      this.click(target, 1);
    };
    document.addEventListener("pointerup", release);
    document.addEventListener("pointercancel", cancel);
  }

  // Double-click: the card (or the group from it, where that may go) to a foundation,
  // where that is legal, or a card that goes on its own (Treize's King); the move sent,
  // or null.
  home(name, count = 1) {
    const homeward = this.legal.filter((m) => m.from === name && m.to?.startsWith("f"));
    const alone = this.legal.find((m) => m.from === name && m.to === null && m.from !== "stock");
    const move = homeward.find((m) => m.count === count) ?? homeward.find((m) => m.count === 1) ?? alone;
    if (move) this.onMove(move.move);
    return move ?? null;
  }

  // The key F: the picked-up card, else the focused one, home as a double-click sends it.
  // Where no foundation takes it, the notation's shorthand `A>f` goes instead, so the
  // server says why not (a card that fits none, a game without foundations). An empty
  // pile has nothing to send.
  sendHome(stop) {
    if (!this.selected && stop.empty) return;
    const from = this.selected ?? stop;
    this.selected = null;
    if (this.home(from.name, from.count)) return;
    this.onMove(`${from.name}${from.count > 1 ? `:${from.count}` : ""}>f`);
  }

  // The one stop the board's tab stop is on.
  rove(stop) {
    this.focus = { pile: stop.pile, key: stop.key };
    for (const s of this.stops) s.element.tabIndex = s === stop ? 0 : -1;
  }

  // Keys on a focused stop: arrows go between stops, Enter or Space does what a click
  // does (picks up, drops), F sends home, Escape puts a picked card back. Other keys
  // pass on (u, h).
  key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const stop = this.stops.find((s) => s.element === event.target);
    if (!stop) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (!event.repeat) this.pressed(stop);
    } else if (event.key === "f" || event.key === "F") {
      event.preventDefault();
      if (!event.repeat) this.sendHome(stop);
    } else if (event.key === "Escape") {
      if (!this.selected) return;
      event.preventDefault();
      this.selected = null;
      this.draw();
    } else if (event.key.startsWith("Arrow")) {
      event.preventDefault();
      const next = this.stopFrom(stop, event.key);
      if (next) { this.rove(next); next.element.focus(); }
    }
  }

  // Enter or Space on a stop does what a click does; on a card nothing picks up (covered,
  // or with no move) it says why, as F would, instead of nothing.
  pressed(stop) {
    if (this.selected || stop.empty || this.movesFrom(stop.name).length || !this.onNoMove) {
      this.click(stop.name, stop.count);
      return;
    }
    const covered = this.coveredBy(stop.name);
    const card = this.view.piles[stop.name]?.cards[0];
    this.onNoMove(covered.length && card ? cardsInWords(`${stop.name} (${card}) is covered by ${covered.join(" and ")}`) : "no move for this card");
  }

  // Treize: the piles of the pyramid still covering `name` (none once both are removed).
  coveredBy(name) {
    if (this.view.game !== "treize") return [];
    return coveringPiles(name).filter((pile) => this.view.piles[pile]?.count);
  }

  // The stop an arrow key goes to: along a fanned pile's stops (up, down) or Treize's
  // waste (left, right), else the next pile of the row, or of the row above or below
  // (its top card).
  stopFrom(stop, key) {
    const own = this.stops.filter((s) => s.pile === stop.pile);
    const along = stop.slot.fan ? ["ArrowUp", "ArrowDown"] : own.length > 1 ? ["ArrowLeft", "ArrowRight"] : [];
    const step = key === "ArrowUp" || key === "ArrowLeft" ? -1 : 1;
    if (along.includes(key) && own[own.indexOf(stop) + step]) return own[own.indexOf(stop) + step];
    const slots = layout(this.view.game);
    let slot;
    if (key === "ArrowLeft" || key === "ArrowRight") {
      const row = slots.filter((s) => s.row === stop.slot.row).sort((a, b) => a.x - b.x);
      slot = row[row.findIndex((s) => s.pile === stop.pile) + step];
    } else {
      slot = nearestInRow(slots, stop.slot, stop.slot.row + step);
    }
    return slot ? this.stops.filter((s) => s.pile === slot.pile).at(-1) : null;
  }

  targets() {
    if (!this.selected) return new Set();
    const names = new Set();
    for (const m of this.legal) {
      if (m.from === this.selected.name && m.to) names.add(m.to);
      if (m.pair && m.to === this.selected.name) names.add(m.from);
    }
    return names;
  }

  // A card's width and height, a slot's step, the room a card's corner takes (its rank
  // and suit) and a fanned pile's step from card to card (px) as style.css has them now, in the root's rem (the user's font size).
  sizes() {
    const style = getComputedStyle(document.documentElement);
    const rem = parseFloat(style.fontSize) || 16;
    const w = parseFloat(style.getPropertyValue("--w")) * rem;
    const h = parseFloat(style.getPropertyValue("--h")) * rem;
    const step = w + parseFloat(style.getPropertyValue("--gap")) * rem;
    const corner = parseFloat(style.getPropertyValue("--corner")) * rem;
    const fan = parseFloat(style.getPropertyValue("--fan")) * rem || rem * 1.35;
    return { rem, w, h, step, corner, fan, key: `${rem} ${w} ${h} ${step} ${corner} ${fan}` };
  }

  // The board drawn smaller (zoomed) when it is wider than its box, so that every pile
  // is in sight without scrolling it sideways: the cards' sizes come in the user's rem,
  // which a phone with a large font cannot fit across. A board drawn at a zoom of its own
  // (Watch's small boards, whose box is as wide as they are) is left as it is.
  fit() {
    const inner = this.container.firstElementChild;
    if (!inner || !this.width) return;
    const box = getComputedStyle(this.container);
    if (box.zoom !== "1") return;
    const room = this.container.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight);
    const zoom = room > 0 && room < this.width ? Math.floor((room / this.width) * 1000) / 1000 : 1;
    inner.style.zoom = zoom < 1 ? String(zoom) : "";
  }

  draw() {
    const view = this.view;
    const focused = this.played && this.container.contains(document.activeElement);
    this.container.replaceChildren();
    this.stops = [];
    if (!view) return;
    const inner = document.createElement("div");
    inner.className = `board-inner game-${view.game}`;
    const sizes = this.sizes();
    const { rem, w, h, step, fan, key } = sizes;
    this.sized = key;
    const targets = this.targets();
    // A card picked up shows its own legal targets only: the hint's would pass for one.
    const hint = this.selected ? null : this.hinted;
    // Each card's place in the board (face-up ones by card, and each pile's top card).
    const places = { cards: new Map(), tops: new Map() };
    let width = 0;
    let height = 0;
    for (const slot of layout(view.game)) {
      const data = view.piles[slot.pile] ?? { count: 0, cards: [] };
      const pileElement = document.createElement("div");
      const left = slot.x * step;
      const top = slot.y * (h + rem * 0.9) + rem;
      pileElement.className = "pile";
      pileElement.dataset.pile = slot.pile;
      pileElement.style.left = `${left}px`;
      pileElement.style.top = `${top}px`;
      // A pile with cards groups its cards (each a button); an empty one is the button.
      pileElement.setAttribute("role", data.count || !this.played ? "group" : "button");
      // Eagle Wing's stock says its redeals left too, to whoever lands on it.
      const redeals = slot.pile === "stock" && view.redeals_left != null ? `, ${redealsWords(view.redeals_left)}` : "";
      pileElement.setAttribute("aria-label", `${data.count ? `${slot.pile}, ${data.count} card${data.count === 1 ? "" : "s"}` : `${slot.pile}, empty`}${redeals}`);
      const short = SHORT_LABELS[slot.pile];
      pileElement.innerHTML = short
        ? `<span class="label"><span class="full">${slot.pile}</span><span class="short">${short}</span></span>`
        : `<span class="label">${slot.pile}</span>`;
      const hidden = data.count - data.cards.length;
      const shown = slot.fan ? [...Array(hidden).fill(null), ...data.cards] : data.count ? [data.cards.at(-1) ?? null] : [];
      const fanStep = slot.fan ? fan : 0;
      const treizeWaste = view.game === "treize" && slot.pile === "waste";
      const cards = treizeWaste ? data.cards : shown;
      const offsets = treizeWaste ? wasteOffsets(cards.length, sizes) : [];
      // What a click on the pile outside its cards aims at: Treize's newest waste card (wb
      // while it is the only one, wt from two on), else the pile.
      const aim = treizeWaste && cards.length ? this.nameOf("waste", cards.length - 1, cards.length) : slot.pile;
      pileElement.dataset.aim = aim;
      places.tops.set(slot.pile, { element: null, x: left, y: top });
      cards.forEach((code, index) => {
        const element = cardElement(code, this.played ? "button" : "img");
        const name = treizeWaste ? this.nameOf("waste", index, cards.length) : slot.pile;
        const count = slot.fan ? cards.length - index : 1;
        const x = treizeWaste ? offsets[index] : 0;
        if (treizeWaste) element.style.left = `${x}px`;
        if (treizeWaste && name !== "waste") { // its name in the notation, under it (the card's label says it too)
          const tag = document.createElement("span");
          tag.className = "count waste-name";
          tag.style.left = `${x}px`;
          tag.textContent = name;
          tag.setAttribute("aria-hidden", "true");
          pileElement.append(tag);
        }
        element.style.top = `${index * fanStep}px`;
        if (code) element.dataset.name = name;
        const lifted = this.selected && this.selected.name === name && (!slot.fan || count === this.selected.count);
        if (lifted) element.classList.add("selected");
        // The hinted cards: the k moved from the source (a fan's top k), or both of a pair.
        const hinted = hint && ((name === hint.from && count <= hint.count) || (hint.pair && name === hint.to));
        if (hinted) element.classList.add("hinted");
        const place = { element, x: left + x, y: top + index * fanStep - (lifted ? rem * 0.2 : 0) };
        if (code) places.cards.set(code, place);
        places.tops.set(slot.pile, place);
        if (this.played) {
          // A stop: the top card, a group that can move (none while a card is picked up,
          // but the picked one), Treize's named waste cards.
          const top = index === cards.length - 1;
          const group = slot.fan && code && (this.selected ? lifted : this.legal.some((m) => m.from === name && m.count === count));
          if (treizeWaste ? name !== "waste" : top || group) {
            const target = this.selected && (targets.has(name) || targets.has(slot.pile));
            const on = `${name === slot.pile ? slot.pile : `${slot.pile} ${name}`}${redeals}`;
            const more = count > 1 ? `, and ${count - 1} card${count === 2 ? "" : "s"} on it` : "";
            const covered = this.coveredBy(name);
            const under = covered.length ? `, covered by ${covered.join(" and ")}` : "";
            element.setAttribute("aria-label", `${element.getAttribute("aria-label")}${more}, ${on}${under}${lifted ? ", picked up" : ""}${target ? ", legal target" : ""}${hinted ? ", hinted" : ""}`);
            this.stops.push({ pile: slot.pile, key: treizeWaste ? name : count, name, count, element, slot });
          }
          element.addEventListener("click", (event) => {
            event.stopPropagation();
            // A double click's (or tap's) first click notes whether the card was picked up
            // before it: then the pair only puts it back (its second click picks nothing
            // up, its dblclick sends nothing home). A first click that played its card
            // (Treize's King goes alone) is the pair's only move: its second click would
            // play the card again, or whatever took its place, never aimed at. The stock
            // deals once per click.
            if (event.detail <= 1) {
              this.pairOn = { name, picked: this.selected?.name === name, played: false };
              this.pairOn.played = this.click(name, count);
              return;
            }
            if (this.pairOn?.name === name && this.pairOn.picked) return;
            if (this.pairOn?.played && !(name === "stock" && this.pairOn.name === "stock")) return;
            this.click(name, count);
          });
          element.addEventListener("pointerdown", (event) => { if (code) this.startDrag(event, name, count); });
          element.addEventListener("dblclick", (event) => {
            event.stopPropagation();
            if (this.pairOn?.played || (this.pairOn?.name === name && this.pairOn.picked)) return;
            this.home(name, count);
          });
        }
        pileElement.append(element);
      });
      if (!slot.fan && !treizeWaste && data.count > 1) {
        const count = document.createElement("span");
        count.className = "count";
        count.textContent = String(data.count);
        pileElement.append(count);
      }
      if (targets.has(slot.pile) || (treizeWaste && [...targets].some((t) => t.startsWith("w")))) pileElement.classList.add("target");
      // A hinted move's target pile, or its source when that is empty (a redeal's stock).
      if (hint && ((!hint.pair && hint.to === slot.pile) || (hint.from === slot.pile && !cards.length))) pileElement.classList.add("target");
      if (this.played) {
        pileElement.addEventListener("click", (event) => {
          if (event.detail <= 1) {
            this.pairOn = { name: aim, picked: false, played: false };
            this.pairOn.played = this.click(aim, 1);
          } else if (!this.pairOn?.played || (aim === "stock" && this.pairOn.name === "stock")) this.click(aim, 1);
        });
      }
      if (this.played && !cards.length) { // an empty pile: the pile is the button, and the stop
        if (targets.has(slot.pile)) pileElement.setAttribute("aria-label", `${slot.pile}, empty${redeals}, legal target`);
        this.stops.push({ pile: slot.pile, key: 1, name: aim, count: 1, element: pileElement, slot, empty: true });
      }
      pileElement.style.minHeight = `${h + Math.max(0, cards.length - 1) * fanStep}px`;
      inner.append(pileElement);
      width = Math.max(width, slot.x * step + w + (offsets.at(-1) ?? 0));
      height = Math.max(height, slot.y * (h + rem * 0.9) + rem + h + Math.max(0, cards.length - 1) * fanStep);
    }
    const info = eagleInfo(view);
    if (info.length) {
      // In the top row's room right of the foundations (two slots, above t7 and t8), a line
      // each: text, read out as it stands.
      const box = document.createElement("p");
      box.className = "board-info";
      box.style.left = `${7 * step}px`;
      box.style.top = `${rem}px`;
      box.style.width = `${step + w}px`;
      for (const line of info) box.append(Object.assign(document.createElement("span"), { textContent: line }));
      inner.append(box);
    }
    inner.style.width = `${width}px`;
    inner.style.height = `${height + rem}px`;
    this.container.append(inner);
    this.width = width;
    this.fit();
    this.places = places;
    // The tab stop: where the focus was (that pile's top card if the stop is gone), and
    // the focus back on it if the board had it before this redraw.
    const stop = this.stops.find((s) => s.pile === this.focus?.pile && s.key === this.focus?.key)
      ?? this.stops.filter((s) => s.pile === this.focus?.pile).at(-1) ?? this.stops[0];
    if (!stop) return;
    this.rove(stop);
    if (focused) stop.element.focus();
  }
}
