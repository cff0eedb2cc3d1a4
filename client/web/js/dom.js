// Building the page: elements, the SVG of a sparkline, and how numbers read.

export const GAMES = [["eight-off", "Eight Off"], ["eagle-wing", "Eagle Wing"], ["treize", "Treize"]];
export const GAME_TITLES = Object.fromEntries(GAMES);
const SVG = "http://www.w3.org/2000/svg";

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children);
  return node;
}

// A table's head row: a column header per title. A title may be an element, such as
// `unseen("Join")` over a column of buttons.
export function tableHead(...titles) {
  return element("thead", {}, element("tr", {}, ...titles.map((title) => element("th", { scope: "col" }, title))));
}

// Words a screen reader reads that take no room on the screen.
export function unseen(text) {
  return element("span", { class: "unseen" }, text);
}

// The head of a race's results (the race page's, the watch page's): a rated race has a
// fourth column, the rating change (ratingCell); a casual race, which changes no rating,
// has none.
export function standingsHead(rated) {
  return rated ? tableHead("Rank", "Player", "Result", "Rating") : tableHead("Rank", "Player", "Result");
}

// A results row's rating change (`text`), in a rated race only: the cells to append.
export function ratingCell(rated, text) {
  return rated ? [element("td", { class: "rating-change" }, text)] : [];
}

// ----- focus kept across a redraw: a keyboard or screen-reader user goes on from where
// they were, never from the top of the page (the body) because a redraw dropped the focus.

// Whether `node` can hold the focus where it is: in the page, and shown.
function focusable(node) {
  return Boolean(node?.isConnected && node.getClientRects().length);
}

// The focus that `lost` had before the page changed, when the change took it away (removed
// or hid `lost`), goes to the first of `heirs` that can take it (one that is no tab stop
// gets tabindex -1). Focus elsewhere (someone moved it meanwhile) stays.
export function passFocus(lost, ...heirs) {
  const now = document.activeElement;
  if (!lost || (now !== lost && now !== document.body && now !== null)) return;
  if (now === lost && focusable(lost)) return;
  for (const heir of heirs) {
    if (!focusable(heir)) continue;
    if (heir.tabIndex < 0 && !heir.hasAttribute("tabindex")) heir.setAttribute("tabindex", "-1");
    heir.focus();
    if (document.activeElement === heir) return;
  }
}

// A control whose request runs: marked busy (aria-disabled, which a screen reader says,
// drawn as disabled) while `busy`, never disabled, which would drop its focus to the page's
// body. Its handler does nothing while it is busy.
export function markBusy(control, busy) {
  if (busy) control.setAttribute("aria-disabled", "true");
  else control.removeAttribute("aria-disabled");
}
export const isBusy = (control) => control.getAttribute("aria-disabled") === "true";

// `box`'s children replaced by `children` (as replaceChildren does), unless they are the
// same markup as those shown (then nothing changes: a screen reader hears nothing again).
// A control inside that had the focus passes it to its successor, the new control of the
// same data-key (a list's row keys its controls by what they are for: a race's id) or id;
// one with none (its race gone) to the first of `heirs` that takes it. Whether it redrew.
export function redraw(box, children, ...heirs) {
  const drawn = document.createElement("div");
  drawn.append(...children);
  if (drawn.innerHTML === box.innerHTML) return false;
  const focused = box.contains(document.activeElement) ? document.activeElement : null;
  box.replaceChildren(...drawn.childNodes);
  if (focused) passFocus(focused, successor(box, focused), ...heirs);
  return true;
}

function successor(box, old) {
  if (old.dataset.key) return box.querySelector(`[data-key="${CSS.escape(old.dataset.key)}"]`);
  return old.id ? box.querySelector(`#${CSS.escape(old.id)}`) : null;
}

export function svgElement(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}

// An error's words in `target`; its code stays on it (data-code), so a page can tell a
// lost connection's line from a refusal (and clear it once the connection is back).
export function showError(target, error) {
  target.textContent = error ? (error.reason ?? error.message ?? String(error)) : "";
  if (error?.code) target.dataset.code = error.code; else delete target.dataset.code;
}

// A race nobody has (race_not_found), as the pages say it: in plain words, once.
export const NO_SUCH_RACE = "There is no race with this id (or it is no longer kept).";

// showError, with a race nobody has said in NO_SUCH_RACE's words.
export function showRaceError(target, error) {
  showError(target, error);
  if (error?.code === "race_not_found") target.textContent = NO_SUCH_RACE;
}

// The race an `already_racing` refusal names by its id, or null.
export function racingRaceId(failure) {
  return (failure.reason ?? "").match(/\b[0-9a-f]{12}\b/)?.[0] ?? null;
}

// An `already_racing` refusal shown in `target` names the race by its id: pages name races
// by their codes (as "Your races" does), so the race's code replaces the id, linked to the
// race. The race's id, once named (null when the refusal names none or cannot be read).
export async function linkRacingRace(arena, target, failure) {
  const words = failure.reason ?? "";
  const raceId = racingRaceId(failure);
  if (!raceId) return null;
  try {
    const { race } = await arena.request({ type: "get_race", race_id: raceId });
    if (target.textContent !== words) return null; // another action's outcome shows now
    const at = words.indexOf(raceId);
    target.replaceChildren(words.slice(0, at), element("a", { href: `#/race/${raceId}` }, race.code),
      words.slice(at + raceId.length));
    return raceId;
  } catch {
    return null; // the server's words stand
  }
}

// A rating as shown beside a name: `1612`, or `1500?` while it is provisional.
export function ratingText(rating, provisional) {
  return `${rating}${provisional ? "?" : ""}`;
}

// A rating change with its sign: `+12`, `-8`, `±0`.
export function changeText(change) {
  return change > 0 ? `+${change}` : change < 0 ? `${change}` : "±0";
}

// 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, … 21st.
export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th";
  return `${n}${suffix}`;
}

// A racer's place in a race, said to be shared when others have the same rank (a race
// where nobody scored is everyone's tie for 1st, not a win): "1st of 2", "tied 1st of 8",
// as the terminal says it.
export function placeText(rank, racers, tied) {
  return `${tied ? "tied " : ""}${ordinal(rank)} of ${racers}`;
}

// Whether another racer of `ranks` (every racer's, `rank`'s own among them) has `rank`
// too: a tie, said as one (shared.ranking.shares_rank, the terminal's rule).
export function sharesRank(rank, ranks) {
  return ranks.filter((other) => other === rank).length > 1;
}

// A score in words: the cards a racer put home ("1 card home", "7 cards home"), or in
// Treize, whose score counts the cards its pairs and Kings took away, "7 cards removed".
export function cardsScored(game, score) {
  return `${score} ${score === 1 ? "card" : "cards"} ${game === "treize" ? "removed" : "home"}`;
}

// A racer's result: the time of a win, else the cards scored (said to be where the
// racer gave up when they did, as the terminal clients say it too).
export function resultText(game, won, timeMs, score, gaveUp = false) {
  if (won) return `won in ${seconds(timeMs)}`;
  return gaveUp ? `gave up with ${cardsScored(game, score)}` : cardsScored(game, score);
}

// The result of one line of results: a race's (a `Standing`), a daily board's (a
// `DailyEntry`) or a profile's latest races (a `RecentRace`).
export function standingResult(game, s) {
  return resultText(game, s.won, s.time_ms, s.score, s.gave_up);
}

// "The race is over", and why when its time limit ended it: someone was still playing
// (neither won nor gave up); a race otherwise ends once every racer is done.
export function raceOverWords(summary) {
  const timeUp = summary?.standings.some((s) => !s.won && !s.gave_up);
  return timeUp ? "The race is over: time ran out" : "The race is over";
}

// A count of moves: "1 move", "0 moves", "12 moves".
export function movesText(count) {
  return `${count} ${count === 1 ? "move" : "moves"}`;
}

// A race's racers, as a page's heading names the race: "ada", "ada vs bob", "ada, bob
// and cat", "ada, bob, cat and 5 others" (eight seats make a long heading).
// What a daily run was (a race's or results' `attempt`), after a name's "'s":
// "alice's scored attempt", "alice's practice (unscored)"; null when not said.
export function attemptText(attempt) {
  return { scored: "scored attempt", unscored: "unscored attempt (guests are not ranked)", practice: "practice (unscored)" }[attempt] ?? null;
}

export function racersText(names) {
  if (names.length <= 2) return names.join(" vs ");
  if (names.length <= 4) return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return `${names.slice(0, 3).join(", ")} and ${names.length - 3} others`;
}

// How many watch a race: "3 watching" while it runs; once it is over, how many watched
// as it ended ("3 watched"), which later arrivals and departures no longer change.
export function watchersText(count, over = false) {
  return count ? `${count} ${over ? "watched" : "watching"}` : "";
}

// Cards a racer who has not moved yet has left: the deal's, as Eagle Wing deals one home.
export const DEALT_HOME = { "eagle-wing": 1 };
export function dealCardsLeft(game) {
  return 52 - (DEALT_HOME[game] ?? 0);
}

// A race time to the tenth, cut as a stopwatch cuts it (never rounded up): as the
// terminal clients and the replay's clock give it.
export function seconds(ms) {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  return `${Math.floor(tenths / 10)}.${tenths % 10} s`;
}

export function when(ms) {
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function profileHref(playerId) {
  return `#/profile/${encodeURIComponent(playerId)}`;
}

// A racer's name in a line that cuts it to fit (`.racer-name.cut`): the name in `.who`,
// which the line cuts with an ellipsis, and the number the server adds to tell it from a
// same-named racer's (`alice (2)`) beside it, never cut; then the bot mark.
export function cutName(name, bot) {
  const [, base, number] = name.match(/^(.+)( \(\d+\))$/) ?? [null, name, ""];
  return [element("span", { class: "who", title: name }, base), number, bot ? " 🤖" : ""];
}

// A player's name linking to their profile, with the bot mark.
export function playerLink(playerId, name, bot, attributes = {}) {
  return element("a", { href: profileHref(playerId), class: "player", ...attributes }, `${name}${bot ? " 🤖" : ""}`);
}

// Ratings after each rated race (oldest first) as a line: an SVG picture, with its
// numbers as its accessible name.
export function sparkline(points, label) {
  const width = 160;
  const height = 36;
  const pad = 4;
  const low = Math.min(...points);
  const high = Math.max(...points);
  const span = high - low || 1;
  const x = (i) => (points.length === 1 ? width / 2 : pad + (i * (width - 2 * pad)) / (points.length - 1));
  const y = (r) => (high === low ? height / 2 : height - pad - ((r - low) * (height - 2 * pad)) / span);
  const picture = svgElement("svg", {
    class: "sparkline", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": label,
  });
  if (points.length > 1) {
    const path = points.map((r, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
    picture.append(svgElement("path", { d: path, fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  }
  const last = points.length - 1;
  picture.append(svgElement("circle", { cx: x(last).toFixed(1), cy: y(points[last]).toFixed(1), r: 3, fill: "currentColor" }));
  return picture;
}
