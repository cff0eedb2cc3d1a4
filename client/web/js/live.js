// The live races (#/live) and watching one (#/watch/<race id>; #/watch follows the
// featured race from race to race): each racer's board as that racer sees it, one large,
// the others small. The countdown has no boards (nobody sees the deal before the start):
// a line says so, and they come with race_started. In Treize and Eagle Wing a board that
// shows cards another racer has not turned up yet is held back (watch_held, a snapshot
// board's held): a note over it says so until it goes on.

import { Board } from "./board.js";
import { GAME_TITLES, changeText, element, playerLink, raceOverWords, racersText, ratingCell, ratingText, redraw, showError, standingResult, standingsHead, watchersText } from "./dom.js";

let unwatching = Promise.resolve(); // a left watch page's unwatch, sent before the next watch

function clockText(ms) {
  const total = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// How often a watch of a race still in its lobby asks again.
const LOBBY_RETRY_MS = 2000;

const delayText = (ms) => (ms > 0 ? `${Math.round(ms / 1000)} s behind` : "");

function bar(score, name) {
  const fill = element("span");
  fill.style.width = `${(score / 52) * 100}%`; // CSSOM: the CSP forbids style attributes
  return element("span", { class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "52", "aria-valuenow": String(score), "aria-label": `${name}'s progress` }, fill);
}

// A racer's last move as shown here: the snapshot's (last_move, as of its as_of), then each
// watch_move's. A board with moves but no named last one (an older server) shows its count.
function lastText(b) {
  if (b?.last) return `last ${b.last}`;
  const moves = b?.view?.move_count ?? 0;
  if (!moves && !b?.seq) return "no move yet";
  return moves === 1 ? "1 move" : `${moves || b.seq} moves`;
}

// Over a board held back for spectators (the terminal's watch screen says it too).
const HELD_NOTE = "Paused for spectators: it shows cards another racer has not turned up yet";

function stateText(r) {
  if (r.won) return "won";
  if (r.finished) return "gave up";
  return `${r.cards_left} left`;
}

// ----- the live races ------------------------------------------------------------------

export function livePage({ app, arena, readingSession }) {
  const error = element("p", { class: "error", role: "alert" });
  const list = element("div", { class: "live-list", id: "live-races" }, element("p", {}, "Loading…"));
  const heading = element("h1", {}, "Live races");
  let gone = false;

  function raceCard(race) {
    const kind = race.rated ? `rated · ${delayText(race.delay_ms) || "live"}` : "casual · live";
    return element("article", { class: "live-race", "data-race": race.race_id },
      element("div", { class: "row" }, element("strong", {}, GAME_TITLES[race.game] ?? race.game),
        element("span", { class: "setting" }, kind), element("span", { class: "setting" }, race.status === "countdown" ? "starting" : "running"),
        element("span", { class: "spectators" }, watchersText(race.spectators) || "nobody watching yet"),
        element("a", { href: `#/watch/${race.race_id}`, class: "watch-link", "data-key": race.race_id,
          "aria-label": `Watch ${GAME_TITLES[race.game] ?? race.game}: ${racersText(race.racers.map((r) => r.name))}` }, "Watch")),
      element("div", { class: "racers" }, ...race.racers.map((r) => element("div", { class: "racer", "data-player": r.player_id },
        element("span", { class: "racer-name" }, playerLink(r.player_id, r.name, r.bot, { "data-key": `${race.race_id}/${r.player_id}` }),
          r.rating != null ? element("span", { class: "rating" }, ` ${ratingText(r.rating, r.provisional)}`) : ""),
        bar(r.score, r.name), element("span", {}, stateText(r))))));
  }

  async function refresh() {
    try {
      const reply = await arena.request({ type: "list_live", limit: 20 });
      if (gone) return;
      showError(error, null);
      // Every 3 s: a Watch link (or a racer's name) focused is focused again in its race's
      // new card; a race over passes the focus to the page's heading.
      redraw(list, reply.races.length ? reply.races.map(raceCard) : [element("p", { id: "no-live" }, "No race is being played right now.")], heading);
    } catch (failure) {
      showError(error, failure);
    }
  }

  app.replaceChildren(heading,
    element("p", { class: "row" }, element("a", { href: "#/watch", id: "watch-featured", class: "button primary" }, "Watch the featured race"),
      element("span", { class: "setting" }, "Rated races are shown a little behind, so nobody can help a racer.")),
    error, list);
  const timer = setInterval(refresh, 3000);
  readingSession().then(refresh).catch((failure) => showError(error, failure));
  return () => { gone = true; clearInterval(timer); };
}

// ----- watching one race ---------------------------------------------------------------

export function watchPage({ app, arena, readingSession }, raceId) {
  const featuredMode = raceId === null;
  const title = element("h1", {}, featuredMode ? "Featured race" : "Watching");
  const featuredTag = element("span", { class: "tag", id: "featured-tag", hidden: true }, "Featured");
  const status = element("span", { id: "watch-status", role: "status" });
  const clock = element("span", { class: "clock", id: "watch-clock" });
  const spectators = element("span", { id: "watch-spectators" });
  const delay = element("span", { id: "watch-delay", class: "setting" });
  const kind = element("span", { id: "watch-kind", class: "setting" }); // the game, rated or casual
  const error = element("p", { class: "error", role: "alert", id: "watch-error" });
  const head = element("div", { class: "watch-head", id: "large-head" });
  const largeBox = element("div", { class: "board", id: "large-board" });
  const thumbs = element("div", { class: "thumbs", id: "thumbs" });
  const thumbsTitle = element("h2", { class: "thumbs-title", hidden: true }, "All racers"); // once there are racers
  const results = element("section", { id: "watch-results" });
  const dealNote = element("p", { id: "watch-deal", hidden: true }, "The deal is shown when the race starts.");
  const large = new Board(largeBox);
  let race = null; // LiveRace
  let watchers = 0; // how many watch, as last counted (frozen once the race is over)
  let delayMs = 0;
  let offset = 0; // the server's clock minus this one
  let boards = new Map(); // player id -> { seq, view, finished, won, last, held, board, thumb }
  let chosen = null; // the player id shown large
  let gone = false;
  let asked = false; // a watch was sent (a resume's welcome then watches again)
  let retry = null; // the next watch of a race still in its lobby

  const racerOf = (id) => race?.racers.find((r) => r.player_id === id);
  const nameOf = (r) => `${r.name}${r.bot ? " 🤖" : ""}`; // a bot marked, as on the Live list

  function racerLine(r, b) {
    const score = b?.view?.score ?? r.score ?? 0;
    const state = b?.won || b?.view?.won ? "won" : b?.finished ? "gave up" : `${52 - score} left`;
    return [element("span", { class: "racer-name" }, nameOf(r), r.rating != null ? element("span", { class: "rating" }, ` ${ratingText(r.rating, r.provisional)}`) : ""),
      element("span", { class: "stat" }, `score ${score}`), element("span", { class: "stat state" }, state),
      element("span", { class: "stat last" }, lastText(b)), b?.held ? element("span", { class: "held-note" }, HELD_NOTE) : ""];
  }

  function drawRacer(id) {
    const r = racerOf(id);
    const b = boards.get(id);
    if (!r || !b) return;
    b.thumb.querySelector(".thumb-head").replaceChildren(...racerLine(r, b));
    b.thumb.setAttribute("aria-pressed", String(id === chosen));
    b.thumb.classList.toggle("chosen", id === chosen);
    if (id === chosen) head.replaceChildren(...racerLine(r, b));
  }

  function showBoard(id) {
    const b = boards.get(id);
    if (!b) return;
    if (b.view) {
      b.board.show({ ...b.view, legal_moves: [] });
      if (id === chosen) large.show({ ...b.view, legal_moves: [] });
    } else if (id === chosen) largeBox.replaceChildren(); // no deal shown yet, nor the last race's board
    drawRacer(id);
  }

  function choose(id) {
    if (!boards.has(id)) return;
    const before = chosen;
    chosen = id;
    if (before) drawRacer(before);
    showBoard(id);
    largeBox.dataset.player = id;
  }

  // The heading (so the tab's title) names the race by its racers, the tab with its game
  // too (beside the heading on screen); the same element, so a focus on it stays.
  function nameRace() {
    const what = featuredMode ? "Featured race" : "Watching";
    if (!race?.racers.length) {
      title.textContent = what;
      delete title.dataset.title;
      return;
    }
    title.textContent = `${what}${featuredMode ? ":" : ""} ${racersText(race.racers.map(nameOf))}`;
    title.dataset.title = `${title.textContent} (${GAME_TITLES[race.game] ?? race.game})`;
  }

  function statusText() {
    if (!race) return featuredMode ? "No race is being played right now: the next one shows here when it starts." : "";
    return { countdown: "Starting…", running: "Racing", ending: "Ending…", finished: "The race is over", cancelled: "This race was cancelled" }[race.status] ?? race.status;
  }

  function drawDealNote() {
    dealNote.hidden = !race || [...boards.values()].every((b) => b.view);
  }

  function tick() {
    if (!race?.ends_at || !["countdown", "running"].includes(race.status)) { clock.textContent = ""; return; }
    const shown = Date.now() + offset - delayMs; // the moment the boards on screen show
    clock.textContent = race.status === "countdown" ? `starts in ${clockText(race.starts_at - shown)}` : `left ${clockText(race.ends_at - shown)}`;
  }

  // A `watching` (the reply, or a featured watch moving on): the race and every board.
  function load(snapshot) {
    race = snapshot.race ?? null;
    delayMs = snapshot.delay_ms ?? 0;
    offset = (snapshot.as_of ?? Date.now()) + delayMs - Date.now();
    featuredTag.hidden = !snapshot.featured;
    watchers = race?.spectators ?? 0;
    drawWatchers();
    delay.textContent = delayText(delayMs);
    kind.textContent = race ? `${GAME_TITLES[race.game] ?? race.game} · ${race.rated ? "rated" : "casual"}` : "";
    nameRace();
    // A featured watch moving on keeps the last race's results in view, named as such.
    if (results.dataset.race && results.dataset.race !== race?.race_id) {
      results.querySelector("h2").textContent = "The last race's results";
      results.querySelector(".next-note")?.remove();
    } else results.replaceChildren();
    boards = new Map();
    thumbs.replaceChildren();
    for (const [index, r] of (race?.racers ?? []).entries()) {
      const given = snapshot.boards.find((b) => b.player_id === r.player_id);
      const box = element("div", { class: "board thumb-board" });
      // Named short, not by the whole board inside it: whose board, of which game.
      const thumb = element("div", { class: "thumb", role: "button", tabindex: "0", "data-player": r.player_id,
        "aria-label": `${r.name}'s ${GAME_TITLES[race.game] ?? race.game} board`,
        "aria-keyshortcuts": index < 8 ? String(index + 1) : null, title: index < 8 ? `show large (key ${index + 1})` : "show large" },
      element("div", { class: "thumb-head" }), box);
      thumb.addEventListener("click", () => choose(r.player_id));
      thumb.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(r.player_id); } });
      thumbs.append(thumb);
      boards.set(r.player_id, { seq: given?.seq ?? 0, view: given?.view ?? null, finished: given?.finished ?? r.finished, won: given?.won ?? r.won, last: given?.last_move ?? null, held: given?.held ?? false, board: new Board(box), thumb });
    }
    if (!boards.has(chosen)) chosen = race?.racers[0]?.player_id ?? null;
    for (const id of boards.keys()) { drawRacer(id); showBoard(id); }
    if (chosen) choose(chosen);
    if (!race) { head.replaceChildren(); largeBox.replaceChildren(); }
    thumbsTitle.hidden = !race;
    drawDealNote();
    status.textContent = statusText();
    tick();
  }

  const ours = (event) => race && event.race_id === race.race_id;
  const over = () => ["finished", "cancelled"].includes(race?.status);

  // While the race runs, how many watch now; at its end, how many watched (none shown
  // for a race cancelled).
  function drawWatchers() {
    spectators.textContent = race?.status === "cancelled" ? "" : watchersText(watchers, over());
  }

  // A rated race's standing, as the race page shows it: the change at once, the new
  // rating (with its ? while provisional) once get_race after the end says whether it is.
  function standingRating(s, after = null) {
    if (s.rating_change == null) return "";
    const racer = after?.racers.find((r) => r.player_id === s.player_id);
    const change = changeText(s.rating_change);
    return racer && s.rating != null ? `${ratingText(s.rating, racer.provisional)} (${change})` : change;
  }

  function showResults(summary) {
    const link = `#/verify/${summary.race_id}`;
    results.dataset.race = summary.race_id;
    results.replaceChildren(element("h2", {}, summary.rated ? "Results (rated)" : "Results"),
      element("table", { id: "watch-standings" }, standingsHead(summary.rated), ...summary.standings.map((s) => element("tr", { "data-player": s.player_id },
        element("td", {}, `${s.rank}.`), element("td", {}, playerLink(s.player_id, s.name, s.bot)),
        element("td", {}, standingResult(summary.game, s)),
        ...ratingCell(summary.rated, standingRating(s))))),
      element("p", { class: "row" }, summary.seed != null ? `Seed ${summary.seed} revealed.` : "",
        element("a", { href: link, id: "verify-link" }, "Verify this race"), element("a", { href: `#/replay/${summary.race_id}` }, "Replay")),
      featuredMode ? element("p", { class: "setting next-note" }, "The next featured race follows by itself.") : "");
  }

  async function watch() {
    asked = true;
    clearTimeout(retry);
    await unwatching;
    try {
      const reply = await arena.request(featuredMode ? { type: "watch" } : { type: "watch", race_id: raceId });
      // A featured watch back after a drop, moved on from a race whose end it did not see:
      // that race's results first, kept as the last race's (as when it ends in sight).
      const left = featuredMode && race && !over() && reply.race?.race_id !== race.race_id ? race.race_id : null;
      const missed = left && (await resultsOf(left));
      if (gone) return;
      if (missed) raceEnded({ race_id: left, summary: missed });
      showError(error, null);
      load(reply);
      if (missed) {
        results.querySelector("h2").after(element("p", { class: "setting", id: "ended-away" }, "It ended while the connection was down."));
      }
    } catch (failure) {
      if (gone) return;
      // A race still in its lobby: asked again every few seconds, so it shows here by
      // itself once it counts down (the refusal, said once, stays until then).
      if (failure.code === "race_not_started" && raceId) {
        if (error.dataset.code !== failure.code) {
          showError(error, failure);
          error.append(". It shows here by itself once it does.");
        }
        status.textContent = "";
        retry = setTimeout(watch, LOBBY_RETRY_MS);
        return;
      }
      // Watched until the connection dropped, and over when it came back: the end as a
      // spectator who stayed saw it.
      if (failure.code === "race_over" && race?.race_id === raceId && await endedAway()) return;
      showError(error, failure);
      status.textContent = "";
      if (failure.code === "race_over" && raceId) { // too late to watch: what is left of it
        error.append(": ", element("a", { href: `#/race/${raceId}`, id: "over-results-link" }, "Results"),
          " · ", element("a", { href: `#/replay/${raceId}`, id: "over-replay-link" }, "Replay"));
      }
    }
  }

  // The race is over (its race_ended, or its results read after the connection came back):
  // the results, and after a rated race the new ratings.
  function raceEnded(e) {
    race.status = "finished";
    status.textContent = raceOverWords(e.summary);
    tick();
    drawWatchers();
    showResults(e.summary);
    if (e.summary.rated) {
      arena.request({ type: "get_race", race_id: e.summary.race_id })
        .then((reply) => {
          // The results stay in view after a featured watch moved on (it may have by now):
          // their rows get the new ratings in place, keeping the heading they have.
          if (gone || results.dataset.race !== e.summary.race_id) return;
          for (const s of e.summary.standings) {
            const cell = results.querySelector(`tr[data-player="${CSS.escape(s.player_id)}"] .rating-change`);
            if (cell) cell.textContent = standingRating(s, reply.race);
          }
          if (race?.race_id !== e.summary.race_id) return;
          // The racers' cards and the large board's head carry the new ratings too.
          for (const after of reply.race.racers) {
            const r = racerOf(after.player_id);
            if (r) Object.assign(r, { rating: after.rating, provisional: after.provisional });
          }
          for (const id of boards.keys()) drawRacer(id);
        })
        .catch(() => {}); // the changes alone stay
    }
  }

  // A race's results, or null when they cannot be read (it goes on, say).
  async function resultsOf(id) {
    try {
      return (await arena.request({ type: "get_results", race_id: id })).summary;
    } catch {
      return null;
    }
  }

  // The race ended while the connection was down: its results, and each racer's last
  // board (a page of their replay). False when they cannot be read either.
  async function endedAway() {
    try {
      const { summary } = await arena.request({ type: "get_results", race_id: raceId });
      const finals = await Promise.all(summary.standings.map(lastBoard));
      if (gone) return true;
      for (const page of finals) {
        const b = boards.get(page.player_id);
        const view = page.views.at(-1);
        const standing = summary.standings.find((s) => s.player_id === page.player_id);
        if (!b || !view) continue;
        Object.assign(b, { seq: page.offset + page.views.length - 1, view, last: page.moves.at(-1) || b.last,
          won: view.won, finished: view.won || standing.gave_up, held: false });
        showBoard(page.player_id);
      }
      showError(error, null);
      raceEnded({ race_id: raceId, summary });
      status.textContent = `${raceOverWords(summary)} (it ended while the connection was down)`;
      return true;
    } catch {
      return false;
    }
  }

  // A page of a racer's replay holding their last board (its index as the results count
  // the racer's moves; asked again where the replay says otherwise).
  async function lastBoard(standing) {
    const page = (offset) => arena.request({ type: "get_replay", race_id: raceId, player_id: standing.player_id, offset, limit: 1 });
    const first = await page(standing.move_count);
    return first.offset === first.total - 1 ? first : page(first.total - 1);
  }

  const stops = [
    arena.on("watching", (snapshot) => { if (featuredMode && snapshot.featured) load(snapshot); }),
    arena.on("watch_move", (e) => {
      const b = boards.get(e.player_id);
      if (!ours(e) || !b || e.seq <= b.seq) return;
      Object.assign(b, { seq: e.seq, view: e.view, last: e.move, won: b.won || e.view.won });
      if (e.view.won) b.finished = true;
      showBoard(e.player_id);
    }),
    arena.on("watch_held", (e) => {
      const b = boards.get(e.player_id);
      if (!ours(e) || !b) return;
      b.held = e.held;
      drawRacer(e.player_id);
    }),
    arena.on("progress", (e) => {
      const b = boards.get(e.player_id);
      if (!ours(e) || !b || !e.finished) return;
      Object.assign(b, { finished: true, won: b.won || e.won });
      drawRacer(e.player_id);
    }),
    arena.on("race_started", (e) => {
      if (!ours(e)) return;
      Object.assign(race, { status: "running", starts_at: e.starts_at, ends_at: e.ends_at });
      // The deal, shown from now on (an older server's countdown boards may show one that
      // seed shares revealed in the countdown changed).
      for (const [id, b] of boards) if (!b.view || !b.seq) { b.view = e.view; showBoard(id); }
      drawDealNote();
      status.textContent = statusText();
    }),
    arena.on("race_ended", (e) => { if (ours(e)) raceEnded(e); }),
    arena.on("race_cancelled", (e) => { if (ours(e)) { race.status = "cancelled"; status.textContent = e.message ?? statusText(); tick(); drawWatchers(); } }),
    arena.on("racer_renamed", (e) => { // at once, even in a delayed race: a name is not a board
      const r = ours(e) && racerOf(e.player_id);
      if (!r) return;
      r.name = e.name;
      // A guest who registered has the account's rating from then on (1500? before its
      // first rated race): the event carries it.
      if (r.rating == null && e.rating != null) Object.assign(r, { rating: e.rating, provisional: e.provisional ?? false });
      drawRacer(e.player_id);
      nameRace();
    }),
    arena.on("spectators", (e) => { if (ours(e) && !over()) { watchers = e.count; drawWatchers(); } }),
    arena.on("welcome", () => { if (!gone && asked) watch(); }), // a resumed connection watches again
  ];

  // Keys 1–8 show that racer large, unless a text field has the focus.
  function shortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || !/^[1-8]$/.test(event.key)) return;
    if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
    const id = race?.racers[Number(event.key) - 1]?.player_id;
    if (id) { event.preventDefault(); choose(id); }
  }
  document.addEventListener("keydown", shortcut);

  app.replaceChildren(
    element("section", {}, element("div", { class: "row" }, title, featuredTag, kind, status, clock, spectators, delay)),
    error, head, dealNote, largeBox, thumbsTitle, thumbs, results);
  const timer = setInterval(tick, 250);
  readingSession().then(watch).catch((failure) => showError(error, failure));
  return () => {
    gone = true;
    clearInterval(timer);
    clearTimeout(retry);
    document.removeEventListener("keydown", shortcut);
    stops.forEach((stop) => stop());
    unwatching = arena.player ? arena.request({ type: "unwatch" }).catch(() => {}) : Promise.resolve();
  };
}
