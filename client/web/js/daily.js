// The daily challenges (#/daily, #/daily/<YYYY-MM-DD>): each game's deal and commitment,
// your attempt (Play, or your result and Practice), the time to the next day, each game's
// board, and a past day's seeds to check. Its Standings tab (#/daily/standings[/<day>]) is
// standings.js.

import { GAMES, GAME_TITLES, element, isBusy, linkRacingRace, markBusy, playerLink, racingRaceId, showError, standingResult } from "./dom.js";
import { LIMITS, checkFields, nameProblem, noteFor } from "./forms.js";
import { NAME_KEY } from "./players.js";
import { standingsParts } from "./standings.js";

const DAY_MS = 86_400_000;
const BOARD_SIZE = 20;

// When a daily deal's seed is revealed, from the server's `reveals_at` (ms; absent from
// a server that does not say): once the day's last attempts are over, which runs past
// midnight by an attempt's time limit. Rounded up to the minute.
export function revealWords(revealsAt) {
  if (revealsAt == null) return "once the day's last attempts are over (after midnight UTC)";
  const at = new Date(Math.ceil(revealsAt / 60_000) * 60_000).toISOString();
  return `once the day's last attempts are over (${at.slice(11, 16)} UTC on ${at.slice(0, 10)})`;
}

// A day (YYYY-MM-DD) of a time in ms: the UTC day, as the server counts days.
export function dayOf(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

function shiftDay(date, days) {
  return dayOf(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS);
}

function weekday(date) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString("en", { weekday: "long", timeZone: "UTC" }); // in the page's language
}

function hms(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}

// `view`: "deals" (the deals and boards) or "standings" (the tournament).
export function dailyHref(date = null, view = "deals") {
  const base = view === "standings" ? "#/daily/standings" : "#/daily";
  return date ? `${base}/${date}` : base;
}

// The SHA-256 of `text` in hex, where the page may compute it (a secure context); null
// where it cannot.
async function sha256(text) {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// `date`: the day asked for (null: today, whichever day that is on the server's clock).
// `view`: "deals" or "standings" (the tabs). `enterRace(info)`: go to a race the server
// just started (its page shows it at once).
export function dailyPage({ app, arena, readingSession, enterRace }, date, view = "deals") {
  const error = element("p", { class: "error", id: "daily-error", role: "alert" });
  let offset = 0; // the server's clock minus this one
  let closesAt = null; // when the day on screen ends (server ms), while it is today
  let countdown = null; // the element the countdown is written in
  let reloading = null; // a reload planned (the day's end, its seeds' reveal, or deals still being prepared)
  let gone = false;
  let drawn = false; // the page has shown a day (a resume's welcome then reloads it)
  let unreached = false; // the last load found no connection: the next welcome loads again
  let naming = false; // a visitor becoming a guest here: its welcome reloads nothing
  // A visitor (nobody signed in: the page reads with a viewer's session) names themselves
  // only to play: Play, or "Continue as a guest", checks this field first.
  const nameInput = element("input", { id: "daily-name", maxlength: String(LIMITS.nameMax), required: true, autocomplete: "nickname",
    value: localStorage.getItem(NAME_KEY) ?? "" });
  const nameNote = noteFor(nameInput, nameProblem);

  // The visitor becomes a guest under `name` (the server's rule checked first).
  async function playAs(name) {
    naming = true;
    try {
      await arena.start(name);
      localStorage.setItem(NAME_KEY, name); // only a name the server took
    } finally {
      naming = false;
    }
  }

  const now = () => Date.now() + offset;

  function tick() {
    if (!countdown || closesAt === null) return;
    const left = closesAt - now();
    countdown.textContent = hms(left);
    if (left <= 0 && !reloading) reloading = setTimeout(load, 1500); // the next day's deals
  }

  // Play (or practise) today's deal of `game`: the race page takes the running attempt.
  // The button waits meanwhile (busy, keeping the focus): a second press would only be refused.
  async function start(game, practice, button) {
    showError(error, null);
    if (isBusy(button) || (!arena.playing && !checkFields([nameInput]))) return; // a visitor: its note says why
    markBusy(button, true);
    try {
      if (!arena.playing) await playAs(nameInput.value.trim());
      const reply = await arena.request({ type: "start_daily", game, practice });
      enterRace({ ...reply.race, daily: { date: reply.date, scored: reply.scored, practice } });
    } catch (failure) {
      markBusy(button, false);
      const running = practice && failure.code === "already_racing" ? await practiceRunning(game, failure) : null;
      if (running) { // this deal's practice, left running elsewhere (a terminal): played on here
        enterRace({ ...running, daily: { date: running.daily, scored: false, practice: true } });
        return;
      }
      // Said under the button pressed, in sight on a phone scrolled down to its deal (the
      // page's next drawing puts the line back at the top).
      button.after(error);
      showError(error, failure);
      error.scrollIntoView({ block: "nearest" });
      if (failure.code === "already_racing") await linkRacingRace(arena, error, failure);
    }
  }

  // The race an `already_racing` refusal names, when it is the player's practice of
  // `game`'s daily deal that still runs (null otherwise, or when it cannot be read).
  async function practiceRunning(game, failure) {
    const raceId = racingRaceId(failure);
    if (!raceId) return null;
    try {
      const { race } = await arena.request({ type: "get_race", race_id: raceId });
      const running = ["countdown", "running"].includes(race.status);
      return race.game === game && race.attempt === "practice" && race.daily && running ? race : null;
    } catch {
      return null;
    }
  }

  // The attempt's end as its results give it (the player's own: always readable), or
  // what stands in for it: under way, or no longer kept.
  async function attemptState(attempt) {
    try {
      const { summary } = await arena.request({ type: "get_results", race_id: attempt.race_id });
      const mine = summary.standings.find((s) => s.player_id === arena.player?.player_id) ?? summary.standings[0];
      return { over: true, standing: mine };
    } catch (failure) {
      if (failure.code === "race_not_over") return { over: false };
      if (failure.code === "race_cancelled") return { over: true, cancelled: true };
      return { over: true, lost: true };
    }
  }

  function navigation(day, today) {
    const picker = element("input", { id: "daily-pick", type: "date", value: day, max: today, title: "type a day, then Enter" });
    const show = () => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(picker.value) || picker.value > today || picker.value === day) return;
      location.hash = dailyHref(picker.value === today ? null : picker.value, view);
    };
    // A day picked from the calendar shows at once; one typed (each key of which changes
    // the value, and fires change) only on Enter, so a day is not left half typed.
    let typed = false;
    picker.addEventListener("keydown", (event) => {
      if (event.key === "Enter") show();
      else typed = true;
    });
    picker.addEventListener("change", () => { if (!typed) show(); });
    const links = [element("a", { href: dailyHref(shiftDay(day, -1), view), id: "previous-day" }, "← Previous day")];
    if (day < today) {
      const next = shiftDay(day, 1);
      links.push(element("a", { href: dailyHref(next === today ? null : next, view), id: "next-day" }, "Next day →"),
        element("a", { href: dailyHref(null, view), id: "daily-today" }, "Today"));
    }
    return element("nav", { class: "row days", "aria-label": "days" }, ...links,
      element("label", { for: "daily-pick" }, "Show the day"), picker);
  }

  // The page's two tabs, on the same day: its deals and boards, and the tournament.
  function tabs(day, today) {
    const shown = day === today ? null : day;
    return element("nav", { class: "tabs", id: "daily-tabs", "aria-label": "daily views" },
      element("a", { href: dailyHref(shown), id: "tab-deals", "aria-current": view === "deals" ? "page" : null }, "Deals and boards"),
      element("a", { href: dailyHref(shown, "standings"), id: "tab-standings", "aria-current": view === "standings" ? "page" : null }, "Standings"));
  }

  function dateLine(day) {
    return element("p", { id: "daily-date" }, element("time", { datetime: day }, `${weekday(day)} ${day}`), " (UTC)");
  }

  // One line of a board: rank, name (yours marked), result, and the attempt's results and
  // replay where the server gives its race id.
  function boardRow(entry, title, game) {
    const me = entry.player_id === arena.playing?.player_id;
    const what = `${entry.name}'s ${title} attempt`;
    const see = entry.race_id
      ? [element("a", { href: `#/race/${entry.race_id}`, class: "results-link", "aria-label": `results of ${what}` }, "Results"),
        " · ",
        element("a", { href: `#/replay/${entry.race_id}`, class: "replay-link", "aria-label": `replay of ${what}` }, "Replay")]
      : [];
    return element("tr", { "data-player": entry.player_id, class: me ? "me" : null, "aria-current": me ? "true" : null },
      element("td", { class: "number" }, `${entry.rank}`),
      element("td", {}, playerLink(entry.player_id, entry.name, entry.bot), me ? " (you)" : ""),
      element("td", { class: "result" }, standingResult(game, entry)),
      element("td", { class: "links" }, ...see));
  }

  function boardTable(day, game, first) {
    const title = GAME_TITLES[game] ?? game;
    const rows = element("tbody");
    const note = element("p", { class: "setting board-note" });
    const more = element("button", { type: "button", class: "more", hidden: true }, `More of the ${title} board`);
    let shown = [];
    let next = null;

    function draw(board) {
      next = board.next_offset ?? null;
      more.hidden = next === null;
      const lines = shown.map((e) => boardRow(e, title, game));
      if (board.me && !shown.some((e) => e.player_id === board.me.player_id)) {
        lines.push(element("tr", { class: "gap" }, element("td", { colspan: "4" }, "…")), boardRow(board.me, title, game));
      }
      if (!shown.length) {
        lines.push(element("tr", {}, element("td", { colspan: "4" }, "No finished scored attempts yet.")));
      }
      rows.replaceChildren(...lines);
      // Before the day is closed the server links no attempt but your own (nobody reads
      // another's moves while the deal can still be played): say when the rest open.
      note.textContent = shown.some((e) => !e.race_id)
        ? `Other attempts' results and replays open here ${revealWords(board.reveals_at)}.`
        : "";
    }

    more.addEventListener("click", async () => {
      if (next === null) return;
      showError(error, null);
      try {
        const page = await arena.request({ type: "get_daily_board", game, date: day, offset: next, limit: BOARD_SIZE });
        shown = shown.concat(page.entries);
        draw(page);
      } catch (failure) {
        showError(error, failure);
      }
    });
    shown = first.entries;
    draw(first);
    const total = first.total === 1 ? "1 finished scored attempt" : `${first.total} finished scored attempts`;
    return element("div", { class: "daily-board" },
      element("table", { id: `board-${game}`, class: "board-table" },
        element("caption", {}, `${title} board: ${total}`),
        element("thead", {}, element("tr", {}, ...["Rank", "Player", "Result", "See"].map((h) => element("th", { scope: "col" }, h)))),
        rows),
      note, more);
  }

  // What the player did with the deal, and what they can do next.
  function attemptPart(deal, state, board, isToday, guest) {
    const title = GAME_TITLES[deal.game] ?? deal.game;
    const box = element("div", { class: "attempt" });
    const line = element("p", { class: "attempt-state" });
    box.append(line);
    if (!deal.attempt) {
      if (!isToday) {
        line.textContent = "You did not play this deal.";
        return box;
      }
      line.textContent = guest
        ? "Unscored: a guest's attempt is not on the board."
        : "Your scored attempt: one try, hints off, the clock runs from the start.";
      box.append(element("button", { type: "button", class: "primary play", "data-game": deal.game, onclick: (event) => start(deal.game, false, event.currentTarget) },
        guest ? `Play ${title} (unscored)` : `Play ${title}`));
      return box;
    }
    const kind = deal.attempt.scored ? "Your scored attempt" : "Your attempt (unscored)";
    const results = element("a", { href: `#/race/${deal.attempt.race_id}`, class: "your-results", "aria-label": `results of your ${title} attempt` }, "Results");
    if (!state.over) {
      line.textContent = `${kind} is under way.`;
      box.append(element("a", { href: `#/race/${deal.attempt.race_id}`, class: "resume" }, `Resume ${title}`));
      return box;
    }
    if (state.cancelled) line.textContent = `${kind} was cancelled.`;
    else if (state.lost) line.textContent = `${kind} is over.`;
    else {
      const s = state.standing;
      const rank = deal.attempt.scored && board?.me ? `, rank ${board.me.rank} of ${board.total}` : "";
      // Its standing's words, as the race's results say them ("gave up with …" when it was).
      line.textContent = `${kind}: ${standingResult(deal.game, s)}${rank}.`;
    }
    if (!state.lost && !state.cancelled) box.append(results);
    if (isToday) {
      box.append(" ", element("button", { type: "button", class: "practice", "data-game": deal.game, onclick: (event) => start(deal.game, true, event.currentTarget) },
        `Practice ${title}`), element("span", { class: "setting" }, " unscored, hints on, as often as you like"));
    }
    return box;
  }

  // A day that is over: its seed and salt, and how to check them against the commitment.
  function revealPart(deal) {
    const preimage = `solitaire-arena:${deal.game}:${deal.seed}:${deal.salt}`;
    const verdict = element("span", { class: "verdict", role: "status" });
    const part = element("div", { class: "reveal" },
      element("p", {}, "Seed ", element("code", { class: "seed" }, `${deal.seed}`), ", salt ", element("code", { class: "salt" }, deal.salt)),
      element("p", { class: "setting verify-hint" }, "Verify: the SHA-256 of ", element("code", {}, preimage),
        " must be the commitment published when the day opened; then any attempt's moves replay from this seed."));
    if (globalThis.crypto?.subtle) {
      const check = element("button", { type: "button", class: "verify", "aria-label": `Verify the ${GAME_TITLES[deal.game] ?? deal.game} seed` }, "Verify");
      check.addEventListener("click", async () => {
        const digest = await sha256(preimage);
        verdict.textContent = digest === deal.commitment ? "✓ matches the commitment" : `✗ does not match: ${digest}`;
        verdict.classList.toggle("bad", digest !== deal.commitment);
      });
      part.append(element("p", { class: "row" }, check, verdict));
    }
    return part;
  }

  function draw(dailies, states, boards) {
    offset = dailies.server_time - Date.now();
    const today = dayOf(dailies.server_time);
    const isToday = dailies.server_time < dailies.closes_at;
    closesAt = isToday ? dailies.closes_at : null;
    const guest = !arena.username;
    const when = dateLine(dailies.date);
    let clock;
    if (isToday) {
      countdown = element("span", { id: "daily-countdown", role: "timer", "aria-live": "off" });
      clock = element("p", { id: "daily-clock" }, "Next day's deals in ", countdown, ".");
    } else if (dailies.server_time < dailies.reveals_at) {
      // Attempts begun before midnight still run: the seeds wait for them, then show.
      countdown = null;
      clock = element("p", { id: "daily-clock" }, `This day is over: its seeds are revealed ${revealWords(dailies.reveals_at)}.`);
      if (!reloading) reloading = setTimeout(load, dailies.reveals_at - dailies.server_time + 1500);
    } else {
      countdown = null;
      clock = element("p", { id: "daily-clock" }, "This day is over: its seeds are revealed below.");
    }
    const deals = dailies.deals.map((deal, i) => {
      const title = GAME_TITLES[deal.game] ?? deal.game;
      const heading = `daily-${deal.game}-title`;
      const proven = deal.proven
        ? element("span", { class: "proven", title: "the server's solver found a winning line before the deal was published" }, "✓ proven winnable")
        : element("span", { class: "unproven", title: "the solver found no win within its budget: this deal may be lost whatever you do" }, "not proven winnable");
      return element("section", { class: "daily", "data-game": deal.game, "aria-labelledby": heading },
        element("h2", { id: heading }, title),
        element("div", { class: "deal-side" },
          element("p", { class: "deal-facts" }, "Commitment ",
            element("code", { class: "commitment", title: deal.commitment }, `${deal.commitment.slice(0, 12)}…`), " · ", proven),
          attemptPart(deal, states[i], boards[i], isToday, guest),
          deal.seed != null ? revealPart(deal) : ""),
        boardTable(dailies.date, deal.game, boards[i]));
    });
    const intro = element("p", { class: "setting" });
    if (!isToday) intro.append("The deals, boards and seeds of a day that is over.");
    else if (!arena.playing) {
      intro.append("The same deal for everyone today, one per game. Choose a name to play as a guest (unscored), or ",
        element("a", { href: "#/account" }, "sign in"), " to be on the boards.");
    } else if (guest) {
      intro.append("The same deal for everyone today, one per game. Guests play unscored: ",
        element("a", { href: "#/account" }, "sign in or register"), " to be on the boards.");
    } else intro.append("The same deal for everyone today, one per game: your first attempt of each is scored.");
    app.replaceChildren(
      element("h1", {}, isToday ? "Daily challenges" : "Daily challenges of a past day"),
      tabs(dailies.date, today), when, clock, intro, isToday && !arena.playing ? guestForm() : "",
      navigation(dailies.date, today), error,
      element("div", { class: "dailies" }, ...deals));
    tick();
  }

  // The Standings tab: the tournament of the day on screen (`today`: the server's day).
  function drawStandings(standings, serverTime) {
    offset = serverTime - Date.now();
    const today = dayOf(serverTime);
    closesAt = null;
    countdown = null;
    const refresh = element("button", { type: "button", id: "standings-refresh", onclick: () => { showError(error, null); load(); } }, "Refresh");
    const [streak, note, tables] = standingsParts(standings, { me: arena.playing?.player_id, guest: !arena.username, today, refresh });
    app.replaceChildren(
      element("h1", {}, "Daily tournament"),
      tabs(standings.date, today), dateLine(standings.date), streak, note,
      navigation(standings.date, today), error, tables);
  }

  async function load() {
    reloading = null;
    unreached = false;
    try {
      await readingSession(); // a visitor reads it all: only playing asks for a name
      if (gone) return;
      if (view === "standings") {
        const [standings, pong] = await Promise.all([
          arena.request(date ? { type: "get_daily_standings", date } : { type: "get_daily_standings" }),
          arena.request({ type: "ping" }),
        ]);
        if (!standings.day.length && standings.date < dayOf(pong.server_time)) {
          // A past day may have had no dailies at all: refused as the Challenges tab says it.
          await arena.request({ type: "get_dailies", date: standings.date });
        }
        if (!gone) { drawStandings(standings, pong.server_time); drawn = true; }
        return;
      }
      const dailies = await arena.request(date ? { type: "get_dailies", date } : { type: "get_dailies" });
      // The games in the order every other page lists them (the lobby, the leaderboard, the Standings tab).
      const order = (deal) => GAMES.findIndex(([id]) => id === deal.game);
      dailies.deals.sort((a, b) => order(a) - order(b));
      const [states, boards] = await Promise.all([
        Promise.all(dailies.deals.map((d) => (d.attempt ? attemptState(d.attempt) : null))),
        Promise.all(dailies.deals.map((d) => arena.request({ type: "get_daily_board", game: d.game, date: dailies.date, limit: BOARD_SIZE }))),
      ]);
      if (!gone) { draw(dailies, states, boards); drawn = true; }
    } catch (failure) {
      if (gone) return;
      if (date) { // the days around it are the server's: its clock, not this one
        const pong = await arena.request({ type: "ping" }).catch(() => null);
        if (gone) return;
        if (pong) offset = pong.server_time - Date.now();
      }
      app.replaceChildren(element("h1", {}, view === "standings" ? "Daily tournament" : "Daily challenges"), navigationOnError(), error);
      showError(error, failure);
      unreached = failure.code === "connection_lost";
      if (failure.code === "daily_not_ready" && !date) reloading = setTimeout(load, 5000); // being prepared
    }
  }

  // A visitor's name, to play under as a guest (Play checks it too); a sign-in instead is
  // the account page's.
  function guestForm() {
    const go = element("form", { id: "daily-guest", class: "row", novalidate: true },
      element("label", { for: "daily-name" }, "Name"), nameInput, nameNote,
      element("button", { type: "submit" }, "Continue as a guest"));
    go.addEventListener("submit", async (event) => {
      event.preventDefault();
      showError(error, null);
      if (!checkFields([nameInput])) return; // its note says why
      try {
        await playAs(nameInput.value.trim());
        await load();
      } catch (failure) {
        showError(error, failure);
      }
    });
    return go;
  }

  // Refused (a day not begun, deals still being prepared): a way back to today.
  // A day asked for by date keeps its tabs and its way to the days around it.
  function navigationOnError() {
    const toToday = element("p", {}, element("a", { href: dailyHref(null, view), id: "daily-back-today" },
      view === "standings" ? "Today's standings" : "Today's daily challenges"));
    if (!date) return toToday;
    const today = dayOf(now());
    return element("div", {}, tabs(date, today), navigation(date, today), toToday);
  }

  app.replaceChildren(element("h1", {}, view === "standings" ? "Daily tournament" : "Daily challenges"), element("p", {}, "Loading…"), error);
  const timer = setInterval(tick, 250);
  // Back after a drop (or the server away when the page opened): the day read again.
  const stop = arena.on("welcome", () => {
    if ((!drawn && !unreached) || reloading || naming) return;
    if (error.dataset.code === "connection_lost") showError(error, null); // the connection is back
    load();
  });
  load();
  return () => { gone = true; clearInterval(timer); clearTimeout(reloading); stop(); };
}
