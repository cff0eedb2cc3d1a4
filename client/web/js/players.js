// The pages about players: the account (#/account: sign in, register, change the
// password, log out), a game's leaderboard (#/leaderboard/<game>) and a profile
// (#/profile for your own, #/profile/<player id> for anyone's).

import {
  GAMES, GAME_TITLES, changeText, element, isBusy, markBusy, placeText, playerLink, ratingText, seconds, showError, sparkline, standingResult,
  when,
} from "./dom.js";
import {
  LIMITS, checkFields, enteredPasswordProblem, loginUsernameProblem, newPasswordProblem, noteFor, usernameProblem,
} from "./forms.js";

// The name a guest chose in the lobby (kept for guests only: an account has its username).
export const NAME_KEY = "solitaire-arena.name";
const PAGE_SIZE = 20;

// A labelled field in a form, with its note saying what `rule` finds wrong (see forms.js).
function field(id, label, attributes, rule) {
  const input = element("input", { id, name: id, ...attributes });
  return element("div", { class: "field" }, element("label", { for: id }, label), input, noteFor(input, rule));
}

// A form whose submit checks its fields (nothing sent while one is wrong: its note says
// why; read-only ones are skipped), then runs `work` (button busy meanwhile), showing
// a refusal in `error` in the server's words.
function form(id, children, error, work) {
  const node = element("form", { id, novalidate: true }, ...children);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = node.querySelector("button[type=submit]");
    if (isBusy(button)) return; // sent already: a second submit would only be refused
    showError(error, null);
    if (!checkFields([...node.querySelectorAll("input:not([readonly])")])) return;
    markBusy(button, true);
    try {
      await work();
    } catch (failure) {
      showError(error, failure);
    } finally {
      markBusy(button, false);
    }
  });
  return node;
}

// Your own profile needs a player: a guest or an account (a viewer's session is neither).
function needsSession(app, what) {
  app.replaceChildren(element("h1", {}, what),
    element("p", { id: "no-session" }, "Choose a name in the ", element("a", { href: "#/" }, "lobby"),
      " or ", element("a", { href: "#/account" }, "sign in"), " first."));
}

// ----- account -------------------------------------------------------------------------

export function accountPage({ app, arena, signIn }) {
  let drawn; // the username the page shows the forms for (null: signed out or a guest)

  function guestForms() {
    const loginError = element("p", { class: "error", id: "login-error", role: "alert" });
    const registerError = element("p", { class: "error", id: "register-error", role: "alert" });
    const login = form("login-form", [
      field("login-username", "Username", { autocomplete: "username", maxlength: String(LIMITS.loginUsernameMax), required: true }, loginUsernameProblem),
      field("login-password", "Password", { type: "password", autocomplete: "current-password", maxlength: String(LIMITS.passwordMax), required: true },
        enteredPasswordProblem),
      element("button", { id: "login", type: "submit", class: "primary" }, "Sign in"),
    ], loginError, async () => {
      const username = app.querySelector("#login-username").value.trim();
      const password = app.querySelector("#login-password").value;
      await arena.login(username, password);
      localStorage.removeItem(NAME_KEY);
      location.hash = "#/";
    });
    const register = form("register-form", [
      field("register-username", "New username", { autocomplete: "username", minlength: String(LIMITS.usernameMin),
        maxlength: String(LIMITS.usernameMax), required: true }, usernameProblem),
      field("register-password", "New password", { type: "password", autocomplete: "new-password", minlength: String(LIMITS.passwordMin),
        maxlength: String(LIMITS.passwordMax), required: true },
        (value) => newPasswordProblem(value, app.querySelector("#register-username").value.trim())),
      element("button", { id: "register", type: "submit" }, "Register"),
    ], registerError, async () => {
      const username = app.querySelector("#register-username").value.trim();
      const password = app.querySelector("#register-password").value;
      const fresh = !arena.playing;
      if (fresh) {
        // Nobody here yet: a guest first (named as the lobby says, or after the username).
        const saved = localStorage.getItem(NAME_KEY);
        await arena.start(saved || (/^[\p{L}\p{N}]/u.test(username) ? username.slice(0, 24) : "player"));
      }
      try {
        await arena.register(username, password);
      } catch (failure) {
        // The guest started only for this registration goes with it: nobody is signed in.
        if (fresh) await arena.logout().catch(() => arena.forget());
        throw failure;
      }
      localStorage.removeItem(NAME_KEY);
      draw();
      // The form went with the focus: the account's page, as a navigation would, gives
      // it to its heading.
      const heading = app.querySelector("h1");
      heading?.setAttribute("tabindex", "-1");
      heading?.focus();
    });
    app.replaceChildren(
      element("h1", {}, "Sign in"),
      element("section", { "aria-labelledby": "login-title" },
        element("h2", { id: "login-title" }, "Log in to your account"), login, loginError),
      element("section", { "aria-labelledby": "register-title" },
        element("h2", { id: "register-title" }, "Register"), element("p", { id: "register-intro" }, registerIntro()),
        element("p", { class: "setting" }, `A username has ${LIMITS.usernameMin}–${LIMITS.usernameMax} letters, digits, _ or - (at least one letter, `
          + `of one alphabet); a password ${LIMITS.passwordMin}–${LIMITS.passwordMax} characters.`),
        register, registerError));
  }

  function accountForms() {
    const error = element("p", { class: "error", id: "password-error", role: "alert" });
    const done = element("p", { id: "password-status", role: "status" });
    const logoutError = element("p", { class: "error", id: "logout-error", role: "alert" });
    // The account's username, read-only: a password manager then knows which account the
    // new password is for (browsers ask change-password forms for one).
    const change = form("password-form", [
      element("div", { class: "field" }, element("label", { for: "password-username" }, "Username"),
        element("input", { id: "password-username", name: "username", autocomplete: "username", readonly: true, value: arena.username })),
      field("old-password", "Current password", { type: "password", autocomplete: "current-password", maxlength: String(LIMITS.passwordMax), required: true },
        enteredPasswordProblem),
      field("new-password", "New password", { type: "password", autocomplete: "new-password", minlength: String(LIMITS.passwordMin),
        maxlength: String(LIMITS.passwordMax), required: true }, (value) => newPasswordProblem(value, arena.username)),
      element("button", { id: "change-password", type: "submit" }, "Change password"),
    ], error, async () => {
      done.textContent = "";
      const old = app.querySelector("#old-password");
      const fresh = app.querySelector("#new-password");
      await arena.changePassword(old.value, fresh.value);
      old.value = "";
      fresh.value = "";
      done.textContent = "Password changed: your other devices are signed out.";
    });
    const logout = element("button", { id: "logout", type: "button", onclick: async () => {
      showError(logoutError, null);
      try {
        await arena.logout();
        localStorage.removeItem(NAME_KEY);
        location.hash = "#/";
      } catch (failure) {
        showError(logoutError, failure);
      }
    } }, "Log out");
    app.replaceChildren(
      element("h1", {}, "Your account"),
      element("p", { id: "account-name" }, `Signed in as ${arena.username}. `, element("a", { href: "#/profile" }, "Your profile")),
      element("section", { "aria-labelledby": "password-title" },
        element("h2", { id: "password-title" }, "Change password"), change, error, done),
      element("section", { "aria-labelledby": "logout-title" },
        element("h2", { id: "logout-title" }, "Log out"),
        element("p", {}, "Forget this device: its token stops working; your other devices stay signed in."),
        logout, logoutError));
  }

  // Whom a register makes an account of: the guest signed in here, else a new player.
  function registerIntro() {
    return arena.playing
      ? `Keep this guest, ${arena.player.name}, and every race of theirs: choose a username and a password.`
      : "Choose a username and a password for a new player.";
  }

  function draw() {
    drawn = arena.username;
    if (drawn) accountForms(); else guestForms();
  }

  // Redraw only when who is signed in changed (a resume must not wipe what is typed); a
  // guest resumed after the page was drawn (a reload) is named in the register's intro.
  let gone = false; // left: a sign-in that ends later draws nothing over the page shown then
  const changed = () => {
    if (gone) return;
    if (arena.username !== drawn) draw();
    else if (!drawn) app.querySelector("#register-intro")?.replaceChildren(registerIntro());
  };
  const stops = [arena.on("welcome", changed), arena.on("account", changed)];
  draw();
  signIn().then(changed).catch(() => {});
  return () => { gone = true; stops.forEach((stop) => stop()); };
}

// ----- leaderboard ---------------------------------------------------------------------

export function leaderboardPage({ app, arena, readingSession }, game) {
  if (!GAME_TITLES[game]) game = GAMES[0][0];
  const error = element("p", { class: "error", role: "alert" });
  const mine = element("p", { id: "my-rank" });
  const rows = element("tbody");
  const info = element("span", { id: "page-info" });
  const previous = element("button", { id: "previous-page", type: "button", disabled: true }, "Previous");
  const next = element("button", { id: "next-page", type: "button", disabled: true }, "Next");
  let offset = 0;
  let following = null;
  let unreached = false; // the last read found no connection: the next welcome reads again

  function failed(failure) {
    showError(error, failure);
    unreached = failure.code === "connection_lost";
  }

  async function load(from) {
    showError(error, null);
    unreached = false;
    try {
      const board = await arena.request({ type: "get_leaderboard", game, offset: from, limit: PAGE_SIZE });
      offset = from;
      following = board.next_offset ?? null;
      const me = arena.player?.player_id;
      rows.replaceChildren(...board.entries.map((e) => element("tr", { "data-player": e.player_id, class: e.player_id === me ? "me" : "" },
        element("td", {}, `${e.rank}`),
        element("td", {}, playerLink(e.player_id, e.name, e.bot)),
        element("td", { class: "number" }, `${e.rating}`),
        element("td", { class: "number" }, `${e.games}`))));
      if (!board.entries.length) {
        rows.replaceChildren(element("tr", {}, element("td", { colspan: "4" },
          offset ? "No more players." : `Nobody is listed at ${GAME_TITLES[game]} yet.`)));
      }
      if (board.me) mine.textContent = `Your rank: ${board.me.rank} of ${board.total}, rated ${board.me.rating}.`;
      else if (arena.username) mine.textContent = "You are not listed yet: the leaderboard shows settled ratings only, which takes about 10 - 20 rated races.";
      else mine.textContent = "Guests are not listed: register to race rated races.";
      info.textContent = board.entries.length ? `${offset + 1}–${offset + board.entries.length} of ${board.total}` : "";
      previous.disabled = offset === 0;
      next.disabled = following === null;
    } catch (failure) {
      failed(failure);
    }
  }

  previous.addEventListener("click", () => load(Math.max(0, offset - PAGE_SIZE)));
  next.addEventListener("click", () => { if (following !== null) load(following); });
  const tabs = element("nav", { class: "tabs", "aria-label": "games" }, ...GAMES.map(([id, title]) =>
    element("a", { href: `#/leaderboard/${id}`, "aria-current": id === game ? "page" : null }, title)));
  app.replaceChildren(
    element("h1", {}, `Leaderboard: ${GAME_TITLES[game]}`), tabs, mine,
    element("table", { id: "leaderboard" },
      element("caption", { class: "setting" }, "Accounts with a settled rating (rated races only; provisional ratings are left off)"),
      element("thead", {}, element("tr", {}, ...["Rank", "Player", "Rating", "Games"].map((h) => element("th", { scope: "col" }, h)))),
      rows),
    element("div", { class: "row" }, previous, next, info), error);
  // Back after a drop (or the server away when the page opened): what could not be read is.
  const stop = arena.on("welcome", () => { if (unreached) load(offset); });
  readingSession().then(() => load(0)).catch(failed);
  return stop;
}

// ----- profile -------------------------------------------------------------------------

// A table wider than a phone's screen scrolls sideways in its own box, not the page.
const scrolling = (content) => element("div", { class: "table-scroll" }, content);

// The profile an address names: a player id (the page's own links), else an account's
// username (typed or shared by hand, as the terminal's profile command takes it).
async function profileOf(arena, named) {
  if (!named) return arena.request({ type: "get_profile" });
  try {
    return await arena.request({ type: "get_profile", player_id: named });
  } catch (failure) {
    if (failure.code !== "player_not_found") throw failure;
    try {
      return await arena.request({ type: "get_profile", username: named });
    } catch (again) {
      throw again.code === "player_not_found" ? failure : again; // neither: "there is no player …"
    }
  }
}

export function profilePage({ app, arena, signIn, readingSession }, playerId) {
  const error = element("p", { class: "error", role: "alert" });
  const loading = element("p", { id: "profile-loading" }, "Loading…");
  app.replaceChildren(element("h1", {}, "Profile"), loading, error);

  function draw(p) {
    const own = p.player_id === arena.player?.player_id;
    const ratings = p.ratings.length
      ? element("table", { id: "ratings" },
        element("thead", {}, element("tr", {}, ...["Game", "Rating", "Rated races", "Latest ratings"].map((h) => element("th", { scope: "col" }, h)))),
        element("tbody", {}, ...p.ratings.map((r) => {
          const points = [...r.history].reverse().map((h) => h.rating); // oldest first
          return element("tr", { "data-game": r.game },
            element("td", {}, GAME_TITLES[r.game] ?? r.game),
            element("td", { class: "number rating" }, ratingText(r.rating, r.provisional)),
            element("td", { class: "number" }, `${r.games}`),
            element("td", {}, points.length
              ? sparkline(points, `${GAME_TITLES[r.game] ?? r.game} ratings after the latest ${points.length} rated races: ${points.join(", ")}`)
              : ""));
        })))
      : element("p", { id: "ratings" }, "No rated races yet.");
    const stats = p.stats.length
      ? element("table", { id: "stats" },
        // A racer who solves the deal wins it, first or not (a race's place is in the recent races).
        element("thead", {}, element("tr", {}, ...["Game", "Races", "Deals won", "Fastest win"].map((h) => element("th", { scope: "col" }, h)))),
        element("tbody", {}, ...p.stats.map((s) => element("tr", { "data-game": s.game },
          element("td", {}, GAME_TITLES[s.game] ?? s.game),
          element("td", { class: "number" }, `${s.races}`),
          element("td", { class: "number" }, `${s.wins}`),
          element("td", { class: "number" }, s.best_ms != null ? seconds(s.best_ms) : "–")))))
      : element("p", { id: "stats" }, "No races yet.");
    const recent = p.recent.length
      ? element("table", { id: "recent" },
        element("thead", {}, element("tr", {}, ...["Ended (your time)", "Game", "Kind", "Place", "Result", "Rating", "See"].map((h) => element("th", { scope: "col" }, h)))),
        element("tbody", {}, ...p.recent.map((r) => {
          const what = `the ${GAME_TITLES[r.game] ?? r.game} race ended ${when(r.ended_at)}`;
          // Another's daily run comes without its race id until its day is closed: no links.
          const links = r.race_id
            ? [element("a", { href: `#/race/${r.race_id}`, class: "results-link", "aria-label": `results of ${what}` }, "Results"),
              " · ",
              element("a", { href: `#/replay/${r.race_id}`, class: "replay-link", "aria-label": `replay of ${what}` }, "Replay")]
            : [element("span", { class: "setting", title: "another's daily run opens once the day's last attempts are over" }, "once the day closes")];
          return element("tr", { "data-race": r.race_id },
            element("td", {}, when(r.ended_at)),
            element("td", {}, GAME_TITLES[r.game] ?? r.game),
            element("td", {}, r.practice ? "Practice" : r.daily ? "Daily" : r.rated ? "Rated" : "Casual"),
            element("td", {}, r.daily ? element("a", { href: `#/daily/${r.daily}` }, r.daily) : placeText(r.rank, r.racers, r.tied)),
            element("td", {}, standingResult(r.game, r)),
            element("td", { class: "number" }, r.rating_change != null ? changeText(r.rating_change) : ""),
            element("td", { class: "links" }, ...links));
        })))
      : element("p", { id: "recent" }, "No races yet.");
    app.replaceChildren(
      element("h1", { id: "profile-name", "data-title": `Profile of ${p.name}` }, `${p.name}${p.bot ? " 🤖" : ""}`),
      element("p", { id: "profile-account" },
        p.username ? `Account ${p.username}` : "Guest", p.bot ? " · a bot" : "", own ? " · this is you" : ""),
      element("section", { "aria-labelledby": "ratings-title" }, element("h2", { id: "ratings-title" }, "Ratings"), scrolling(ratings)),
      element("section", { "aria-labelledby": "stats-title" }, element("h2", { id: "stats-title" }, "Races by game"),
        element("p", { class: "setting", id: "stats-note" }, "Practice runs of a daily deal are listed among the recent races but not counted here."),
        scrolling(stats)),
      element("section", { "aria-labelledby": "recent-title" }, element("h2", { id: "recent-title" }, "Recent races"), scrolling(recent)),
      error);
  }

  // A profile that arrives once the page was left (another page, or another profile) is
  // not drawn over the page shown then.
  let gone = false;
  let unreached = false; // read with no connection: the next welcome (back after a drop) reads again
  function load() {
    unreached = false;
    showError(error, null);
    (playerId ? readingSession() : signIn())
      .then(async (player) => {
        if (gone) return;
        if (!player) { needsSession(app, "Profile"); return; }
        const reply = await profileOf(arena, playerId);
        if (!gone) draw(reply.profile);
      })
      .catch((failure) => { // nothing more is coming, unless the connection comes back
        if (gone) return;
        loading.remove();
        showError(error, failure);
        unreached = failure.code === "connection_lost";
      });
  }
  const stop = arena.on("welcome", () => { if (unreached && !gone) load(); });
  load();
  return () => { gone = true; stop(); };
}
