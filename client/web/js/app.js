// The pages: the lobby (#/), a race (#/race/<id>, results at the end), its replay
// (#/replay/<id>), players.js (account, leaderboard, profile), daily.js (#/daily; its
// Standings tab is standings.js), live.js (#/live, #/watch) and verify.js (#/verify), the
// last two loaded when first shown. A daily attempt is a race of one on the race page,
// maybe against ghosts (the day's best finished attempts).

import { Arena } from "./arena.js";
import { Board, MOVE_EXAMPLES, autoplayWords, cardsInWords, setAnimations } from "./board.js";
import { dailyHref, dailyPage, dayOf, revealWords } from "./daily.js";
import { GAMES, GAME_TITLES, attemptText, cardsScored, changeText, cutName, dealCardsLeft, element, isBusy, linkRacingRace, markBusy, movesText, passFocus, placeText, playerLink, raceOverWords, racersText, ratingCell, ratingText, redraw, seconds, NO_SUCH_RACE, sharesRank, showError, showRaceError, standingResult, standingsHead, tableHead, unseen, watchersText } from "./dom.js";
import { forgetPendingShares, keepShare, newShare, pendingShare, seatPendingShare, shareOf } from "./fairness.js";
import { LIMITS, checkFields, clearFields, codeProblem, nameProblem, noteFor, seatsProblem } from "./forms.js";
import { NAME_KEY, accountPage, leaderboardPage, profilePage } from "./players.js";

const app = document.getElementById("app");
const arena = new Arena(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`);
let leavePage = () => {};
let routed = null; // the hash the page on screen shows
let arriving = null; // a race an event handed over (RaceInfo), shown at once by its page
// The order a race's status goes in: a reply that raced an event never takes it back.
const STAGES = { open: 0, countdown: 1, running: 2, ending: 3, finished: 4, cancelled: 4 };
// How often a visitor's page of an open race reads it again (a visitor gets no race_update).
const VISITOR_REFRESH_MS = 3000;
// The quick-match queue (a game id) the player waits in, shown by the lobby with Cancel;
// after a welcome, the one it names (another tab queued). An account's is the rated one.
let queuedFor = null;
let queuedRated = false;
let queuedCasual = false; // an account's stay in the casual queue (it asked for it)
// That stay's ticket, and why the last one ended unpaired (quick_match_left).
let queueTicket = null;
let queueLeftBecause = "";
let matchesFound = 0; // match_found events so far (one may overtake its queue's reply)
// The races the page's player sits in (ids): the welcome's, those created, joined or
// entered on this page, and those the server lists at each lobby refresh (another tab's or
// device's too). The lobby lists those not over, with links.
const myRaces = new Set();
let myRacesOf = null; // whose they are (a player id)
// The race the page on screen shows its player racing in (counting down or running, their
// board not finished), as { code, daily }: if they are signed out meanwhile, the page says
// it goes on without them and how to come back to it.
let racingHere = null;

function fill(score) {
  const bar = element("span");
  bar.style.width = `${(score / 52) * 100}%`; // CSSOM, not a style attribute: the CSP forbids those
  return bar;
}

// Go to a race the server seated us in (match_found, rematch_started, a daily attempt):
// its page shows the race as given at once, so no countdown or start event is missed
// while it waits for get_race.
function enterRace(info) {
  myRaces.add(info.race_id);
  arriving = info;
  location.hash = `#/race/${info.race_id}`;
  route();
}

// The page's session: resumed with the saved token (a guest whose token expired starts
// again under the name they chose; an account whose token was revoked is signed out), a
// new guest under the name chosen before, or none yet (null; also while only watching).
async function signIn() {
  if (arena.playing) return arena.player;
  if (arena.ready && !arena.watchOnly) { // a start or a resume under way
    try {
      return await arena.ready;
    } catch (failure) {
      if (failure.code !== "bad_token") throw failure;
    }
  }
  const saved = localStorage.getItem(NAME_KEY);
  const token = arena.token;
  if (token || saved) {
    try {
      return await arena.start(saved);
    } catch (failure) {
      if (failure.code === "bad_token") return null;
      // A saved name the server refuses (saved by an older page, or an account's username
      // since): forgotten, not retried.
      if ((failure.code === "invalid_message" && !token) || failure.code === "username_taken") {
        localStorage.removeItem(NAME_KEY);
        return null;
      }
      throw failure;
    }
  }
  return null;
}

// A session for pages that only read what anyone may (the live list, watching, a race's
// record, the leaderboard, another player's profile): the page's player, else a
// viewer's session (see Arena.watchOnly).
async function readingSession() {
  return (await signIn()) ?? arena.watch();
}

// ----- lobby ---------------------------------------------------------------------------

function lobbyPage() {
  const error = element("p", { class: "error", role: "alert" });
  const savedName = localStorage.getItem(NAME_KEY);
  const nameInput = element("input", { id: "name", "aria-label": "your name", maxlength: String(LIMITS.nameMax), autocomplete: "nickname", value: savedName ?? "" });
  const nameNote = noteFor(nameInput, nameProblem);
  const gameSelect = element("select", { id: "game", "aria-label": "game" }, ...GAMES.map(([id, title]) => element("option", { value: id }, title)));
  const seats = element("input", { id: "seats", type: "number", min: String(LIMITS.seatsMin), max: String(LIMITS.seatsMax), step: "1", required: true, value: "2" });
  const seatsNote = noteFor(seats, seatsProblem);
  const code = element("input", { id: "code", "aria-label": "race code", minlength: String(LIMITS.codeMin), maxlength: String(LIMITS.codeMax),
    pattern: `[A-Za-z0-9]{${LIMITS.codeMin},${LIMITS.codeMax}}`, placeholder: "CODE", autocomplete: "off" });
  const codeNote = noteFor(code, codeProblem);
  // A race's clock, as the terminal's --time-limit sets it; ten minutes unless chosen.
  const timeLimit = element("select", { id: "time-limit" }, ...[2, 5, 10, 15, 30, 60].map((minutes) =>
    element("option", { value: String(minutes * 60), selected: minutes === 10 }, `${minutes} min`)));
  const hints = element("input", { id: "hints", type: "checkbox", checked: "" });
  const rated = element("input", { id: "rated", type: "checkbox", disabled: true, "aria-describedby": "rated-note" });
  const ratedNote = element("span", { id: "rated-note", class: "setting" });
  const who = element("div", { class: "row", id: "lobby-who" });
  const openList = element("tbody");
  const myList = element("tbody");
  // The lists' headings take the focus from a row that a refresh took away (its race gone).
  const myHeading = element("h2", { tabindex: "-1" }, "Your races");
  const openHeading = element("h2", { tabindex: "-1" }, "Open races");
  const quickHeading = element("h2", { tabindex: "-1" }, "Quick match");
  // An account's quick match is rated (accounts only) unless it asks for the casual queue,
  // where guests and bots wait; a guest's is always casual: no box for one.
  const casual = element("input", { id: "quick-casual", type: "checkbox" });
  const casualChoice = element("label", { class: "check", for: "quick-casual", hidden: true }, casual,
    "Casual: race guests and bots too, no rating change");
  const mySection = element("section", { id: "my-races", hidden: true }, myHeading,
    element("p", { class: "setting" }, "The races you sit in that are not over: open one to get ready, leave it, or race on."),
    element("table", { class: "races" }, tableHead("Code", "Game", "State", "Seats", unseen("Go to")), myList));
  const queueLine = element("p", { id: "queue", role: "status", hidden: true });

  // An account races under its username; a guest chooses a name (or signs in). Redrawn
  // only when that changes: every welcome (the visitor's viewer session, a resume) calls
  // this, and taking the name field out and back would take the focus from someone typing
  // in it, and with it what they type next.
  let whoDrawn; // the username `who` shows (null: the name field), undefined before the first draw
  function drawWho() {
    casualChoice.hidden = !arena.username;
    if (arena.username !== whoDrawn) {
      whoDrawn = arena.username;
      if (arena.username) {
        who.replaceChildren(element("span", { id: "signed-in" }, `Signed in as ${arena.username}.`),
          element("a", { href: "#/account" }, "Account"));
      } else {
        who.replaceChildren(element("label", { for: "name" }, "Name"), nameInput, nameNote,
          element("span", { class: "setting" }, "or"), element("a", { href: "#/account", id: "lobby-sign-in" }, "sign in or register"));
      }
    }
    // Rated races are for accounts: the box is there for them only, and a rated race has no hints.
    rated.disabled = !arena.username;
    if (!arena.username) rated.checked = false;
    ratedNote.textContent = arena.username ? "" : "(accounts only)";
    hints.disabled = rated.checked;
  }
  rated.addEventListener("change", () => {
    if (rated.checked) hints.checked = false;
    hints.disabled = rated.checked;
  });

  // The field shows the name a resumed guest goes by (renamed elsewhere, it may not be the
  // one saved here), unless someone is typing in it or has typed in it since.
  let shownName = nameInput.value;
  function showGuestName() {
    const player = arena.playing;
    if (!player || arena.username || document.activeElement === nameInput || nameInput.value !== shownName) return;
    nameInput.value = shownName = player.name;
  }

  // A name typed for a guest already playing renames it (not one left empty).
  const renaming = () => {
    const name = nameInput.value.trim().normalize("NFC");
    return Boolean(arena.playing && !arena.username && name && name !== arena.playing.name);
  };

  async function ensureSignedIn() {
    const name = nameInput.value.trim();
    if (!arena.playing && arena.ready && !arena.watchOnly) await signIn(); // a resume under way
    if (!arena.playing) {
      await arena.start(name || "player");
      localStorage.setItem(NAME_KEY, name || "player"); // only a name the server took
    } else if (renaming()) {
      const kept = await arena.rename(name);
      nameInput.value = shownName = kept;
      localStorage.setItem(NAME_KEY, kept);
    }
  }

  // The name field is checked while the page has nobody to play as (a guest starts under
  // it; with a saved token it is used only if the token no longer works, and may be
  // empty), and when it renames the guest playing.
  const nameNeeded = () => (!arena.playing && (!arena.token || nameInput.value.trim() !== "")) || renaming();

  // An action of the lobby: the fields it sends (`fields`) and the name checked first,
  // nothing sent while one is wrong (its note says why).
  async function act(work, fields = []) {
    showError(error, null);
    clearFields([nameInput, seats, code].filter((input) => !fields.includes(input)));
    if (!checkFields([...(nameNeeded() ? [nameInput] : []), ...fields])) return;
    try {
      await ensureSignedIn();
      await work();
    } catch (failure) {
      showError(error, failure);
      if (failure.code === "already_racing") await nameRaceByCode(failure);
    }
  }

  // The refusal names the race by its code, linked, and "Your races" lists it.
  async function nameRaceByCode(failure) {
    const raceId = await linkRacingRace(arena, error, failure);
    if (!raceId) return;
    myRaces.add(raceId);
    await refreshMine();
  }

  const goTo = (race) => element("a", { href: `#/race/${race.race_id}`, class: "go-to-race", "aria-label": `go to race ${race.code}`, "data-key": race.race_id }, "Go to race");

  async function refresh() {
    if (!arena.player) return;
    try {
      const me = arena.playing?.player_id;
      const page = await arena.request({ type: "list_races", limit: 20 });
      const seated = (race) => me && race.racers.some((r) => r.player_id === me);
      for (const race of page.races) if (seated(race)) myRaces.add(race.race_id);
      // Every 3 s: a Join (or Go to race) focused is focused again in its race's new row; a
      // race gone passes the focus to the list's heading.
      redraw(openList, page.races.length ? page.races.map((race) => element("tr", { "data-race": race.race_id },
        element("td", { class: "race-code" }, race.code), element("td", {}, GAME_TITLES[race.game] ?? race.game),
        element("td", {}, race.rated ? "rated" : "casual"),
        element("td", {}, `${race.racers.length}/${race.seats}`),
        element("td", {}, seated(race) ? goTo(race)
          : element("button", { onclick: () => act(() => join(race.code)), "aria-label": `join ${race.code}`, "data-key": race.race_id }, "Join"))))
        : [element("tr", {}, element("td", { id: "no-open-races", colspan: "5" }, "No open race right now: create one, or quick-match."))], openHeading);
      await learnMine();
      await refreshMine();
    } catch { /* shown on the next action */ }
  }

  // Where this player sits and waits, as the server has it: races joined or started, and a
  // quick match queued for, on another tab or device too (a welcome tells them only once).
  // The queue is taken unless this page's own word on it came meanwhile (its queue's reply,
  // a cancel, a match): that one is newer.
  async function learnMine() {
    const me = arena.playing?.player_id;
    if (!me) return;
    const seen = [matchesFound, queueTicket].join();
    const mine = await arena.request({ type: "list_my_races" });
    if (arena.playing?.player_id !== me) return;
    for (const id of mine.races) myRaces.add(id);
    if ([matchesFound, queueTicket].join() !== seen) return;
    if (mine.queued && mine.queued.ticket !== queueTicket) queueLeftBecause = ""; // a new stay
    queuedFor = mine.queued?.game ?? null;
    queuedRated = mine.queued?.rated === true;
    queueTicket = mine.queued?.ticket ?? null;
    drawQueue();
  }

  // The races this player sits in that are not over (the others are dropped from myRaces).
  async function refreshMine() {
    if (!arena.playing) { mySection.hidden = true; return; }
    const races = await Promise.all([...myRaces].map((id) => arena.request({ type: "get_race", race_id: id })
      .then((reply) => reply.race, (failure) => (failure.code === "connection_lost" ? null : { race_id: id, status: "cancelled" }))));
    const live = [];
    for (const race of races) {
      if (!race) continue;
      const over = ["finished", "cancelled"].includes(race.status) || !race.racers?.some((r) => r.player_id === arena.playing?.player_id);
      if (over) myRaces.delete(race.race_id); else live.push(race);
    }
    mySection.hidden = !live.length; // with its last race gone, the focus goes to the open races' heading
    redraw(myList, live.map((race) => element("tr", { "data-race": race.race_id },
      element("td", { class: "race-code" }, race.code), element("td", {}, GAME_TITLES[race.game] ?? race.game),
      element("td", {}, RACE_STATES[race.status] ?? race.status), element("td", {}, `${race.racers.length}/${race.seats}`), element("td", {}, goTo(race)))), myHeading, openHeading);
  }

  async function join(raceCode) {
    const mine = newShare();
    const reply = await arena.request({ type: "join_race", code: raceCode.trim().toUpperCase(), share_commitment: mine?.commitment });
    keepShare(reply.race.race_id, mine?.share);
    myRaces.add(reply.race.race_id);
    location.hash = `#/race/${reply.race.race_id}`;
  }

  // Enter in a field does its row's action: the name field takes the name (a guest
  // starts under it, as the daily page's "Continue as a guest" does; the header then
  // shows it), the seats field creates the race, the code field joins, as their buttons do.
  const onEnter = (input, action) => input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    action();
  });
  const joinByCode = () => act(() => join(code.value), [code]);
  const createRace = () => act(async () => {
    const mine = newShare(); // our seed share: committed now, revealed with ready
    const reply = await arena.request({ type: "create_race", game: gameSelect.value, seats: Number(seats.value), time_limit: Number(timeLimit.value), rated: rated.checked, hints: hints.checked && !rated.checked, share_commitment: mine?.commitment });
    keepShare(reply.race.race_id, mine?.share);
    myRaces.add(reply.race.race_id);
    location.hash = `#/race/${reply.race.race_id}`;
  }, [seats]);
  onEnter(nameInput, () => act(async () => {}));
  onEnter(seats, createRace);
  onEnter(code, joinByCode);

  // While queued: which game, and Cancel (a player waits in one queue at a time). Drawn
  // again at every refresh: Cancel keeps the focus; once it is gone (cancelled, or the stay
  // ended), the line saying why, else the section's heading, takes it.
  function drawQueue() {
    // Hiding the line drops a focus it holds to the body at once (Chromium): kept here,
    // to pass on once it is drawn.
    const held = queueLine.contains(document.activeElement) ? document.activeElement : null;
    queueLine.hidden = !queuedFor && !queueLeftBecause;
    if (!queuedFor) {
      redraw(queueLine, queueLeftBecause ? [`No longer waiting for a quick match: ${queueLeftBecause}.`] : [], queueLine, quickHeading);
      passFocus(held, queueLine, quickHeading);
      return;
    }
    const title = GAME_TITLES[queuedFor] ?? queuedFor;
    if (arena.username) casual.checked = queuedCasual; // which queue this account waits in (another tab's too)
    redraw(queueLine, [queuedRated ? `Waiting for another account to race at ${title} (a rated quick match: accounts are paired with accounts only)… `
      : queuedCasual ? `Waiting for someone to race at ${title} (casual: guests and bots too)… `
      : `Waiting for someone to race at ${title}… `,
      element("button", { id: "cancel-quick-match", type: "button", onclick: () => act(async () => {
        await arena.request({ type: "cancel_quick_match" });
        forgetPendingShares("queue.");
        queuedFor = queueTicket = null;
        queueLeftBecause = "";
        drawQueue();
      }) }, "Cancel quick match")]);
  }

  const quick = GAMES.map(([id, title]) => element("button", { class: "primary", onclick: () => act(async () => {
    const before = matchesFound;
    const mine = pendingShare(`queue.${id}`, true); // kept before asking: match_found may overtake the reply
    const queued = await arena.request({ type: "quick_match", game: id, share_commitment: mine?.commitment,
      casual: !!arena.username && casual.checked });
    if (matchesFound !== before) return; // matched already: on the race's page
    waitIn(id, queued, !!arena.username && casual.checked);
    queueLeftBecause = "";
    drawQueue();
  }) }, `Quick match: ${title}`));

  app.replaceChildren(
    element("section", {}, element("h1", { "data-title": "Lobby" }, "Race the same deal"), who),
    element("section", {}, quickHeading, element("div", { class: "row" }, ...quick, casualChoice), queueLine),
    mySection,
    element("section", {}, element("h2", {}, "With friends"),
      element("div", { class: "row" }, gameSelect, element("label", { for: "seats" }, "Seats"), seats, seatsNote,
        element("label", { for: "time-limit" }, "Time"), timeLimit,
        element("label", { class: "check", for: "hints" }, hints, "Hints allowed"),
        element("label", { class: "check", for: "rated" }, rated, "Rated"), ratedNote,
        element("button", { id: "create", onclick: createRace }, "Create race")),
      element("div", { class: "row" }, code, element("button", { id: "join", onclick: () => joinByCode() }, "Join by code"), codeNote)),
    error,
    element("section", {}, openHeading,
      element("table", { id: "open-races", class: "races" }, tableHead("Code", "Game", "Kind", "Seats", unseen("Join")), openList)),
  );
  drawWho();
  drawQueue();
  let welcomed = false; // a welcome came while the lobby is shown (and read the open races)
  const stops = [
    arena.on("welcome", () => { welcomed = true; drawWho(); showGuestName(); drawQueue(); refresh(); }),
    arena.on("account", () => { drawWho(); showGuestName(); }),
    arena.on("quick_match_left", (event) => { leftQueue(event); drawQueue(); }),
    arena.on("queue", drawQueue), // queued again after a resume, or why not
  ];
  const timer = setInterval(refresh, 3000);
  // The open races are for anyone to see: a visitor who chose no name yet reads them with
  // the viewer's session (readingSession). Read once: by the welcome of the session opened
  // here, else (one opened before the lobby was shown) once it is there.
  signIn().then((player) => {
    // A saved name the server refused is forgotten (see signIn): not offered again.
    if (savedName && localStorage.getItem(NAME_KEY) !== savedName && nameInput.value === savedName) nameInput.value = "";
    return player ?? arena.watch();
  }).then(() => { if (!welcomed) refresh(); }).catch((failure) => { if (!arena.playing) showError(error, failure); });
  return () => { clearInterval(timer); stops.forEach((stop) => stop()); };
}

// ----- race ----------------------------------------------------------------------------

// Refusals of a move after which the page's board is out of date, or may be: it reads
// the race again (see racePage's resync). Those about the seq are said in plain words.
const OUT_OF_STEP = new Set(["stale_seq", "seq_conflict", "future_seq"]);
const RESYNC = new Set([...OUT_OF_STEP, "unavailable", "internal_error"]);
// Refusals after which the move may have gone in all the same: sent again under its seq,
// the ack that comes back (marked resent) is this page's own move.
const MAYBE_PLAYED = new Set(["connection_lost", "unavailable", "internal_error"]);
// What a racer's page says once a rated race's creator started it while they were not
// ready (a race_update naming them in left_out): they sit in it no more.
const LEFT_OUT = "The race started without you: you were not ready (rated races start with their ready racers).";
const PLAYED_ELSEWHERE = "This race was played on elsewhere (another tab or device): the board is shown as it is now. Play your move again.";
// A move, hint or give-up refused as `racer_finished`, or a move refused for its seq by a
// race that, read again, shows this racer finished: they gave up (or won) on another tab
// or device, whose sessions the server tells nothing of it.
const FINISHED_ELSEWHERE = "You finished this race in another tab or on another device: its board is only shown now.";

// What a racer's answer to a rematch offer reads as.
// A race's state in the "Your races" table, in words.
const RACE_STATES = { open: "waiting to start", countdown: "starting", running: "racing", ending: "ending" };
const ANSWERS = { offered: "offered", pending: "not answered yet", accepted: "accepted", declined: "declined" };

const CANCELLED = "This race was cancelled";
function statusText(info) {
  return {
    open: `Race ${info.code}: ${info.racers.length} of ${info.seats} seated, ${info.racers.filter((r) => r.ready).length} ready; share the code, everyone presses Ready`,
    countdown: "Get ready…",
    running: "Go!",
    finished: "The race is over",
    cancelled: CANCELLED,
  }[info.status] ?? info.status;
}

// A cancelled race's status line with the server's reason.
const cancelledText = (why) => `${CANCELLED}: ${why}`;

function clockText(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

// A race's time limit (seconds): "10 min", "1:30 min", "45 s".
// A race's time limit, never longer than it is (59.6 s is not "1 min"): under a minute to
// the tenth of a second, else in whole seconds.
function limitText(limit) {
  if (limit < 60) return `${Math.floor(limit * 10) / 10} s`;
  const total = Math.floor(limit);
  return total % 60 ? `${clockText(total)} min` : `${total / 60} min`;
}

// What a daily attempt (a race of one) is, as the race page says it.
function dailyKindText(daily) {
  if (!daily?.date) return "Daily";
  if (daily.watching) return `Daily of ${daily.date}`;
  if (daily.practice) return "Daily — practice (unscored)";
  return daily.scored ? "Daily — scored attempt" : "Daily — unscored attempt (guests are not ranked)";
}

// `arrived`: the race as the event that sent us here gave it (shown before get_race
// answers); a daily attempt's start gives `arrived.daily` ({ date, scored, practice }).
function racePage(raceId, arrived = null) {
  // The page's name (its heading, so the tab's title): the race's code once known.
  const heading = element("h1", { id: "race-title" }, "Race");
  // The status line takes the focus when what had it goes with the end of play (controls).
  const status = element("p", { id: "status", role: "status", tabindex: "-1" });
  const clock = element("span", { class: "clock", id: "clock" });
  const gameSetting = element("span", { class: "setting", id: "race-game" }); // "Eight Off · 10 min"
  const hintsSetting = element("span", { class: "setting", id: "hints-setting" });
  const ratedSetting = element("span", { class: "setting", id: "rated-setting" });
  const dailyKind = element("span", { class: "daily-kind", id: "daily-kind", hidden: true });
  const watchers = element("span", { class: "setting", id: "spectators" }); // "3 watching"
  let watcherCount = 0;
  let watchersAtEnd = null; // how many watched as the race ended
  const racers = element("div", { class: "racers", id: "racers" });
  const error = element("p", { class: "error", id: "refusal", role: "alert" });
  const news = element("p", { class: "unseen", id: "news", role: "status" }); // see tell()
  const boardBox = element("div", { class: "board", id: "board" });
  const moveInput = element("input", { id: "move", "aria-label": "move in notation", placeholder: "t3>f1", autocomplete: "off", maxlength: String(LIMITS.moveMax) });
  const undoButton = element("button", { id: "undo", type: "button", "aria-keyshortcuts": "u", title: "take the last move back (key u)" }, "Undo");
  const hintButton = element("button", { id: "hint", type: "button", "aria-keyshortcuts": "h", title: "suggest a move (key h)" }, "Hint");
  const results = element("section", { id: "results" });
  const rematchBox = element("section", { id: "rematch" });
  const readyButton = element("button", { id: "ready", class: "primary" }, "Ready");
  // Said once this racer gets ready without the seed share they committed (kept by another
  // browser), until the race starts.
  const shareNote = element("p", { id: "share-note", class: "setting", hidden: true },
    "Your seed share for this race was committed in another browser or on another device: the deal is mixed without it, unless that one is still in this lobby when the countdown begins.");
  let toldShareLeftOut = false;
  const drawShareNote = () => { shareNote.hidden = !toldShareLeftOut || !["open", "countdown"].includes(race?.status); };
  const giveUp = element("button", { id: "give-up" }, "Give up");
  const leaveButton = element("button", { id: "leave", type: "button", hidden: true, title: "give your seat up before the race starts" }, "Leave race");
  const joinButton = element("button", { id: "join-race", type: "button", class: "primary", hidden: true }, "Join race");
  // A visitor (nobody signed in on this page) joins under a name: asked for here, beside
  // Join race, with the lobby's rule.
  const joinName = element("input", { id: "join-name", maxlength: String(LIMITS.nameMax), autocomplete: "nickname",
    value: localStorage.getItem(NAME_KEY) ?? "" });
  const joinNameBox = element("span", { id: "join-name-box", hidden: true },
    element("label", { for: "join-name" }, "Name"), joinName, noteFor(joinName, nameProblem));
  readyButton.hidden = true; // until the race says whether this page races in it
  // Ghosts: during your own scored daily attempt, the day's best finished attempts of the
  // deal, replayed by the server at the elapsed times they had (their progress, no cards).
  const ghostsNote = element("span", { id: "ghosts-note", class: "setting" });
  const ghostsToggle = element("button", { id: "ghosts-toggle", type: "button", "aria-pressed": "false", "aria-describedby": "ghosts-note",
    title: "race the day's best three finished attempts of this deal, move for move at their own times" }, "Race ghosts");
  const ghostsBar = element("div", { class: "ghosts-bar", id: "ghosts-bar", hidden: true }, ghostsToggle, ghostsNote);
  let race = null;
  let left = false; // the page was left: a reply that comes later changes nothing (nor where the tab is)
  let leftOut = false; // a rated start unseated this page's player, not ready: nothing more of the race comes
  let seq = 0;
  let offset = 0;
  let sending = Promise.resolve();
  let unacked = null; // "seq move" of the last move sent whose ack never came
  let lost = null; // a move sent on a connection that dropped before its answer (see play)
  let hinting = false; // a hint is shown (until another move is tried): its words in the status line, its outline on the board
  let hintSaid = ""; // the words of the hint shown last
  let rematch = null; // the latest word on a rematch of this race (RematchInfo)
  let rematchClock = null; // the time its offer has left, kept by tick()
  let rematchAsked = false; // this page offered or accepted a rematch not yet entered
  let summary = null; // the results, once the race is over
  let dayPlace = null; // a scored daily attempt's place on the day's board ({ rank, total }), once read
  // A daily attempt: { date, scored, practice } (or { date, watching } for another's),
  // from the start that brought us here or, after a reload, from the day's dailies.
  let daily = arrived?.daily ?? null;
  let learning = false; // asking the day's dailies what this attempt is
  let ghosts = null; // the ghosts raced (as the server listed them), null while off
  let ghostsAsking = false; // a daily_ghosts request under way
  const ghostProgress = new Map(); // a ghost's player id -> its latest ghost event
  // Ghosts switched on survive a reload of this tab (and a reconnect): asked for again,
  // the server sends each ghost's progress up to now at once.
  const GHOSTS_KEY = `solitaire-arena.ghosts.${raceId}`;
  // A key on a card that does nothing says why beside the move box, as a refusal does.
  const board = new Board(boardBox, (move) => play(move), (words) => showError(error, { reason: words }));

  const mine = () => race?.racers.find((r) => r.player_id === arena.player?.player_id);

  // The status line says `text`, read out (it is a live region).
  function say(text) {
    status.removeAttribute("aria-live");
    status.textContent = text;
  }
  // The status line shows `text` without reading it out (until the next say): a hint's
  // words going back to "Go!" as the next move is tried are nothing new.
  function sayQuietly(text) {
    status.setAttribute("aria-live", "off");
    status.textContent = text;
  }
  // Short news read out as it comes, with no room on the screen: what the board's
  // autoplay did after a move, racers joining, leaving or getting ready, a rematch offered
  // and how it ended. Nothing that changes at each move of the others.
  function tell(text) {
    if (text) news.textContent = text;
  }
  // A race of one is a daily attempt: nobody to wait for, no rematch.
  const solo = () => race?.seats === 1;

  function statusNow(info) {
    // Why, when the server said so (a race void after downtime): the race read after the
    // welcome that brought the news keeps it.
    const why = info.status === "cancelled" ? arena.cancelled.get(info.race_id) : undefined;
    if (why) return cancelledText(why);
    if (leftOut && !mine()) return LEFT_OUT;
    if (info.status === "open" && !mine() && info.seats !== 1) { // a visitor: not seated here
      return info.racers.length < info.seats ? `Race ${info.code}: ${info.racers.length} of ${info.seats} seats taken; join to race`
        : `Race ${info.code}: every seat is taken`;
    }
    // A racer done before the others: the race goes on, but not for them.
    const me = mine();
    if (info.status === "running" && me?.finished && info.seats !== 1) {
      return me.won ? "You won! Waiting for the others…" : "You gave up: waiting for the others…";
    }
    if (info.status === "finished" && info.seats !== 1) return raceOverText();
    if (info.seats !== 1 || info.status !== "finished") return statusText(info);
    if (daily?.watching || !mine()) return "This attempt is over";
    return attemptOverText();
  }

  // This racer's line of the results, once they are in (null for a visitor).
  const myStanding = () => summary?.standings.find((s) => s.player_id === arena.playing?.player_id) ?? null;

  // The end of a race, with this racer's place once the results say it: "The race is
  // over: you are 2nd of 2, 14 cards home" ("tied 1st of 2" when the place is shared).
  // "The race is over: time ran out; you are 2nd of 2, ..." when its time limit ended it.
  function raceOverText() {
    const over = raceOverWords(summary);
    const standing = myStanding();
    if (!standing) return over;
    const tied = sharesRank(standing.rank, summary.standings.map((s) => s.rank));
    const place = placeText(standing.rank, summary.standings.length, tied);
    return `${over}${over.includes(":") ? ";" : ":"} you are ${place}, ${standingResult(summary.game, standing)}`;
  }

  // The end of one's own daily attempt, with its result once the results say it, and its
  // place on the day's board once that is read: "Your attempt is over: won in 41.2 s, rank 1 of 3".
  function attemptOverText() {
    const over = daily?.practice ? "Practice over" : "Your attempt is over";
    const standing = myStanding();
    if (!standing) return over;
    const rank = dayPlace ? `, rank ${dayPlace.rank} of ${dayPlace.total}` : "";
    return `${over}: ${standingResult(summary.game, standing)}${rank}`;
  }

  // A scored attempt over: its place on the day's board (the board lists it once it is
  // over), said in the status line.
  async function learnDayPlace() {
    if (dayPlace || !daily?.scored || daily.practice || !daily.date || !myStanding()) return;
    try {
      const board = await arena.request({ type: "get_daily_board", game: race.game, date: daily.date, limit: 1 });
      if (board.me) dayPlace = { rank: board.me.rank, total: board.total };
    } catch {
      return; // said without its place
    }
    if (!left) sayEnd();
  }

  // The status line, once the results are in: how the race ended for this racer.
  function sayEnd() {
    if (race?.status !== "finished") return;
    const said = statusNow(race);
    if (status.textContent !== said) say(said);
  }

  // What this attempt is, when the page was not told: the sender's first attempt of the
  // day's deal (the day's dailies name its race), else a practice; another's, watched.
  async function learnDaily(info) {
    if (daily || learning) return;
    learning = true;
    const date = dayOf(info.starts_at ?? info.server_time);
    try {
      const dailies = await arena.request({ type: "get_dailies", date });
      const attempt = dailies.deals.find((d) => d.game === info.game)?.attempt;
      if (!mine()) daily = { date, watching: true };
      else if (attempt?.race_id === raceId) daily = { date, scored: attempt.scored, practice: false };
      else daily = { date, scored: false, practice: true };
    } catch {
      daily = { date: null };
    }
    if (left) return;
    drawDaily();
    if (race) say(statusNow(race));
    showResults();
    resumeGhosts();
  }

  function drawDaily() {
    dailyKind.hidden = !solo();
    ratedSetting.hidden = solo();
    if (solo()) dailyKind.textContent = dailyKindText(daily);
    drawGhostsBar();
  }
  // This page's player races here, and has not finished (a visitor never plays).
  const playing = () => race?.status === "running" && !!mine() && !mine().finished;

  // A keyboard racer plays at once (at the start, or opening a race under way): the board
  // takes the focus from where the page left it (`focused`: its heading, the body, Ready
  // now gone, the status line that took the focus from Ready at the countdown), never from
  // a field or another control.
  function focusAtStart(focused) {
    if (!playing()) return;
    // A short screen (a phone held sideways) shows the whole board, not the page's top above it.
    boardBox.scrollIntoView({ block: "nearest" });
    if (!focused || [document.body, heading, readyButton, status].includes(focused)) board.focusStop();
  }

  // ----- ghosts: only while one's own scored attempt runs

  const ghostable = () => solo() && !!mine() && playing() && daily?.scored === true && !daily.practice && !daily.watching;

  function drawGhostsBar() {
    const on = ghostable();
    if (!on && (ghosts !== null || sessionStorage.getItem(GHOSTS_KEY))) { // the attempt is over: so are they
      ghosts = null;
      ghostProgress.clear();
      if (race && race.status !== "running") sessionStorage.removeItem(GHOSTS_KEY);
    }
    ghostsBar.hidden = !on;
    ghostsToggle.setAttribute("aria-pressed", String(ghosts !== null));
    markBusy(ghostsToggle, ghostsAsking); // a press meanwhile does nothing (see setGhosts)
    if (ghosts === null) ghostsNote.textContent = "The day's best finished attempts of this deal, at the pace they played.";
    else if (!ghosts.length) ghostsNote.textContent = "No finished attempt of this deal to race yet.";
    else ghostsNote.textContent = `Racing ${ghosts.length === 1 ? "1 ghost" : `${ghosts.length} ghosts`}: the day's best attempts, move for move at their own times.`;
  }

  async function setGhosts(on) {
    if (ghostsAsking) return;
    ghostsAsking = true;
    showError(error, null);
    ghostProgress.clear(); // the server sends (again) each ghost's progress up to now
    drawGhostsBar();
    try {
      const reply = await arena.request({ type: "daily_ghosts", race_id: raceId, on });
      ghosts = on ? reply.ghosts : null;
      if (on) sessionStorage.setItem(GHOSTS_KEY, "1"); else sessionStorage.removeItem(GHOSTS_KEY);
    } catch (failure) {
      showError(error, failure);
    } finally {
      ghostsAsking = false;
      if (ghosts === null) ghostProgress.clear();
      drawGhostsBar();
      drawRacers();
    }
  }

  // After a reload: the ghosts this tab had on, asked for again.
  function resumeGhosts() {
    if (ghosts === null && !ghostsAsking && ghostable() && sessionStorage.getItem(GHOSTS_KEY)) setGhosts(true);
  }

  function takeGhost(event) {
    if (event.race_id !== raceId || (ghosts === null && !ghostsAsking)) return;
    const before = ghostProgress.get(event.player_id);
    if (before && before.elapsed_ms > event.elapsed_ms) return; // a late word from ghosts turned on before
    ghostProgress.set(event.player_id, event);
    drawRacers();
  }

  // A ghost's line among the racers: its name marked "ghost", its place and result on the
  // day's board, its progress at this attempt's elapsed time (and once its replay is over,
  // how it ended: won, given up, or finished when its time ran out).
  function ghostLine(g) {
    const at = ghostProgress.get(g.player_id);
    const left = at?.cards_left ?? dealCardsLeft(race.game); // not moved yet: the deal's
    const score = at?.score ?? 52 - dealCardsLeft(race.game);
    const moves = at?.move_count ?? 0;
    const state = !at?.finished ? `${left} left · ${moves} ${moves === 1 ? "move" : "moves"}`
      : at.won ? `won in ${seconds(at.elapsed_ms)}` : `${g.gave_up ? "gave up" : "finished"} · ${left} left`;
    // Given up is said once the ghost gets there, not from its first second.
    const result = g.won && g.time_ms != null ? `won in ${seconds(g.time_ms)}` : !g.gave_up ? "did not win" : at?.finished ? "gave up" : null;
    return element("div", { class: "racer ghost", "data-ghost": g.player_id },
      element("span", { class: "racer-name" }, element("span", { class: "ghost-tag" }, "ghost"), " ", `${g.name}`,
        element("span", { class: "ghost-info" }, result ? `rank ${g.rank} · ${result}` : `rank ${g.rank}`)),
      element("span", { class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "52", "aria-valuenow": String(score),
        "aria-valuetext": state, "aria-label": `ghost ${g.name}'s progress` }, fill(score)),
      element("span", { class: "ghost-state" }, state));
  }

  function showBoard(view, steps = null) {
    board.show(view, steps);
    controls();
  }

  // Undo, Hint, the move box, Give up and a played board: while this racer plays. Undo
  // is enabled when the view says the server would take it; Hint is there when the race
  // allows hints. Play over (won, given up, the race ended), the focus on any of them (a
  // card redrawn as a picture, a control hidden) goes to the status line, which says how
  // it ended, not to the page's body; focus anywhere else stays where it is.
  function controls() {
    const on = playing();
    const me = mine();
    const focused = document.activeElement;
    const playedHere = !on && board.played && [boardBox, giveUp, moveInput, undoButton, hintButton].some((e) => e.contains(focused));
    racingHere = me && !me.finished && ["countdown", "running"].includes(race.status) ? { code: race.code, daily: solo() } : null;
    board.setPlayable(on); // a racer who finished, or a race over: the board is only shown
    giveUp.hidden = !on;
    moveInput.hidden = !on;
    undoButton.hidden = !on;
    // Marked, not disabled: a disabled button drops its focus to the page's body, as an
    // Undo pressed that takes the last move back would.
    markBusy(undoButton, !(on && board.view?.can_undo === true));
    hintButton.hidden = !(on && race.hints === true);
    drawGhostsBar();
    if (playedHere) status.focus();
  }

  // Sends `move` after those sent before; the promise says whether the server took it. A
  // move whose connection dropped before its answer came is sent again, under the same
  // seq, once the connection is back (`at`: that seq): the server acks it once, whether it
  // had it or not, and the promise says what came of that.
  function play(move, at = null) {
    let again = null; // the resend's outcome, for a move lost with its connection
    sending = sending.then(async () => {
      showError(error, null);
      // Another move tried: the hint goes, its words from the status line and its outline
      // from the board, so a refusal never sits beside a stale "Hint: …".
      if (hinting && race) sayQuietly(statusNow(race));
      if (hinting) board.hint(null);
      hinting = false;
      const next = at ?? seq + 1;
      try {
        const sent = `${next} ${move}`;
        const retried = at !== null || unacked === sent;
        unacked = sent;
        const ack = await arena.request({ type: "move", race_id: raceId, seq: next, move });
        unacked = null;
        if (ack.resent && !retried) { // that seq already held this move, played on another tab or device
          await playedElsewhere();
          board.draw();
          return false;
        }
        const view = wholeView(ack);
        seq = ack.seq;
        if (!view) { // never expected: the board of the seq before was not the one shown
          await resync();
          return true;
        }
        const me = mine();
        if (me) Object.assign(me, { score: view.score, cards_left: 52 - view.score, move_count: view.move_count, finished: ack.finished, won: view.won });
        showBoard(view, ack.result.steps);
        drawRacers();
        hinting = false;
        tell(autoplayWords(ack.result));
        if (ack.finished) say(solo() ? "You won!" : "You won! Waiting for the others…");
        return true;
      } catch (failure) {
        if (!MAYBE_PLAYED.has(failure.code)) unacked = null;
        if (failure.unanswered && !left) {
          const by = arena.player?.player_id;
          again = new Promise((settle) => { lost = { seq: next, move, by, settle }; });
        }
        showError(error, failure);
        error.textContent = cardsInWords(error.textContent);
        if (OUT_OF_STEP.has(failure.code)) await playedElsewhere();
        else if (RESYNC.has(failure.code)) await resync();
        await finishedElsewhere(failure);
        board.draw();
        // The reason beside the move box, in sight (a tall board leaves it low on the page).
        if (!left) error.scrollIntoView({ block: "nearest" });
        return false;
      }
    });
    return sending.then((taken) => again ?? taken);
  }

  // An ack's whole view: the session asked for acks with only the piles their move changed
  // (changed_piles), laid here over the board shown, which is the one of the seq before;
  // null when it is not (the race is read again instead).
  function wholeView(ack) {
    if (!ack.changed_only) return ack.view;
    if (seq !== ack.seq - 1 || !board.view) return null;
    return { ...ack.view, piles: { ...board.view.piles, ...ack.view.piles } };
  }

  // The move lost with a dropped connection (see play), sent again now it is back (by the
  // same player: a login on this page meanwhile is another's).
  function resendLost() {
    const move = lost;
    lost = null;
    if (!move) return;
    move.settle(move.by === arena.player?.player_id ? play(move.move, move.seq) : false);
  }

  // The board as the server has it, after a refusal that says this page's is out of date
  // (moves made on another tab or device of this player's) or that a move may or may not
  // have gone in (unavailable): its seq, board and racers from get_race.
  async function resync() {
    try {
      fetched((await arena.request({ type: "get_race", race_id: raceId })).race);
    } catch { /* the refusal stands; a reconnect's welcome reads the race again */ }
  }

  // A refusal that says this racer has finished (given up or won on another tab or
  // device): the race read again shows them finished, the board only shown; said so.
  async function finishedElsewhere(failure) {
    if (failure.code !== "racer_finished") return;
    await resync();
    sayFinishedElsewhere();
  }

  // A move refused (or acked as resent) because this race was played on elsewhere: the
  // race read again says whether this racer also finished there (gave up or won: the
  // board is only shown now), else the move is to be played again.
  async function playedElsewhere() {
    await resync();
    if (mine()?.finished) sayFinishedElsewhere();
    else error.textContent = PLAYED_ELSEWHERE;
  }

  function sayFinishedElsewhere() {
    if (hinting) board.hint(null);
    hinting = false;
    error.textContent = FINISHED_ELSEWHERE;
  }

  // A hint for the board as it is once the moves sent so far are in: its cards and target
  // outlined, the move in notation in the status line; a refusal shows the server's word.
  // Asked again while one is shown, the hint is said again (the server would refuse a
  // second one so soon).
  async function askHint() {
    await sending;
    showError(error, null);
    if (hinting && hintSaid) { say(hintSaid); return; }
    try {
      const reply = await arena.request({ type: "get_hint", race_id: raceId });
      if (reply.seq > seq) await resync(); // moves made elsewhere: the board as it is, then its hint
      if (reply.seq !== seq) return; // a move went in meanwhile: the hint was for a board gone
      board.hint(reply.move ?? null);
      hintSaid = `Hint: ${reply.move ?? reply.message ?? "no move is left"}`;
      say(hintSaid);
      hinting = true;
    } catch (failure) {
      showError(error, failure);
      await finishedElsewhere(failure);
    }
  }

  // Keys u (undo) and h (hint) while racing, unless a text field has the focus.
  function shortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat || !playing()) return;
    if (event.target instanceof Element && event.target.closest("input, textarea, select, [contenteditable]")) return;
    const key = event.key.toLowerCase();
    // Only while the button would do it: Undo enabled, Hint offered.
    if (key === "u" && !isBusy(undoButton)) { event.preventDefault(); play("undo"); }
    if (key === "h" && race?.hints === true) { event.preventDefault(); askHint(); }
  }

  // A racer's rating: once a rated race is over, the one it left them with (as its results
  // say, whatever later races made of it since); before, as RaceInfo gives it. In a rated
  // race (accounts only) a racer without one yet starts at 1500, provisional.
  function racerRating(r) {
    const standing = summary?.rated ? summary.standings.find((s) => s.player_id === r.player_id) : null;
    if (standing?.rating != null) return ratingText(standing.rating, standing.provisional);
    if (r.rating != null) return ratingText(r.rating, r.provisional);
    return race?.rated ? ratingText(1500, true) : "";
  }

  // Before the start, whether they pressed Ready; then how far they got.
  function racerState(r) {
    if (r.finished) return r.won ? "won" : "gave up";
    if (race.status === "open") return r.away ? "away" : r.ready ? "ready" : "not ready";
    return `${r.cards_left} left`;
  }

  function drawRacers() {
    if (!race) return;
    racers.replaceChildren(...race.racers.map((r) => element("div", { class: "racer", "data-player": r.player_id },
      element("span", { class: "racer-name cut" }, ...cutName(r.name, r.bot),
        r.player_id === arena.player?.player_id ? " (you)" : "",
        racerRating(r) ? element("span", { class: "rating", title: "rating" }, ` ${racerRating(r)}`) : ""),
      element("span", { class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "52", "aria-valuenow": String(r.score),
        "aria-valuetext": `${r.name}: ${cardsScored(race.game, r.score)}, ${racerState(r)}`, "aria-label": `${r.name}'s progress` },
        fill(r.score)),
      element("span", { class: "racer-state" }, racerState(r)))));
    if (ghosts?.length && ghostable()) racers.append(...ghosts.map(ghostLine));
  }

  // A daily run's heading: its game, and when it is another's, whose it is and what it
  // was (their scored attempt, a practice, a guest's unscored attempt).
  function dailyTitle(info) {
    const title = `Daily challenge: ${GAME_TITLES[info.game] ?? info.game}`;
    const racer = info.racers[0];
    return racer && !mine() ? `${title} — ${racer.name}'s ${attemptText(info.attempt) ?? "attempt"}` : title;
  }

  // What changed among the others in an open race, read out: "bob joined", "bob is ready",
  // "bob is away" (no connection: his seat kept for the grace), "bob is back", "cy left"
  // (one's own Ready, and anything once the race is under way, is not news).
  function lobbyNews(before, after) {
    if (!before || before === after || before.status !== "open" || after.status !== "open") return "";
    const me = arena.player?.player_id;
    const then = new Map(before.racers.map((r) => [r.player_id, r]));
    const now = new Set(after.racers.map((r) => r.player_id));
    const news = [];
    for (const r of after.racers) {
      if (r.player_id === me) continue;
      const was = then.get(r.player_id);
      if (!was) news.push(`${r.name} joined`);
      else if (!was.away !== !r.away) news.push(r.away ? `${r.name} is away (their seat is kept for a while)` : `${r.name} is back`);
      else if (was.ready !== r.ready) news.push(`${r.name} is ${r.ready ? "ready" : "not ready"}`);
    }
    for (const r of before.racers) if (r.player_id !== me && !now.has(r.player_id)) news.push(`${r.name} left`);
    return news.join("; ");
  }

  // `fresh`: `info` comes from the server just now (its server_time sets the clock offset).
  function load(info, fresh = true) {
    if (left) return;
    tell(lobbyNews(race, info));
    const focused = document.activeElement; // a control this draw hides gives it to the status line
    race = info;
    heading.textContent = solo() ? dailyTitle(info) : `Race ${info.code}`;
    moveInput.placeholder = MOVE_EXAMPLES[info.game] ?? "t3>f1";
    if (fresh && info.server_time) offset = info.server_time - Date.now();
    // A visitor (not seated here) is offered Join while a seat is free, never a racer's
    // controls; a race under way is theirs to watch.
    if (!mine() && !solo() && arena.player && ["countdown", "running"].includes(info.status)) {
      location.replace(`#/watch/${raceId}`);
      return;
    }
    readyButton.hidden = info.status !== "open" || !mine();
    drawShareNote();
    drawReady();
    leaveButton.hidden = !(info.status === "open" && mine() && !solo());
    joinButton.hidden = leftOut || !(info.status === "open" && !mine() && !solo() && info.racers.length < info.seats);
    joinNameBox.hidden = joinButton.hidden || Boolean(arena.playing);
    if (status.textContent !== statusNow(info)) say(statusNow(info)); // a race read again, unchanged, is not said again
    hinting = false;
    // The game (a daily attempt's heading names it already), and the time limit until the
    // start (then the clock counts it down).
    gameSetting.hidden = solo();
    gameSetting.textContent = [GAME_TITLES[info.game] ?? info.game, ...(info.status === "open" ? [limitText(info.time_limit)] : [])].join(" · ");
    hintsSetting.textContent = `Hints: ${info.hints ? "on" : "off"}`;
    ratedSetting.textContent = info.rated ? "Rated" : "Casual";
    if (info.spectators !== undefined && watchersAtEnd === null) watcherCount = info.spectators;
    drawWatchers();
    drawDaily();
    if (solo()) learnDaily(info);
    if (info.board) {
      seq = info.board.seq;
      board.show(info.board.view);
      delete info.board; // shown: a later redraw of this race must not take it back
    }
    drawRacers();
    controls();
    drawRematch();
    tick();
    resumeGhosts();
    // Ready pressed last (the countdown hides it), Leave or Join gone: the status line says
    // what came of it, and Tab goes on from there, not from the top of the page.
    passFocus(focused, status);
  }

  // How many watch while the race is on; once it is over, how many watched as it ended
  // (frozen: spectators leaving a finished race change nothing); none for one cancelled.
  function drawWatchers() {
    const over = STAGES[race?.status ?? "open"] >= STAGES.finished;
    if (over && watchersAtEnd === null) watchersAtEnd = watcherCount;
    watchers.textContent = race?.status === "cancelled" ? "" : watchersText(over ? watchersAtEnd : watcherCount, over);
  }

  // A get_race reply: events may have moved the race on since the server answered. A
  // finished race's carries its rematch offer, made maybe before this page opened.
  function fetched(info) {
    if (left || (race && STAGES[info.status] < STAGES[race.status])) return false;
    load(info);
    if (info.rematch) takeRematch(info.rematch);
    if (info.rematch) followStartedRematch(info.rematch);
    return true;
  }

  // A rematch this page offered or accepted that started while the connection was down
  // (its rematch_started lost with it): entered as that event would have, share and all.
  async function followStartedRematch(info) {
    if (!rematchAsked || info.status !== "started" || !info.new_race_id) return;
    const mine = info.racers.find((r) => r.player_id === arena.playing?.player_id)?.answer;
    if (mine !== "offered" && mine !== "accepted") return;
    rematchAsked = false;
    try {
      const { race: started } = await arena.request({ type: "get_race", race_id: info.new_race_id });
      if (left) return; // its rematch_started came after all, and took the page there
      revealShare(started, seatPendingShare(`rematch.${raceId}`, started.race_id));
      enterRace(started);
    } catch {
      rematchAsked = true; // looked for again with the next read of the race
    }
  }

  function tick() {
    const now = Date.now() + offset;
    if (rematchClock && rematch) rematchClock.textContent = offerLeft();
    if (!race || !race.ends_at) { clock.textContent = ""; return; }
    const target = race.status === "countdown" ? race.starts_at : race.ends_at;
    // Whole seconds rounded up: 0:01 until the start (or the end), never 0:00 before it.
    const left = Math.max(0, Math.ceil((target - now) / 1000));
    clock.textContent = race.status === "finished" ? "" : `${race.status === "countdown" ? "starts in" : "left"} ${clockText(left)}`;
  }

  // A rated race's standing: the rating the race left the racer with (with its ? while
  // provisional) and the change it made.
  function standingRating(s) {
    if (s.rating_change == null) return "";
    const change = changeText(s.rating_change);
    return s.rating != null ? `${ratingText(s.rating, s.provisional)} (${change})` : change;
  }

  function showResults(shown = summary) {
    summary = shown;
    if (!summary) return;
    drawRacers(); // their ratings: the race's own now
    // A race of one (a daily attempt) has no place to tell: the day's board gives its rank.
    const ranked = !solo();
    const head = standingsHead(summary.rated);
    if (!ranked) head.firstChild.firstChild.remove();
    results.replaceChildren(element("h2", {}, summary.rated ? "Results (rated)" : "Results"),
      element("table", { id: "standings" }, head, element("tbody", {}, ...summary.standings.map((s) => element("tr", { "data-player": s.player_id },
        ...(ranked ? [element("td", {}, `${s.rank}.`)] : []),
        element("td", {}, playerLink(s.player_id, s.name, s.bot), s.player_id === arena.playing?.player_id ? " (you)" : ""),
        element("td", {}, standingResult(summary.game, s)),
        ...ratingCell(summary.rated, standingRating(s)))))),
      element("p", { id: "seed-line" }, summary.seed != null
        ? `Deal seed ${summary.seed} revealed; the commitment ${summary.commitment.slice(0, 12)}… is of the server's own seed, before any share was mixed in.`
        : `Commitment ${summary.commitment.slice(0, 12)}…; the seed is revealed ${revealWords(summary.reveals_at)}.`),
      element("p", { class: "row" }, element("a", { href: `#/replay/${raceId}`, id: "replay-link" }, solo() ? "Replay this attempt" : "Replay this race"),
        summary.seed != null // a daily attempt's seed is out once its day is closed
          ? element("a", { href: `#/verify/${raceId}`, id: "verify-link", title: "re-deal from the revealed seed and check the commitment, in this browser" }, "Verify this race")
          : element("span", { id: "verify-later", class: "setting" }, `Verify it ${revealWords(summary.reveals_at)}.`)));
    if (solo()) results.append(dailyLinks());
    sayEnd();
    learnDayPlace();
  }

  // After a daily attempt: back to its day's challenges, and (the deal being today's)
  // practise it.
  function dailyLinks() {
    const links = element("p", { class: "row", id: "daily-links" });
    const today = dayOf(Date.now() + offset);
    if (!daily?.date) {
      links.append(element("a", { href: dailyHref(), id: "daily-back" }, "Daily challenges"));
      return links;
    }
    links.append(element("a", { href: dailyHref(daily.date === today ? null : daily.date), id: "daily-back" }, `Daily challenges of ${daily.date}`));
    if (mine() && daily.date === today) {
      links.append(element("button", { type: "button", id: "practice-again", onclick: async () => {
        showError(error, null);
        try {
          const reply = await arena.request({ type: "start_daily", game: race.game, practice: true });
          enterRace({ ...reply.race, daily: { date: reply.date, scored: reply.scored, practice: true } });
        } catch (failure) {
          showError(error, failure);
        }
      } }, daily.practice ? "Practice again" : "Practice this deal"));
    }
    return links;
  }

  // ----- rematch: offered here once the race is over; rematch_started (app-wide) goes on

  // How far an offer has got: a word that arrives late (a reply and an event cross) never
  // replaces a newer one. A new offer follows only a decided one, so a different offer
  // replaces a decided one, or an open one that it outlasts.
  const decided = (info) => (info.status === "open" ? 0 : 1000) + info.racers.filter((r) => r.answer !== "pending").length;
  function takeRematch(info) {
    if (info.race_id !== raceId) return;
    if (rematch) {
      const same = info.offered_by === rematch.offered_by && info.expires_at === rematch.expires_at;
      if (same && decided(info) < decided(rematch)) return;
      if (!same && rematch.status === "open" && info.expires_at < rematch.expires_at) return;
    }
    rematch = info;
    drawRematch();
  }

  // An offer or an acceptance commits to a seed share for the rematch's deal (kept before
  // asking: the rematch_started an answer causes may overtake its reply).
  async function askRematch(message) {
    showError(error, null);
    const joins = message.type === "offer_rematch" || message.accept;
    const share = joins ? pendingShare(`rematch.${raceId}`) : null;
    rematchAsked = joins;
    try {
      takeRematch((await arena.request({ ...message, race_id: raceId, share_commitment: share?.commitment })).rematch);
    } catch (failure) {
      showError(error, failure);
    }
  }

  // The time an open offer has left, as its clock shows it.
  function offerLeft() {
    return clockText(Math.max(0, Math.ceil((rematch.expires_at - (Date.now() + offset)) / 1000)));
  }

  // Drawn again at each word on the offer (and each redraw of the race): a control pressed
  // here keeps the focus in the section, on the same control drawn again, else (Offer or an
  // answer gone with its press) on the line saying where the offer stands.
  function drawRematch() {
    if (race?.status !== "finished" || !mine() || solo()) { rematchClock = null; rematchBox.replaceChildren(); return; } // racers only, of a real race
    const heading = element("h2", {}, "Rematch");
    const offer = element("button", { id: "offer-rematch", type: "button", onclick: () => askRematch({ type: "offer_rematch" }) }, "Offer rematch");
    if (!rematch) {
      delete rematchBox.dataset.status;
      const how = race.rated ? "The same racers on a new deal, rated as this race was" : "The same racers on a new deal";
      redraw(rematchBox, [heading, element("p", {}, `${how}: everyone asked has 30 seconds to accept.`), offer]);
      rematchClock = null;
      return;
    }
    const me = arena.player?.player_id;
    const myAnswer = rematch.racers.find((r) => r.player_id === me)?.answer;
    const by = rematch.offered_by === me ? "You" : rematch.racers.find((r) => r.player_id === rematch.offered_by)?.name ?? "Someone";
    const kind = race.rated ? "a rated rematch" : "a rematch";
    const line = element("p", { id: "rematch-status", tabindex: "-1" });
    if (rematch.status === "open") {
      line.append(`${by} offered ${kind}: waiting for answers, `, element("span", { id: "rematch-clock", "aria-live": "off" }, offerLeft()), " left.");
    } else {
      line.textContent = `${by} offered ${kind}: ` + ({
        started: myAnswer === "declined" ? "it started without you." : "it is starting…",
        declined: "declined, nobody accepted.",
        expired: "expired, nobody answered in time.",
        failed: `it could not start: ${rematch.reason ?? "no reason given"}.`,
      }[rematch.status] ?? rematch.status);
    }
    tellRematch(by, myAnswer, line.textContent);
    const answers = element("ul", { id: "rematch-racers" }, ...rematch.racers.map((r) =>
      element("li", { "data-player": r.player_id, class: `answer-${r.answer}` },
        `${r.name}${r.player_id === me ? " (you)" : ""}: ${ANSWERS[r.answer] ?? r.answer}`)));
    const buttons = element("div", { class: "row" });
    if (rematch.status === "open" && myAnswer === "pending") {
      buttons.append(
        element("button", { id: "accept-rematch", type: "button", class: "primary", onclick: () => askRematch({ type: "answer_rematch", accept: true }) }, "Accept"),
        element("button", { id: "decline-rematch", type: "button", onclick: () => askRematch({ type: "answer_rematch", accept: false }) }, "Decline"));
    }
    if (rematch.status === "started" && rematch.new_race_id && myAnswer !== "declined") {
      buttons.append(element("a", { href: `#/race/${rematch.new_race_id}`, id: "rematch-link" }, "Go to the rematch"));
    }
    if (["declined", "expired", "failed"].includes(rematch.status)) buttons.append(offer);
    rematchBox.dataset.status = rematch.status;
    redraw(rematchBox, [heading, line, answers, buttons], line);
    rematchClock = rematchBox.querySelector("#rematch-clock"); // the one shown (the same as before when nothing changed)
    tick();
  }

  // An offer read out once as it comes (who offered, that you may accept or decline, the
  // time to answer; not each second of its clock), and once how it ended.
  let rematchTold = null; // the offer and state read out last
  function tellRematch(by, myAnswer, ended) {
    const told = `${rematch.offered_by} ${rematch.expires_at} ${rematch.status}`;
    if (told === rematchTold) return;
    rematchTold = told;
    if (rematch.status !== "open") { tell(ended); return; }
    // Rounded down: the clock's offset, read with a reply's delay, errs on the long side.
    const left = clockText(Math.max(0, Math.floor((rematch.expires_at - Date.now() - offset) / 1000)));
    const kind = race.rated ? "a rated rematch" : "a rematch";
    tell(myAnswer === "pending" ? `${by} offered ${kind}: accept or decline, ${left} left`
      : `${by} offered ${kind}: waiting for answers, ${left} left`);
  }

  const stops = [
    arena.on("race_update", (e) => {
      if (e.race.race_id !== raceId) return;
      if (e.left_out?.includes(arena.player?.player_id)) leftOut = true;
      load(e.race);
    }),
    arena.on("race_countdown", (e) => {
      if (e.race_id !== raceId || !race) return;
      Object.assign(race, { status: "countdown", starts_at: e.starts_at, ends_at: e.ends_at });
      offset = e.server_time - Date.now();
      revealKeptShare();
      load(race, false);
    }),
    arena.on("race_started", (e) => {
      if (e.race_id !== raceId || !race) return;
      const focused = document.activeElement; // before Ready goes
      news.textContent = ""; // the lobby's news ("bob is ready") are over: none is left to be read later
      Object.assign(race, { status: "running", starts_at: e.starts_at, ends_at: e.ends_at });
      // Every racer starts from the same deal: Eagle Wing's has a card home already.
      for (const r of race.racers) {
        if (!r.move_count) Object.assign(r, { score: e.view.score, cards_left: 52 - e.view.score });
      }
      load(race, false);
      if (!seq) showBoard(e.view);
      focusAtStart(focused);
    }),
    arena.on("progress", (e) => {
      if (e.race_id !== raceId || !race) return;
      const r = race.racers.find((x) => x.player_id === e.player_id);
      if (r) Object.assign(r, { score: e.score, cards_left: e.cards_left, move_count: e.move_count, finished: e.finished, won: e.won });
      drawRacers();
    }),
    arena.on("race_ended", async (e) => {
      if (e.race_id !== raceId || !race) return;
      race.status = "finished";
      showError(error, null); // a refused move's reason is for a board no longer played
      load(race, false);
      showResults(e.summary);
      try { // the race as the end left it
        fetched((await arena.request({ type: "get_race", race_id: raceId })).race);
      } catch { /* the results stand without it */ }
    }),
    arena.on("ghost", takeGhost),
    arena.on("spectators", (e) => {
      if (e.race_id !== raceId) return;
      watcherCount = e.count;
      if (race) race.spectators = e.count;
      drawWatchers();
    }),
    arena.on("race_cancelled", (e) => { if (e.race_id === raceId) say(cancelledText(e.message)); }),
    arena.on("rematch_update", (e) => takeRematch(e.rematch)),
    arena.on("welcome", async () => {
      if (error.dataset.code === "connection_lost") showError(error, null); // the connection is back
      resendLost();
      try { fetched((await arena.request({ type: "get_race", race_id: raceId })).race); } catch (failure) { unread(failure); }
      if (ghosts !== null && ghostable()) setGhosts(true); // the server's ghosts may have gone with its node
    }),
  ];
  // The race could not be read (as the page opens, or again on a connection's welcome). A
  // race nobody has: said once, in the status line (not the server's words below too).
  function unread(failure) {
    if (failure.code === "race_not_found") say(NO_SUCH_RACE);
    else showError(error, failure);
  }
  // Ready, then Not ready while the race waits for the others (a racer may change their mind).
  function drawReady() {
    const ready = mine()?.ready === true;
    readyButton.textContent = ready ? "Not ready" : "Ready";
    readyButton.classList.toggle("primary", !ready);
    readyButton.title = ready ? "wait: the race does not start until you are ready again" : "";
  }
  // The share this page keeps, when the racer got ready elsewhere (a terminal, another
  // browser) without it: revealed as the countdown begins, so that the deal has it.
  let revealedHere = false;
  function revealKeptShare() {
    const share = shareOf(raceId);
    const me = mine();
    if (revealedHere || !share || !me?.share_committed || me.share_revealed) return;
    revealedHere = true;
    arena.request({ type: "reveal_share", race_id: raceId, share }).catch(() => {}); // too late: left out
  }
  readyButton.addEventListener("click", async () => {
    const me = mine();
    const ready = !(me?.ready === true);
    try {
      const share = shareOf(raceId);
      await arena.request(ready ? { type: "ready", race_id: raceId, ready, share } : { type: "ready", race_id: raceId, ready });
      if (ready && share) revealedHere = true;
      if (me) { me.ready = ready; drawRacers(); drawReady(); }
      // Ready without the share this seat committed to: the deal leaves it out (unless the
      // browser that keeps it reveals it before the start). Said once.
      if (ready && !share && me?.share_committed && !me.share_revealed && !toldShareLeftOut) {
        toldShareLeftOut = true;
        drawShareNote();
      }
    } catch (failure) { showError(error, failure); }
  });
  joinButton.addEventListener("click", async () => {
    showError(error, null);
    if (isBusy(joinButton) || (!arena.playing && !checkFields([joinName]))) return; // a visitor: its note says why
    markBusy(joinButton, true); // a second press would only be refused
    try {
      if (!arena.playing) { // a visitor who only read: a guest under the name first
        const name = joinName.value.trim();
        await arena.start(name);
        localStorage.setItem(NAME_KEY, name); // only a name the server took
      }
      const share = newShare();
      const reply = await arena.request({ type: "join_race", code: race.code, share_commitment: share?.commitment });
      keepShare(raceId, share?.share);
      myRaces.add(raceId);
      load(reply.race);
    } catch (failure) { showError(error, failure); } finally { markBusy(joinButton, false); }
  });
  joinName.addEventListener("keydown", (event) => { // Enter joins, as the button does
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    joinButton.click();
  });
  leaveButton.addEventListener("click", async () => {
    showError(error, null);
    try {
      await arena.request({ type: "leave_race", race_id: raceId });
      myRaces.delete(raceId);
      location.hash = "#/";
    } catch (failure) { showError(error, failure); }
  });
  // Giving up ends the race for good: the first press asks (for a few seconds), the
  // second gives up. A stray tap on a phone costs nothing.
  let giveUpAsked = null;
  function disarmGiveUp() {
    clearTimeout(giveUpAsked);
    giveUpAsked = null;
    giveUp.textContent = "Give up";
    giveUp.classList.remove("danger");
  }
  giveUp.addEventListener("click", async () => {
    if (giveUpAsked === null) {
      giveUp.textContent = "Give up? Press again";
      giveUp.classList.add("danger");
      giveUpAsked = setTimeout(disarmGiveUp, 4000);
      return;
    }
    disarmGiveUp();
    showError(error, null); // a refused move's reason is for a board left
    try {
      await arena.request({ type: "finish", race_id: raceId });
      const me = mine();
      if (me) { me.finished = true; drawRacers(); }
      if (hinting) board.hint(null); // the hint is for a board left
      hinting = false;
      if (race) say(statusNow(race)); // gave up: waiting for the others
      controls();
    } catch (failure) {
      showError(error, failure);
      await finishedElsewhere(failure);
    }
  });
  undoButton.addEventListener("click", () => { if (!isBusy(undoButton)) play("undo"); });
  hintButton.addEventListener("click", () => askHint());
  ghostsToggle.addEventListener("click", () => setGhosts(ghosts === null));
  // The move box takes a move in notation, `undo` (a move too) or `hint` (as the key h;
  // in a race without hints the server says why not).
  // A move typed stays there while it is sent, and after a refusal (to be put right): the
  // box is emptied once the server took it (unless something else was typed meanwhile).
  // Counted so that a move's late ack never empties the box of a move typed since, even
  // the same text again (a later t1>t7 while the first one's ack is on its way).
  let edits = 0;
  moveInput.addEventListener("input", () => { edits += 1; });
  moveInput.addEventListener("keydown", (event) => {
    const typed = moveInput.value.normalize("NFKC").trim(); // full width (an input method's) as plain
    if (event.key !== "Enter" || !typed) return;
    if (typed.toLowerCase() === "hint") {
      moveInput.value = "";
      askHint();
      return;
    }
    const sentAt = edits;
    play(typed).then((taken) => { if (taken && edits === sentAt) moveInput.value = ""; });
  });
  document.addEventListener("keydown", shortcut);
  app.replaceChildren(heading,
    element("section", {}, element("div", { class: "row" }, status, clock, gameSetting, dailyKind, ratedSetting, hintsSetting, watchers, readyButton, joinNameBox, joinButton, leaveButton, giveUp), shareNote),
    ghostsBar, racers, boardBox, element("div", { class: "row", id: "move-row" }, moveInput, undoButton, hintButton, error), results, rematchBox, news);
  controls(); // none until the race says this page's player races in it
  if (arrived) load(arrived);
  // A daily attempt arrives running (its start is start_daily's reply, no race_started):
  // once the navigation has put the focus on the heading, the board takes it from there.
  if (arrived && playing()) queueMicrotask(() => { if (!left) focusAtStart(document.activeElement); });
  const timer = setInterval(tick, 250);
  // Only a race's racers get its race_update: a visitor's page of an open race asks again
  // every few seconds (seats taken, the start: then it goes to watch).
  const visitorTimer = setInterval(async () => {
    if (race?.status !== "open" || mine() || leftOut) return; // left out: the note stays
    try { fetched((await arena.request({ type: "get_race", race_id: raceId })).race); } catch { /* asked again next time */ }
  }, VISITOR_REFRESH_MS);
  readingSession() // a finished race's results are for anyone with the link
    .then(() => arena.request({ type: "get_race", race_id: raceId }))
    .then(async (reply) => {
      const read = fetched(reply.race);
      // A race opened while it runs (reloaded, or followed from a link or "Your races"):
      // its racer plays with the keys at once, as at its start.
      if (read && playing()) focusAtStart(document.activeElement);
      if (read && reply.race.status === "finished") {
        showResults((await arena.request({ type: "get_results", race_id: raceId })).summary);
      }
    })
    .catch(async (failure) => {
      // A race the server no longer keeps may still have its results (and replay) in the
      // server's archive, as a profile's links expect.
      if (failure.code === "race_not_found") {
        try {
          const { summary: kept } = await arena.request({ type: "get_results", race_id: raceId });
          if (left) return;
          heading.textContent = `${GAME_TITLES[kept.game] ?? kept.game} race of ${new Date(kept.started_at).toISOString().slice(0, 10)}`;
          say(ARCHIVED_RACE);
          showResults(kept);
          return;
        } catch { /* nothing kept: said as a race nobody has */ }
      }
      unread(failure);
    });
  return () => { left = true; racingHere = null; clearInterval(timer); clearInterval(visitorTimer); document.removeEventListener("keydown", shortcut); stops.forEach((stop) => stop()); };
}

// What a race's page says of a race whose board the server no longer keeps (SA_RACE_TTL)
// but whose results and moves its archive does.
const ARCHIVED_RACE = "This race is over and its board is no longer kept; its results and replay are.";

// ----- replay --------------------------------------------------------------------------

// A time since the race's start, as m:ss.t.
function clockTime(ms) {
  const tenths = Math.floor(ms / 100);
  const seconds = Math.floor(tenths / 10);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}.${tenths % 10}`;
}

function replayPage(raceId) {
  const error = element("p", { class: "error", role: "alert" });
  const racerButtons = element("div", { class: "row", id: "racer-buttons" });
  const slider = element("input", { id: "step", type: "range", min: "0", max: "0", value: "0", "aria-label": "move" });
  const label = element("span", { id: "step-label", "aria-live": "polite" });
  const boardBox = element("div", { class: "board", id: "board" });
  const board = new Board(boardBox); // shown, not played
  let views = [];
  let moves = [];
  let times = [];

  function showStep() {
    const step = Number(slider.value);
    if (!views[step]) return;
    board.show({ ...views[step], legal_moves: [] });
    const at = times[step] === undefined ? "" : ` at ${clockTime(times[step])}`;
    label.textContent = step === 0 ? `the deal (of ${movesText(views.length - 1)})` : `move ${step}/${views.length - 1}: ${moves[step]}${at}`;
  }

  // The racer chosen last wins: a racer's pages still arriving after another was chosen
  // (a long replay comes 200 moves a page) are dropped, never mixed into the other's.
  // Pressing the racer already chosen again keeps the step shown (it reloads nothing).
  let loading = 0;
  let chosen = null;
  async function load(playerId) {
    if (playerId === chosen) return;
    chosen = playerId;
    const mine = ++loading;
    const got = { views: [], moves: [], times: [] };
    let total = 1;
    while (got.views.length < total) {
      const page = await arena.request({ type: "get_replay", race_id: raceId, player_id: playerId, offset: got.views.length, limit: 200 });
      if (mine !== loading) return;
      total = page.total;
      got.views.push(...page.views);
      got.moves.push(...page.moves);
      got.times.push(...(page.times ?? []));
    }
    ({ views, moves, times } = got);
    slider.max = String(views.length - 1);
    slider.value = "0";
    for (const button of racerButtons.children) button.setAttribute("aria-pressed", String(button.dataset.player === playerId));
    showStep();
  }

  slider.addEventListener("input", showStep);
  const verifyLine = element("p", {}); // once the results say whether the seed is out
  const stepLine = element("div", { class: "row" }, slider, label);
  // The heading (so the tab's title) names the race once its results say who raced what.
  const heading = element("h1", { id: "replay-title" }, "Replay");
  app.replaceChildren(heading, racerButtons, verifyLine, stepLine, boardBox, error);
  readingSession() // a replay is for anyone with the link
    .then(() => arena.request({ type: "get_results", race_id: raceId }))
    .then(async ({ summary }) => {
      // A daily run says what it was: "Replay: ada's practice (unscored) — Eight Off daily of 2027-03-14".
      const game = GAME_TITLES[summary.game] ?? summary.game;
      const kind = attemptText(summary.attempt);
      heading.textContent = kind && summary.standings.length === 1
        ? `Replay: ${summary.standings[0].name}'s ${kind} — ${game} daily of ${summary.daily}`
        : `Replay: ${racersText(summary.standings.map((s) => s.name))} (${game})`;
      // A daily attempt's seed is out once its day is closed: till then there is nothing to verify.
      verifyLine.replaceChildren(summary.seed != null
        ? element("a", { href: `#/verify/${raceId}`, id: "verify-link" }, "Verify this race")
        : element("span", { id: "verify-later", class: "setting" }, `Verify it ${revealWords(summary.reveals_at)}.`));
      racerButtons.replaceChildren(...summary.standings.map((s) =>
        element("button", { type: "button", onclick: () => load(s.player_id).catch((f) => { chosen = null; showError(error, f); }), "data-player": s.player_id,
          "aria-pressed": "false", title: `show ${s.name}'s moves` }, `${s.rank}. ${s.name}${s.gave_up ? " (gave up)" : ""}`)));
      await load(summary.standings[0].player_id);
    })
    .catch((failure) => {
      // No replay to show: no slider, no board, no Verify link; what there is instead.
      verifyLine.remove();
      stepLine.remove();
      boardBox.remove();
      showRaceError(error, failure);
      if (failure.code === "race_not_over") error.append(": ", element("a", { href: `#/race/${raceId}`, id: "not-over-link" }, "see the race"));
    });
  return () => {};
}

// ----- routing -------------------------------------------------------------------------

// A page of a module loaded when first shown: `start(module)` draws it (unless the page
// was left meanwhile) and gives its leave function.
function lazyPage(load, start) {
  let left = false;
  let leave = () => {};
  load().then((module) => { if (!left) leave = start(module); })
    .catch((failure) => app.replaceChildren(element("p", { class: "error", role: "alert" }, `cannot load the page: ${failure.message}`)));
  return () => { left = true; leave(); };
}

// ----- focus and title: a new page is said, and keyboard users start at its heading

// The tab's title names the page on screen, from its heading (<h1>; its data-title if
// the heading alone would not say it), kept up as pages draw and redraw it.
const SITE = "Solitaire Arena";
function nameTheTab() {
  const heading = app.querySelector("h1");
  const name = (heading?.dataset.title ?? heading?.textContent ?? "").replace(/\s+/g, " ").trim();
  const title = name ? `${name} — ${SITE}` : SITE;
  if (document.title !== title) document.title = title;
}

// After a navigation (not the first load) the focus goes to the new page's heading
// (tabindex -1), so a screen reader says where it is and Tab starts at the top. A heading
// drawn later (a module loaded, data read) gets it when it comes, while the focus is still
// where the navigation left it: the first key or click, or focus elsewhere, ends that.
let headingFocus = null; // { from: the element focused when the page changed }
function focusHeading() {
  if (!headingFocus) return;
  const now = document.activeElement;
  if (now && now !== document.body && now !== headingFocus.from && now.isConnected) return;
  const heading = app.querySelector("h1");
  if (!heading || now === heading) return;
  heading.setAttribute("tabindex", "-1");
  headingFocus.from = heading; // (before its focusin) a redraw that replaces it passes the focus on
  heading.focus();
}
function navigated() {
  headingFocus = { from: document.activeElement };
  focusHeading();
}
const settled = () => { headingFocus = null; };
window.addEventListener("keydown", settled, true);
window.addEventListener("pointerdown", settled, true);
document.addEventListener("focusin", (event) => { if (headingFocus && event.target !== headingFocus.from) settled(); });
new MutationObserver(() => { nameTheTab(); focusHeading(); })
  .observe(app, { childList: true, subtree: true, characterData: true });

let firstRoute = true;
function route() {
  if (location.hash === routed) return; // enterRace() routed already
  routed = location.hash;
  headingFocus = null;
  leavePage();
  const race = location.hash.match(/^#\/race\/([0-9a-f]+)$/);
  const replay = location.hash.match(/^#\/replay\/([0-9a-f]+)$/);
  const leaderboard = location.hash.match(/^#\/leaderboard(?:\/([a-z-]+))?$/);
  const daily = location.hash.match(/^#\/daily(?:\/(standings))?(?:\/(\d{4}-\d{2}-\d{2}))?$/);
  const profile = location.hash.match(/^#\/profile(?:\/([^/]+))?$/);
  const watch = location.hash.match(/^#\/watch(?:\/([0-9a-f]+))?$/);
  const verify = location.hash.match(/^#\/verify(?:\/([0-9a-f]+))?$/);
  const arrived = race && arriving?.race_id === race[1] ? arriving : null;
  arriving = null;
  const pages = { app, arena, signIn, readingSession, enterRace };
  for (const link of document.querySelectorAll("header nav a")) {
    const here = location.hash === link.getAttribute("href") || (leaderboard && link.id === "nav-leaderboard")
      || (daily && link.id === "nav-daily") || (watch && link.id === "nav-live");
    if (here) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  if (race) leavePage = racePage(race[1], arrived);
  else if (replay) leavePage = replayPage(replay[1]);
  else if (location.hash === "#/live") leavePage = lazyPage(() => import("./live.js"), (m) => m.livePage(pages));
  else if (watch) leavePage = lazyPage(() => import("./live.js"), (m) => m.watchPage(pages, watch[1] ?? null));
  else if (verify) leavePage = lazyPage(() => import("./verify.js"), (m) => m.verifyPage(pages, verify[1] ?? null));
  else if (leaderboard) leavePage = leaderboardPage(pages, leaderboard[1]);
  else if (daily) leavePage = dailyPage(pages, daily[2] ?? null, daily[1] ? "standings" : "deals");
  else if (profile) leavePage = profilePage(pages, profile[1] ? decodeURIComponent(profile[1]) : null);
  else if (location.hash === "#/account") leavePage = accountPage(pages);
  else leavePage = lobbyPage();
  nameTheTab();
  if (!firstRoute) navigated();
  firstRoute = false;
}

// A quick match found or a rematch started seated us in a new race: whatever page is on
// screen, to its countdown.
arena.on("match_found", (event) => {
  queuedFor = queueTicket = null;
  matchesFound += 1;
  revealShare(event.race, seatPendingShare(`queue.${event.race.game}`, event.race.race_id));
  enterRace(event.race);
});

// The stay a `queued` reply (for `game`, an account's `casual` one or not) names.
function waitIn(game, queued, casual) {
  queuedFor = game;
  queuedRated = queued.rated === true;
  queuedCasual = casual;
  queueTicket = queued.ticket ?? null;
}

// Back in the queue a dropped connection left (the same game, queue and seed share), unless
// a pairing made meanwhile seated the player: then its race, among the welcome's.
async function queueAgain({ game, casual }, races) {
  const before = matchesFound;
  try {
    const share = pendingShare(`queue.${game}`, true);
    const queued = await arena.request({ type: "quick_match", game, share_commitment: share?.commitment, casual });
    if (matchesFound !== before || queuedFor) return; // matched, or queued by another tab, meanwhile
    waitIn(game, queued, casual);
  } catch (failure) {
    if (failure.code !== "already_racing") {
      queueLeftBecause = failure.message ?? "the quick match could not be asked for again";
    } else {
      for (const id of races) {
        const { race } = await arena.request({ type: "get_race", race_id: id }).catch(() => ({}));
        if (race?.game === game && ["countdown", "running"].includes(race.status)) {
          enterRace(race);
          return;
        }
      }
    }
  }
  arena.emit("queue", {});
}

// Our stay in a queue (its ticket) ended unpaired: no longer queued, and why.
function leftQueue(event) {
  if (!queueTicket || event.ticket !== queueTicket) return;
  queuedFor = queueTicket = null;
  queueLeftBecause = event.message;
  forgetPendingShares("queue.");
}
arena.on("quick_match_left", leftQueue);

// Seated in a counting-down race with a committed share: reveal it before the start. One
// refused (too late) leaves it out of the deal; the race goes on, and its record says so.
function revealShare(race, share) {
  const me = race.racers.find((r) => r.player_id === arena.playing?.player_id);
  if (!share || !me?.share_committed || me.share_revealed) return;
  arena.request({ type: "reveal_share", race_id: race.race_id, share }).catch(() => {});
}
arena.on("rematch_started", (event) => {
  revealShare(event.race, seatPendingShare(`rematch.${event.race_id}`, event.race.race_id));
  enterRace(event.race);
});
// Who is signed in, in the header: an account's username, or a guest's name.
function drawWho() {
  const player = arena.playing;
  document.getElementById("who").textContent = !player ? "" : player.username ? player.username : `${player.name} (guest)`;
  document.getElementById("nav-account").textContent = player?.username ? "Account" : "Sign in";
}
arena.on("welcome", (welcome) => {
  drawWho();
  const same = welcome.resumed && welcome.player_id === myRacesOf; // this page's player, back
  const waited = queuedFor && same ? { game: queuedFor, casual: queuedCasual } : null;
  // A new connection waits in no queue of its own, but another tab's may hold one.
  queuedFor = welcome.queued?.game ?? null;
  queuedRated = welcome.queued?.rated === true;
  queuedCasual = !!welcome.queued && !queuedRated && !!welcome.username;
  queueTicket = welcome.queued?.ticket ?? null;
  // This page waited for a quick match, and the connection that dropped took it out of
  // the queue: back in it, as it was; a match made meanwhile is entered.
  if (waited && !queuedFor && !arena.watchOnly) queueAgain(waited, welcome.races ?? []);
  // A viewer's session, for a visitor's reading, leaves the header's word alone: it may be
  // telling them they were signed out.
  if (arena.watchOnly) return;
  document.getElementById("link").textContent = "";
  if (welcome.player_id !== myRacesOf) { myRaces.clear(); myRacesOf = welcome.player_id; }
  for (const id of welcome.races ?? []) myRaces.add(id);
});
arena.on("account", drawWho);
// What a page signed out elsewhere says: why (the server's words, "signed out: the
// account's password was changed"), and how to come back; and when it showed its player
// racing, that the race goes on without them ("Your races" lists it once signed in).
function signedOutNote(reason, racing) {
  const why = reason.startsWith("signed out") ? reason : `signed out: ${reason}`;
  const said = `${why[0].toUpperCase()}${why.slice(1)}.`;
  const signInLink = (text) => element("a", { href: "#/account", id: "sign-in-again" }, text);
  if (!racing) return [`${said} `, signInLink("Sign in again"), "."];
  const what = racing.daily ? "Your daily attempt" : `Race ${racing.code}`;
  return [`${said} ${what} goes on: `, signInLink("sign in again"), `, then go back to it from "Your races" in the lobby.`];
}
arena.on("signed_out", (event) => {
  const racing = racingHere; // before the lobby replaces the race's page
  drawWho();
  queuedFor = queueTicket = null;
  myRaces.clear();
  // A token the server no longer knows (logged out or a new password elsewhere): say so,
  // back at the lobby's guest screen.
  if (event.reason) {
    routed = null;
    location.hash = "#/";
    route();
    document.getElementById("link").replaceChildren(...signedOutNote(event.reason, racing));
  }
});
// The header's line (a live region) says the connection is lost, then that it is back
// (for a few seconds: the welcome has cleared what it said while it was lost).
const CONNECTED_AGAIN = "connected again";
const CONNECTED_AGAIN_MS = 4000;
arena.on("connection", (event) => {
  const link = document.getElementById("link");
  link.textContent = event.state === "lost" ? "reconnecting…" : CONNECTED_AGAIN;
  if (event.state === "back") setTimeout(() => { if (link.textContent === CONNECTED_AGAIN) link.textContent = ""; }, CONNECTED_AGAIN_MS);
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
// A touch screen's user sees no focus ring on the board the page focuses for the keyboard
// (style.css) until a key is pressed: from then on, the page is used with keys.
document.addEventListener("keydown", () => document.body.classList.add("keys-used"), { once: true, capture: true });
window.addEventListener("hashchange", route);
route();
