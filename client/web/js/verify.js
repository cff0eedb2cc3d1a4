// The verify page: #/verify/<race id> checks a finished race of this server, #/verify a
// record pasted or opened from a file. In the browser: the record read (docs/record.md),
// the commitment, each seed share and the mix checked, the deal re-dealt from the seed and
// drawn, and (for a race this server knows) each racer's moves stepped through with the
// server's views, whose first must be this page's own deal. The legality of every move is
// the Python engine's to check (solitaire-arena verify FILE): no game rules run here.

import { Board, cardsInWords } from "./board.js";
import { commitmentOf, dealLayout, mixedSeed, sha256 } from "./fairness.js";
import { GAME_TITLES, attemptText, element, movesText, racersText, showError, showRaceError } from "./dom.js";
import { checkFields, clearFields, noteFor } from "./forms.js";

// A record's text as headers ([name, value, line number], in order) and move sections
// (player id -> [{ seq, move, at }]); a line that is neither throws an Error naming it.
export function readRecord(text) {
  const headers = [];
  const sections = new Map();
  let moves = null;
  text.replace(/^\uFEFF/, "").split("\n").forEach((raw, index) => {
    const line = raw.replace(/\r$/, "").trim();
    if (!line || line.startsWith("#")) return;
    const header = !moves && line.match(/^\[([A-Za-z]+) "((?:[^"\\]|\\["\\])*)"\]$/);
    const section = line.match(/^==\s+(\S+)$/);
    if (header) headers.push([header[1], header[2].replace(/\\(["\\])/g, "$1"), index + 1]);
    else if (section) sections.set(section[1], (moves = []));
    else if (moves && /^(\d+\.\s+\S+\s+\{\d+\}\s*)+$/.test(line)) {
      for (const [, seq, move, at] of line.matchAll(/(\d+)\.\s+(\S+)\s+\{(\d+)\}/g)) moves.push({ seq: Number(seq), move, at: Number(at) });
    } else throw new Error(`line ${index + 1} is neither a header nor moves: ${line.slice(0, 60)}`);
  });
  const one = (name) => headers.find(([n]) => n === name)?.[1] ?? null;
  const all = (name) => headers.filter(([n]) => n === name).map(([, v]) => v);
  const racers = all("Racer").map((value) => {
    const words = value.split(" ");
    return { player_id: words[0], name: words.slice(1, -2).join(" "), kind: words.at(-2), rating: words.at(-1) };
  });
  return { headers, sections, one, all, racers, game: one("Game"), race: one("Race") };
}

// The games a record may name (its Game header).
const GAMES = ["eight-off", "eagle-wing", "treize"];
// What a daily run may have been (its Attempt header).
const ATTEMPTS = ["scored", "unscored", "practice"];

// What a record's race was, in words: "a practice (unscored) of the daily challenge of
// 2026-11-25", "the scored attempt at ...", "a race" for any other. A daily record
// written before the Attempt header does not say which run it was.
export function raceKindText(record) {
  const day = record.one("Daily");
  const attempt = record.one("Attempt");
  if (day === null) return record.one("Rated") === "yes" ? "a rated race" : "a casual race";
  if (attempt === "scored") return `the scored attempt at the daily challenge of ${day}`;
  if (attempt === "unscored") return `a guest's unscored attempt at the daily challenge of ${day}`;
  if (attempt === "practice") return `a practice (unscored) of the daily challenge of ${day}`;
  return `a run of the daily challenge of ${day} (scored or practice: not recorded)`;
}

// A record file's text, or an Error saying why it is none: it must be UTF-8, as
// solitaire-arena verify reads it (a file of another encoding would show garbled names).
export async function recordFileText(file) {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw new Error(`${file.name} is not a race record: not UTF-8 text (save it as UTF-8 and open it again)`);
  }
}

// The checks the browser can make of a record: each { id, ok, title, reason }.
export function checkRecord(record) {
  const checks = [];
  const check = (id, ok, title, reason) => checks.push({ id, ok, title, reason });
  const { game } = record;
  const serverSeed = record.one("ServerSeed");
  const salt = record.one("Salt");
  const committed = record.one("Commitment");
  const seed = record.one("Seed");
  const version = record.one("DealVersion");
  const missing = [["Game", game], ["ServerSeed", serverSeed], ["Commitment", committed], ["Seed", seed]]
    .filter(([, value]) => !value).map(([name]) => name).concat(salt === null ? ["Salt"] : []);
  if (missing.length) {
    check("form", false, "Record", `the record lacks its ${listText(missing)} header${missing.length === 1 ? "" : "s"}`);
    return checks;
  }
  if (!GAMES.includes(game)) { // as solitaire-arena verify says it
    const line = record.headers.find(([name]) => name === "Game")[2];
    check("form", false, "Record", `line ${line}: unknown game '${game}' (a record's game is ${listText(GAMES, "or")})`);
    return checks;
  }
  const attempt = record.headers.find(([name]) => name === "Attempt");
  if (attempt && !ATTEMPTS.includes(attempt[1])) {
    check("form", false, "Record", `line ${attempt[2]}: Attempt is ${listText(ATTEMPTS, "or")}, not '${attempt[1]}'`);
    return checks;
  }
  if (attempt && record.one("Daily") === null) {
    check("form", false, "Record", `line ${attempt[2]}: an Attempt comes only after a Daily header`);
    return checks;
  }
  if (record.one("Daily") !== null && record.racers.length !== 1) { // as solitaire-arena verify checks it
    check("racers", false, "Racers", `a daily challenge run has one racer, not ${record.racers.length}`);
  }
  const computed = commitmentOf(game, serverSeed, salt);
  check("commitment", computed === committed, "Commitment",
    computed === committed ? `SHA-256 of the server's seed and salt is ${committed.slice(0, 16)}…, the commitment published before the race`
      : `SHA-256 of the server's seed and salt is ${computed.slice(0, 16)}…, but the record's commitment is ${committed.slice(0, 16)}…`);
  const shares = {};
  const problems = [];
  const ids = new Set(record.racers.map((r) => r.player_id));
  for (const value of record.all("Share")) {
    const [player, commitment, share] = value.split(" ");
    if (!ids.has(player)) problems.push(`${player} is not a racer`);
    else if (player in shares) problems.push(`${player} has two shares`);
    else if (!/^[0-9a-f]{16,64}$/.test(share ?? "")) problems.push(`${player}'s share is not 16–64 lowercase hex digits`);
    else if (sha256(share) !== commitment) problems.push(`${player}'s share does not hash to the commitment they gave`);
    shares[player] = share;
  }
  const count = Object.keys(shares).length;
  check("shares", !problems.length, "Seed shares", problems.length ? problems.join("; ")
    : count ? `${count} racer${count === 1 ? "" : "s"} added a share, each matching the commitment they made at joining` : "no racer added a share: the deal is the server's seed alone");
  const mixed = mixedSeed(game, serverSeed, shares);
  check("seed", mixed === seed, "Seed", mixed === seed ? `the mix of the server's seed and the shares is ${seed}`
    : `the mix of the server's seed and the shares is ${mixed}, but the record says ${seed}`);
  check("version", version === "1", "Deal algorithm", version === "1" ? "version 1 (sha256-ctr), re-dealt below" : `version ${version} is unknown to this page`);
  return checks;
}

// Whether a server's view of the deal shows this page's deal: the same number of cards on
// every pile, and its face-up cards the top ones of the dealt pile. null when it does.
export function dealDifference(layout, view) {
  for (const [name, pile] of Object.entries(view.piles)) {
    const dealt = layout[name] ?? [];
    const top = dealt.slice(dealt.length - pile.cards.length);
    if (pile.count !== dealt.length) return `${name} holds ${pile.count} cards, the deal ${dealt.length}`;
    if (pile.cards.join(" ") !== top.join(" ")) return `${name} shows ${cardsInWords(pile.cards.join(" "))}, the deal ${cardsInWords(top.join(" "))}`;
  }
  const missing = Object.keys(layout).find((name) => layout[name].length && !(name in view.piles));
  return missing ? `the deal has cards on ${missing}, the view has no such pile` : null;
}

// Whose moves the checks compared with the server's replay, and what no check here covers,
// said after the verdict: the page compares the first racer's moves at once, another's only
// once that racer is picked, so "passed" must not read as every racer's moves checked.
function scopeText(record, checks) {
  const racers = record.racers;
  const compared = racers.filter((r) => checks.some((c) => c.id === `moves-${r.player_id}`));
  const others = racers.filter((r) => !compared.includes(r));
  let moves;
  if (!compared.length) moves = "No racer's moves were compared with a replay.";
  else if (!others.length) moves = `${racers.length === 1 ? `${racers[0].name}'s` : "Every racer's"} moves were compared with the server's replay.`;
  else {
    moves = `Only ${listText(compared.map((r) => `${r.name}'s`))} moves were compared with the server's replay: `
      + `pick ${others.length === 1 ? others[0].name : "another racer"} below to compare theirs.`;
  }
  return `${moves} Not checked here: each move's legality and time, and that the results follow from the moves (solitaire-arena verify FILE checks them).`;
}

// "a", "a and b", "a, b and c" (or "a, b or c" with `joiner` "or").
function listText(words, joiner = "and") {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} ${joiner} ${words.at(-1)}`;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const link = element("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function verifyPage({ app, arena, readingSession }, raceId) {
  const error = element("p", { class: "error", role: "alert", id: "verify-error" });
  const checksList = element("ul", { class: "checks", id: "checks" });
  const summaryLine = element("p", { id: "verdict", role: "status" });
  const kindLine = element("p", { id: "record-kind", hidden: true });
  const dealBox = element("div", { class: "board", id: "deal-board" });
  const dealSection = element("section", { id: "deal", hidden: true }, element("h2", {}, "The deal, as this page dealt it"), dealBox);
  const racerButtons = element("div", { class: "row", id: "racer-buttons" });
  const slider = element("input", { id: "step", type: "range", min: "0", max: "0", value: "0", "aria-label": "move" });
  const label = element("span", { id: "step-label", "aria-live": "polite" });
  const stepBox = element("div", { class: "board", id: "board" });
  const steps = element("section", { id: "steps", hidden: true }, element("h2", {}, "The moves, as the server replays them"),
    racerButtons, element("div", { class: "row" }, slider, label), stepBox);
  const pasted = element("textarea", { id: "record-text", rows: "8", "aria-label": "record text", placeholder: '[Event "Solitaire Arena race"]…' });
  const pastedNote = noteFor(pasted, (value) => (value.trim() ? null : "Paste a race record here, or open its file, first."));
  const file = element("input", { id: "record-file", type: "file", accept: ".rec,.txt,.pgn,text/plain", "aria-label": "open a record file" });
  const downloadButton = element("button", { id: "download", type: "button", hidden: true }, "Download record");
  const dealBoard = new Board(dealBox);
  const stepBoard = new Board(stepBox);
  let text = "";
  let current = null; // the record read from `text` (null: none yet, or text that is not one)
  let checks = [];
  let layout = null;
  let views = [];
  let moves = [];
  let gone = false;
  let loading = 0; // the racer load under way (a newer one replaces it)
  let runs = 0; // the record being verified: a record verified since makes an older one's late replies moot

  function drawChecks() {
    checksList.replaceChildren(...checks.map((c) => element("li", { class: c.ok === true ? "pass" : c.ok === false ? "fail" : "open", "data-check": c.id },
      element("span", { class: "mark", "aria-hidden": "true" }, c.ok === true ? "✓" : c.ok === false ? "✗" : "–"), " ",
      element("strong", {}, `${c.title}: `), c.ok === true ? "" : c.ok === false ? "failed — " : "", c.reason)));
    const failed = checks.filter((c) => c.ok === false).length;
    summaryLine.className = failed ? "fail" : "pass";
    const verdict = failed ? `${failed} check${failed === 1 ? "" : "s"} failed.` : "Every check made here passed.";
    summaryLine.replaceChildren(element("strong", {}, verdict), current ? ` ${scopeText(current, checks)}` : "");
  }

  // Nothing to verify (Verify pressed with the box emptied): no verdict of a record gone.
  function clearChecks() {
    runs++; // the replies of the record before are moot
    loading++;
    text = "";
    current = null;
    checks = [];
    checksList.replaceChildren();
    summaryLine.replaceChildren();
    summaryLine.className = "";
    for (const part of [steps, dealSection, downloadButton, kindLine]) part.hidden = true;
  }

  function setCheck(entry) {
    checks = checks.filter((c) => c.id !== entry.id).concat(entry);
    drawChecks();
  }

  function showStep() {
    const step = Number(slider.value);
    if (!views[step]) return;
    stepBoard.show({ ...views[step], legal_moves: [] });
    label.textContent = step === 0 ? `the deal (of ${movesText(views.length - 1)})` : `move ${step}/${views.length - 1}: ${moves[step]}`;
  }

  // One racer's views from the server (the replay page's get_replay), the first checked
  // against this page's deal and the moves against the record's. The racer chosen last
  // pressed again keeps the step shown (it reloads nothing), as on the replay page.
  let chosen = null;
  async function loadRacer(record, racer) {
    if (racer === chosen) return;
    chosen = racer;
    const mine = ++loading;
    const got = [];
    const said = [];
    let total = 1;
    while (got.length < total) {
      const page = await arena.request({ type: "get_replay", race_id: record.race, player_id: racer.player_id, offset: got.length, limit: 200 });
      total = page.total;
      got.push(...page.views);
      said.push(...page.moves);
    }
    if (mine !== loading || gone) return;
    views = got;
    moves = said;
    for (const button of racerButtons.children) button.setAttribute("aria-pressed", String(button.dataset.player === racer.player_id));
    const difference = dealDifference(layout, views[0]);
    setCheck({ id: `deal-${racer.player_id}`, ok: !difference, title: `Deal of ${racer.name}`,
      reason: difference ?? "the server's first view of this racer's board is the deal this page dealt" });
    const logged = (record.sections.get(racer.player_id) ?? []).map((m) => m.move);
    const same = logged.join(" ") === moves.slice(1).join(" ");
    setCheck({ id: `moves-${racer.player_id}`, ok: same, title: `Moves of ${racer.name}`,
      reason: same ? `the server's replay plays the record's ${movesText(logged.length)}` : "the server's replay and the record list different moves" });
    slider.max = String(views.length - 1);
    slider.value = "0";
    steps.hidden = false;
    showStep();
  }

  // Verifies `recordText`; `unreadable` (an Error): a file that gave no text to verify.
  async function verify(recordText, unreadable = null) {
    const run = ++runs;
    loading++; // a racer of the record before, still loading, is not shown
    text = recordText;
    showError(error, null);
    steps.hidden = true;
    dealSection.hidden = true;
    downloadButton.hidden = true;
    kindLine.hidden = true;
    current = null;
    let record;
    try {
      if (unreadable) throw unreadable;
      record = readRecord(text);
    } catch (failure) {
      checks = [{ id: "form", ok: false, title: "Record", reason: failure.message }];
      drawChecks();
      return;
    }
    if (raceId && record.racers.length) { // a daily run says what it was, as the replay page does
      const game = GAME_TITLES[record.game] ?? record.game;
      const kind = record.one("Daily") !== null ? attemptText(record.one("Attempt")) : null;
      heading.textContent = kind && record.racers.length === 1
        ? `Verify: ${record.racers[0].name}'s ${kind} — ${game} daily of ${record.one("Daily")}`
        : `Verify: ${racersText(record.racers.map((r) => r.name))} (${game})`;
    }
    checks = checkRecord(record);
    if (checks.some((c) => c.id === "form")) { drawChecks(); return; } // not a record: nothing to download
    kindLine.textContent = `The record says this is ${raceKindText(record)}.`;
    kindLine.hidden = false;
    // A record read is offered for download, whether its checks pass or not.
    current = record;
    downloadButton.hidden = false;
    checks.push({ id: "legality", ok: null, title: "Every move's legality",
      reason: "checked offline by the Python engine: save the record (Download record) and run solitaire-arena verify FILE" });
    drawChecks();
    if (checks.some((c) => c.id === "version" && !c.ok)) return;
    layout = dealLayout(record.game, record.one("Seed"));
    dealBoard.show({ game: record.game, score: 0, won: false, move_count: 0, legal_moves: [],
      piles: Object.fromEntries(Object.entries(layout).map(([name, cards]) => [name, { count: cards.length, cards }])) });
    dealSection.hidden = false;
    if (!record.race || !record.racers.length) return;
    racerButtons.replaceChildren(...record.racers.map((r) => element("button", { type: "button", "data-player": r.player_id,
      onclick: () => loadRacer(record, r).catch((f) => { chosen = null; showError(error, f); }) }, r.name)));
    try {
      await readingSession();
      if (run !== runs) return;
      await loadRacer(record, record.racers[0]);
      for (const other of record.racers.slice(1)) { // the others' deals too: one view each
        const page = await arena.request({ type: "get_replay", race_id: record.race, player_id: other.player_id, offset: 0, limit: 1 });
        if (run !== runs) return;
        const difference = dealDifference(layout, page.views[0]);
        setCheck({ id: `deal-${other.player_id}`, ok: !difference, title: `Deal of ${other.name}`,
          reason: difference ?? "the server's first view of this racer's board is the deal this page dealt" });
      }
    } catch (failure) {
      if (run === runs) setCheck({ id: "server", ok: null, title: "Moves", reason: `not stepped through: this server does not replay race ${record.race} (${failure.reason ?? failure.message})` });
    }
  }

  slider.addEventListener("input", showStep);
  downloadButton.addEventListener("click", () => download(`race-${raceId ?? readRaceOf(text)}.txt`, text));
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    try {
      pasted.value = await recordFileText(chosen);
    } catch (failure) {
      pasted.value = ""; // nothing of it shown garbled
      clearFields([pasted]);
      verify("", failure);
      return;
    }
    clearFields([pasted]);
    verify(pasted.value);
  });
  const intro = element("p", {}, "This page re-deals the race from its revealed seed in your browser and checks what it can without trusting the server: the commitment, the seed shares, the seed, and that the server's boards start from that deal. ",
    "It runs no game rules: the legality of every move is checked offline by ", element("code", {}, "solitaire-arena verify FILE"), " (the Python engine) on the downloaded record.");
  const input = raceId ? element("div", { class: "row" }, downloadButton)
    : element("section", { id: "paste" }, element("div", { class: "row" }, file, element("button", { id: "verify-pasted", class: "primary", type: "button", onclick: () => { if (checkFields([pasted])) verify(pasted.value); else clearChecks(); } }, "Verify"), downloadButton), pasted, pastedNote);
  // The heading (so the tab's title) names a race of this server by its racers and game
  // once its record is read, as the Replay page does.
  const heading = element("h1", { id: "verify-title" }, raceId ? "Verify race" : "Verify a race record");
  app.replaceChildren(heading, intro, input, error,
    element("section", {}, kindLine, summaryLine, checksList), dealSection, steps);
  if (raceId) {
    readingSession()
      .then(() => arena.request({ type: "get_record", race_id: raceId }))
      .then((reply) => { if (!gone) verify(reply.text); })
      .catch((failure) => showRaceError(error, failure));
  }
  return () => { gone = true; };
}

function readRaceOf(text) {
  return text.match(/^\[Race "([^"]+)"\]/m)?.[1] ?? "record";
}
