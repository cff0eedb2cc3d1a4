// The daily tournament, the Standings tab of the Daily page (#/daily/standings, or
// #/daily/standings/<YYYY-MM-DD> for a past day): the day's standing with each player's
// place on each game's board, the table of the day's ISO week and the all-time table (the
// server's top 20 of each, and your own row under a table that leaves it out), and your
// streak of days with a scored attempt. Built here; daily.js loads it and draws the page
// around it.

import { GAMES, element, ordinal, playerLink } from "./dom.js";

const DAY_MS = 86_400_000;
// The tables' column heads as a narrow phone shows them (the full one in the head's title).
const SHORT_HEADS = { Rank: "#", Points: "Pts", "Eight Off": "8 Off", "Eagle Wing": "Eagle" };

function shift(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

// The ISO week of a day (YYYY-MM-DD) as the server names it (2027-W10), and its Monday
// and Sunday: weeks run Monday to Sunday, and belong to the year of their Thursday.
export function isoWeek(date) {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday: 0
  const thursday = shift(date, 3 - weekday);
  const year = Number(thursday.slice(0, 4));
  const week = 1 + Math.floor((Date.parse(`${thursday}T00:00:00Z`) - Date.UTC(year, 0, 1)) / DAY_MS / 7);
  return { name: `${year}-W${String(week).padStart(2, "0")}`, monday: shift(date, -weekday), sunday: shift(date, 6 - weekday) };
}

function days(n) {
  return n === 1 ? "1 day" : `${n} days`;
}

// One row of a table of points: rank, player (yours marked), points, and for the day's
// standing the place on each game's board.
function pointsRow(entry, me, places) {
  const mine = entry.player_id === me;
  return element("tr", { "data-player": entry.player_id, class: mine ? "me" : null, "aria-current": mine ? "true" : null },
    element("td", { class: "number" }, `${entry.rank}`),
    element("td", {}, playerLink(entry.player_id, entry.name, entry.bot), mine ? " (you)" : ""),
    element("td", { class: "number points" }, `${entry.points}`),
    ...(places ? GAMES.map(([game]) => {
      const place = entry.places?.[game];
      return element("td", { class: "place", "data-game": game }, place ? ordinal(place) : "—");
    }) : []));
}

// A table of points, yours marked; `own` (the server's entry of yours in that table, if
// any) comes under the rows after a gap when the top 20 leave it out.
function pointsTable({ id, caption, entries, own, me, empty, places = false }) {
  const head = ["Rank", "Player", "Points", ...(places ? GAMES.map(([, title]) => title) : [])];
  // A narrow phone's heads (style.css shows them instead): the day's six columns fit 320 px.
  const rows = entries.map((entry) => pointsRow(entry, me, places));
  if (!rows.length) rows.push(element("tr", { class: "empty" }, element("td", { colspan: String(head.length) }, empty)));
  if (own && !entries.some((entry) => entry.player_id === own.player_id)) {
    rows.push(element("tr", { class: "gap" }, element("td", { colspan: String(head.length) }, "…")), pointsRow(own, me, places));
  }
  return element("table", { id, class: "board-table standings-table" },
    element("caption", {}, caption),
    element("thead", {}, element("tr", {}, ...head.map((h) => element("th", { scope: "col", title: SHORT_HEADS[h] ? h : null, "data-short": SHORT_HEADS[h] ?? null },
      element("span", { class: "full" }, h))))),
    element("tbody", {}, ...rows));
}

// Your streak: consecutive days with a scored attempt, current while it reaches the latest
// day counted. Guests have none: they take no part.
export function streakLine(streak, guest) {
  if (guest) {
    return element("p", { id: "streak" }, "Guests take no part in the tournament: ",
      element("a", { href: "#/account" }, "sign in or register"), " to score points and keep a streak.");
  }
  const title = "consecutive days with a scored attempt, up to the latest day counted";
  if (!streak) {
    // The server sends none before a day with the player's scored attempt is counted.
    return element("p", { id: "streak", title }, "No streak yet: it starts when a day with your scored attempt is counted.");
  }
  return element("p", { id: "streak", title },
    "Your streak: ", element("strong", {}, days(streak.current)), ` (best ${streak.best}).`);
}

// Whether the day's standing is final (counted into the week's and all-time tables) or
// still live, and then when it is due to be counted, rounded up to the minute.
function dayStatus(standings, isToday) {
  if (standings.counted) return "Final: counted into the week's and all-time tables.";
  const due = new Date(Math.ceil(standings.counts_at / 60_000) * 60_000).toISOString();
  const final = ` Final soon after ${due.slice(11, 16)} UTC on ${due.slice(0, 10)}.`;
  return (isToday ? "Live: it changes as attempts finish." : "Still live: attempts begun before the day ended may yet finish.") + final;
}

// The parts of the Standings tab for `standings` (a daily_standings reply): the streak, a
// note on the scoring, and the tables. `today` is the server's day, `me` the player
// looking, `refresh` a control to ask again (beside the day's standing).
export function standingsParts(standings, { me, guest, today, refresh }) {
  const isToday = standings.date === today;
  const week = isoWeek(standings.date);
  const thisWeek = isoWeek(today).name === standings.week;
  const counted = standings.day.length;
  const note = element("p", { class: "setting", id: "tournament-note" },
    "Each day, each game's board gives 25, 18, 15, 12, 10, 8, 6, 4, 2 and 1 points for the places 1 to 10 ",
    "and 1 for any other finished scored attempt (equal places, equal points); a player's day is the sum over the three games. ",
    "A day's points go into its week's and the all-time tables once its last attempt is surely over, shortly after the day ends (UTC).");
  return [
    streakLine(standings.streak, guest),
    note,
    element("div", { class: "standings" },
      element("section", { class: "standings-part day", "aria-labelledby": "standing-day-title" },
        element("div", { class: "part-head" },
          element("h2", { id: "standing-day-title" }, isToday ? "Today's standing" : `Standing of ${standings.date}`), refresh),
        element("p", { class: "setting", id: "standing-day-status" }, dayStatus(standings, isToday),
          counted ? ` ${counted === 1 ? "1 player" : `${counted} players`}${counted >= 20 ? " shown: the top 20" : ""}.` : ""),
        pointsTable({ id: "standing-day", caption: `${isToday ? "Today" : standings.date}: points and places per game`, entries: standings.day, own: standings.me_day, me, places: true,
          empty: isToday ? "Nobody has finished a scored attempt today yet." : "Nobody finished a scored attempt that day." })),
      element("section", { class: "standings-part", "aria-labelledby": "standing-week-title" },
        element("h2", { id: "standing-week-title" }, thisWeek ? "This week" : `Week ${standings.week}`),
        element("p", { class: "setting", id: "standing-week-range" }, `${standings.week}: Monday ${week.monday} to Sunday ${week.sunday}, the days counted so far.`),
        pointsTable({ id: "standing-week", caption: `Week ${standings.week}: points (top 20)`, entries: standings.week_table, own: standings.me_week, me,
          empty: "No day of this week has been counted yet." })),
      element("section", { class: "standings-part", "aria-labelledby": "standing-all-time-title" },
        element("h2", { id: "standing-all-time-title" }, "All time"),
        element("p", { class: "setting" }, "Every day counted so far."),
        pointsTable({ id: "standing-all-time", caption: "All time: points (top 20)", entries: standings.all_time, own: standings.me_all_time, me,
          empty: "No day has been counted yet." }))),
  ];
}
