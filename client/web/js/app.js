// The pages: the lobby (#/) and a race (#/race/<id>), with its results at the end.

import { Arena } from "./arena.js";
import { Board, setAnimations } from "./board.js";

const NAME_KEY = "solitaire-arena.name";
const GAMES = [["eight-off", "Eight Off"], ["eagle-wing", "Eagle Wing"], ["treize", "Treize"]];
const app = document.getElementById("app");
const arena = new Arena(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`);
let leavePage = () => {};

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

function fill(score) {
  const bar = element("span");
  bar.style.width = `${(score / 52) * 100}%`; // CSSOM, not a style attribute: the CSP forbids those
  return bar;
}

function showError(target, error) {
  target.textContent = error ? (error.reason ?? error.message ?? String(error)) : "";
}

async function signIn() {
  if (arena.player) return arena.player;
  const saved = localStorage.getItem(NAME_KEY);
  if (localStorage.getItem("solitaire-arena.token") || saved) return arena.start(saved ?? "player");
  return null;
}

// ----- lobby ---------------------------------------------------------------------------

function lobbyPage() {
  const error = element("p", { class: "error", role: "alert" });
  const nameInput = element("input", { id: "name", "aria-label": "your name", maxlength: "24", value: localStorage.getItem(NAME_KEY) ?? "" });
  const gameSelect = element("select", { id: "game", "aria-label": "game" }, ...GAMES.map(([id, title]) => element("option", { value: id }, title)));
  const seats = element("input", { id: "seats", type: "number", min: "2", max: "8", value: "2", "aria-label": "seats" });
  const code = element("input", { id: "code", "aria-label": "race code", maxlength: "6", placeholder: "CODE" });
  const openList = element("tbody");

  async function ensureSignedIn() {
    const name = nameInput.value.trim();
    if (!arena.player) {
      if (!name && !arena.token) throw new Error("choose a name first");
      localStorage.setItem(NAME_KEY, name || "player");
      await arena.start(name || "player");
    }
  }

  async function act(work) {
    showError(error, null);
    try {
      await ensureSignedIn();
      await work();
    } catch (failure) {
      showError(error, failure);
    }
  }

  async function refresh() {
    if (!arena.player) return;
    try {
      const page = await arena.request({ type: "list_races", limit: 20 });
      openList.replaceChildren(...page.races.map((race) => element("tr", {},
        element("td", {}, race.code), element("td", {}, race.game),
        element("td", {}, `${race.racers.length}/${race.seats}`),
        element("td", {}, element("button", { onclick: () => act(() => join(race.code)), "aria-label": `join ${race.code}` }, "Join")))));
    } catch { /* shown on the next action */ }
  }

  async function join(raceCode) {
    const reply = await arena.request({ type: "join_race", code: raceCode.trim().toUpperCase() });
    location.hash = `#/race/${reply.race.race_id}`;
  }

  const quick = GAMES.map(([id, title]) => element("button", { class: "primary", onclick: () => act(async () => {
    await arena.request({ type: "quick_match", game: id });
    showError(error, { reason: `waiting for someone to race at ${title}…` });
  }) }, `Quick match: ${title}`));

  app.replaceChildren(
    element("section", {}, element("h1", {}, "Race the same deal"),
      element("div", { class: "row" }, element("label", { for: "name" }, "Name"), nameInput)),
    element("section", {}, element("h2", {}, "Quick match"), element("div", { class: "row" }, ...quick)),
    element("section", {}, element("h2", {}, "With friends"),
      element("div", { class: "row" }, gameSelect, seats,
        element("button", { id: "create", onclick: () => act(async () => {
          const reply = await arena.request({ type: "create_race", game: gameSelect.value, seats: Number(seats.value), time_limit: 600 });
          location.hash = `#/race/${reply.race.race_id}`;
        }) }, "Create race")),
      element("div", { class: "row" }, code, element("button", { id: "join", onclick: () => act(() => join(code.value)) }, "Join by code"))),
    error,
    element("section", {}, element("h2", {}, "Open races"), element("table", {}, openList)),
  );
  const stopMatch = arena.on("match_found", (event) => { location.hash = `#/race/${event.race.race_id}`; });
  const timer = setInterval(refresh, 3000);
  signIn().then(refresh).catch((failure) => showError(error, failure));
  return () => { clearInterval(timer); stopMatch(); };
}

// ----- race ----------------------------------------------------------------------------

function racePage(raceId) {
  const status = element("p", { id: "status", role: "status" });
  const clock = element("span", { class: "clock", id: "clock" });
  const racers = element("div", { class: "racers", id: "racers" });
  const error = element("p", { class: "error", id: "refusal", role: "alert" });
  const boardBox = element("div", { class: "board", id: "board" });
  const moveInput = element("input", { id: "move", "aria-label": "move in notation", placeholder: "t3>f1", autocomplete: "off" });
  const results = element("section", { id: "results" });
  const readyButton = element("button", { id: "ready", class: "primary" }, "Ready");
  const giveUp = element("button", { id: "give-up" }, "Give up");
  let race = null;
  let seq = 0;
  let offset = 0;
  let sending = Promise.resolve();
  const board = new Board(boardBox, (move) => play(move));

  function play(move) {
    sending = sending.then(async () => {
      showError(error, null);
      try {
        const ack = await arena.request({ type: "move", race_id: raceId, seq: seq + 1, move });
        seq = ack.seq;
        board.show(ack.view, ack.result.steps);
        const me = race?.racers.find((r) => r.player_id === arena.player?.player_id);
        if (me) {
          Object.assign(me, { score: ack.view.score, cards_left: 52 - ack.view.score, move_count: ack.view.move_count, finished: ack.finished, won: ack.view.won });
          drawRacers();
        }
        if (ack.finished) status.textContent = "You won! Waiting for the others…";
      } catch (failure) {
        showError(error, failure);
        board.draw();
      }
    });
    return sending;
  }

  function drawRacers() {
    if (!race) return;
    racers.replaceChildren(...race.racers.map((r) => element("div", { class: "racer", "data-player": r.player_id },
      element("span", {}, `${r.name}${r.bot ? " 🤖" : ""}${r.player_id === arena.player?.player_id ? " (you)" : ""}`),
      element("span", { class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "52", "aria-valuenow": String(r.score), "aria-label": `${r.name}'s progress` },
        fill(r.score)),
      element("span", {}, r.finished ? (r.won ? "won" : "gave up") : r.ready || race.status !== "open" ? `${r.cards_left} left` : "not ready"))));
  }

  function load(info) {
    race = info;
    offset = info.server_time - Date.now();
    readyButton.hidden = info.status !== "open";
    giveUp.hidden = info.status !== "running";
    status.textContent = {
      open: `Race ${info.code}: share the code; everyone presses Ready`,
      countdown: "Get ready…",
      running: "Go!",
      finished: "The race is over",
      cancelled: "This race was cancelled",
    }[info.status] ?? info.status;
    if (info.board) { seq = info.board.seq; board.show(info.board.view); }
    moveInput.hidden = info.status !== "running";
    drawRacers();
    tick();
  }

  function tick() {
    if (!race || !race.ends_at) { clock.textContent = ""; return; }
    const now = Date.now() + offset;
    const target = race.status === "countdown" ? race.starts_at : race.ends_at;
    const left = Math.max(0, Math.round((target - now) / 1000));
    clock.textContent = race.status === "finished" ? "" : `${race.status === "countdown" ? "starts in" : "left"} ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  }

  function showResults(summary) {
    results.replaceChildren(element("h2", {}, "Results"),
      element("table", {}, ...summary.standings.map((s) => element("tr", {},
        element("td", {}, `${s.rank}.`), element("td", {}, s.name),
        element("td", {}, s.won ? `won in ${(s.time_ms / 1000).toFixed(1)} s` : `${s.score} cards home`)))),
      element("p", {}, `Seed ${summary.seed} (commitment ${summary.commitment.slice(0, 12)}…) revealed.`),
      element("p", {}, element("a", { href: `#/replay/${raceId}`, id: "replay-link" }, "Replay this race")));
  }

  const stops = [
    arena.on("race_update", (e) => { if (e.race.race_id === raceId) load(e.race); }),
    arena.on("race_countdown", (e) => { if (e.race_id === raceId && race) { race.status = "countdown"; race.starts_at = e.starts_at; race.ends_at = e.ends_at; offset = e.server_time - Date.now(); load(race); } }),
    arena.on("race_started", (e) => { if (e.race_id === raceId && race) { race.status = "running"; race.starts_at = e.starts_at; race.ends_at = e.ends_at; load(race); if (!seq) board.show(e.view); } }),
    arena.on("progress", (e) => {
      if (e.race_id !== raceId || !race) return;
      const r = race.racers.find((x) => x.player_id === e.player_id);
      if (r) Object.assign(r, { score: e.score, cards_left: e.cards_left, move_count: e.move_count, finished: e.finished, won: e.won });
      drawRacers();
    }),
    arena.on("race_ended", (e) => { if (e.race_id === raceId) { race.status = "finished"; load(race); showResults(e.summary); } }),
    arena.on("race_cancelled", (e) => { if (e.race_id === raceId) status.textContent = e.message; }),
    arena.on("welcome", async () => { load((await arena.request({ type: "get_race", race_id: raceId })).race); }),
  ];
  readyButton.addEventListener("click", async () => {
    try { await arena.request({ type: "ready", race_id: raceId, ready: true }); readyButton.disabled = true; } catch (failure) { showError(error, failure); }
  });
  giveUp.addEventListener("click", async () => {
    try { await arena.request({ type: "finish", race_id: raceId }); giveUp.hidden = true; } catch (failure) { showError(error, failure); }
  });
  moveInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && moveInput.value.trim()) { play(moveInput.value.trim()); moveInput.value = ""; }
  });
  app.replaceChildren(
    element("section", {}, element("div", { class: "row" }, status, clock, readyButton, giveUp)),
    racers, boardBox, element("div", { class: "row" }, moveInput), error, results);
  const timer = setInterval(tick, 250);
  signIn()
    .then(() => arena.request({ type: "get_race", race_id: raceId }))
    .then(async (reply) => {
      load(reply.race);
      if (reply.race.status === "finished") showResults((await arena.request({ type: "get_results", race_id: raceId })).summary);
    })
    .catch((failure) => showError(error, failure));
  return () => { clearInterval(timer); stops.forEach((stop) => stop()); };
}

// ----- replay --------------------------------------------------------------------------

function replayPage(raceId) {
  const error = element("p", { class: "error", role: "alert" });
  const racerButtons = element("div", { class: "row", id: "racer-buttons" });
  const slider = element("input", { id: "step", type: "range", min: "0", max: "0", value: "0", "aria-label": "move" });
  const label = element("span", { id: "step-label", "aria-live": "polite" });
  const boardBox = element("div", { class: "board", id: "board" });
  const board = new Board(boardBox); // shown, not played
  let views = [];
  let moves = [];

  function showStep() {
    const step = Number(slider.value);
    if (!views[step]) return;
    board.show({ ...views[step], legal_moves: [] });
    label.textContent = step === 0 ? `the deal (of ${views.length - 1} moves)` : `move ${step}/${views.length - 1}: ${moves[step]}`;
  }

  async function load(playerId) {
    views = [];
    moves = [];
    let total = 1;
    while (views.length < total) {
      const page = await arena.request({ type: "get_replay", race_id: raceId, player_id: playerId, offset: views.length, limit: 200 });
      total = page.total;
      views.push(...page.views);
      moves.push(...page.moves);
    }
    slider.max = String(views.length - 1);
    slider.value = "0";
    showStep();
  }

  slider.addEventListener("input", showStep);
  app.replaceChildren(element("h1", {}, "Replay"), racerButtons,
    element("div", { class: "row" }, slider, label), boardBox, error);
  signIn()
    .then(() => arena.request({ type: "get_results", race_id: raceId }))
    .then(async ({ summary }) => {
      racerButtons.replaceChildren(...summary.standings.map((s) =>
        element("button", { onclick: () => load(s.player_id).catch((f) => showError(error, f)), "data-player": s.player_id }, `${s.rank}. ${s.name}`)));
      await load(summary.standings[0].player_id);
    })
    .catch((failure) => showError(error, failure));
  return () => {};
}

// ----- routing -------------------------------------------------------------------------

function route() {
  leavePage();
  const race = location.hash.match(/^#\/race\/([0-9a-f]+)$/);
  const replay = location.hash.match(/^#\/replay\/([0-9a-f]+)$/);
  leavePage = race ? racePage(race[1]) : replay ? replayPage(replay[1]) : lobbyPage();
}

arena.on("welcome", (welcome) => { document.getElementById("who").textContent = `${welcome.name}`; });
arena.on("connection", (event) => {
  document.getElementById("link").textContent = event.state === "lost" ? "reconnecting…" : "";
});
// Four-colour suits (clubs green, diamonds blue) for players who tell red from black badly.
const COLOURS_KEY = "solitaire-arena.four-colour";
const coloursButton = document.getElementById("colours");
function setFourColour(on) {
  document.body.classList.toggle("four-colour", on);
  coloursButton.setAttribute("aria-pressed", String(on));
  localStorage.setItem(COLOURS_KEY, on ? "1" : "0");
}
coloursButton.addEventListener("click", () => setFourColour(!document.body.classList.contains("four-colour")));
setFourColour(localStorage.getItem(COLOURS_KEY) === "1");
// Moved cards glide to their new place: on unless switched off (remembered), and off
// whenever the system asks for reduced motion (the switch can still turn them on).
const MOTION_KEY = "solitaire-arena.animations";
const motionButton = document.getElementById("motion");
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
function setMotion(on) {
  setAnimations(on);
  motionButton.setAttribute("aria-pressed", String(on));
}
function chosenMotion() { return !reducedMotion.matches && localStorage.getItem(MOTION_KEY) !== "0"; }
motionButton.addEventListener("click", () => {
  const on = motionButton.getAttribute("aria-pressed") !== "true";
  localStorage.setItem(MOTION_KEY, on ? "1" : "0");
  setMotion(on);
});
reducedMotion.addEventListener("change", () => setMotion(chosenMotion()));
setMotion(chosenMotion());
window.addEventListener("hashchange", route);
route();
