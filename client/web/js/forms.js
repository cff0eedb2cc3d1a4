// Checking a form's fields before anything is sent: the server's own limits, each broken
// one said in plain words in a note beside its field (named by the field's
// aria-describedby), the first bad field focused. What only the server can know (a name
// taken, a wrong password) stays the server's to say.

// The server's limits (tests/web/test_forms.py checks them against the Python).
export const LIMITS = {
  nameMax: 24, // a guest's name: shared/protocol/base.py NAME_MAX
  usernameMin: 3, // shared/usernames.py USERNAME_MIN
  usernameMax: 20, // shared/usernames.py USERNAME_MAX
  loginUsernameMax: 64, // shared/protocol/accounts.py Username
  passwordMin: 8, // shared/protocol/accounts.py PASSWORD_MIN
  passwordMax: 128, // shared/protocol/accounts.py PASSWORD_MAX
  seatsMin: 2, // shared/protocol/lobby.py CreateRace.seats
  seatsMax: 8,
  codeMin: 4, // shared/protocol/lobby.py JoinRace.code
  codeMax: 12,
  moveMax: 32, // shared/protocol/racing.py MakeMove.move
};

// Characters as the server counts them (code points of the NFC text).
const length = (text) => [...text.normalize("NFC")].length;

// ----- the rules: each gives what is wrong with a value, or null ------------------------

// A guest's name (shared/protocol/base.py check_name), as typed: it is sent trimmed.
export function nameProblem(value) {
  const name = value.trim().normalize("NFC");
  if (!name) return "Choose a name first.";
  if (length(name) > LIMITS.nameMax) return `A name has 1 to ${LIMITS.nameMax} characters.`;
  if (!/^[\p{L}\p{N}][\p{L}\p{N}\p{Mn}\p{Mc} _.-]*$/u.test(name)) {
    return "A name starts with a letter or digit and has only letters, digits, spaces, _ . and -.";
  }
  return charactersProblem(name, "name");
}

// What a name and a username share (shared/name_chars.py): no character that draws
// nothing, and each combining mark after a letter, at most three on one.
function charactersProblem(name, what) {
  const blank = name.match(/\p{Default_Ignorable_Code_Point}/u);
  if (blank) return `A ${what} has no characters that draw nothing, such as U+${blank[0].codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}.`;
  if (/(^|[^\p{L}\p{Mn}\p{Mc}])[\p{Mn}\p{Mc}]/u.test(name)) {
    return "A combining mark goes after a letter, not at the start or after a digit, space or sign.";
  }
  if (/[\p{Mn}\p{Mc}]{4,}/u.test(name)) return "A letter carries at most 3 combining marks.";
  return null;
}

// A new username (shared/usernames.py check_username). One script only (no Latin and
// Cyrillic mixed) is the server's to check: its reason says so.
export function usernameProblem(value) {
  const name = value.trim().normalize("NFC");
  if (!name) return "Choose a username.";
  if (length(name) < LIMITS.usernameMin || length(name) > LIMITS.usernameMax) {
    return `A username has ${LIMITS.usernameMin} to ${LIMITS.usernameMax} characters.`;
  }
  // (々 ゝ ゞ ー ヽ ヾ: the marks of Japanese writing that are letters of no one script;
  // ・, the middle dot that parts a Japanese name's words.)
  const odd = [...name].find((c) => !/[\p{Lu}\p{Ll}\p{Lt}\p{Lo}\p{Nd}\p{Mn}\p{Mc}_\u3005\u309d\u309e\u30fb-\u30fe-]/u.test(c));
  if (odd !== undefined) {
    return `A username has only letters, digits, _ and -: ${odd === " " ? "no spaces" : `not “${odd}”`}.`;
  }
  if (!/[\p{Lu}\p{Ll}\p{Lt}\p{Lo}]/u.test(name)) return "A username needs at least one letter.";
  return dotProblem(name) ?? charactersProblem(name, "username");
}

// Each ・ of a username stands between two Japanese letters (kana or han).
function dotProblem(name) {
  const chars = [...name];
  const japanese = (c) => c !== undefined && c !== "\u30fb" && /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u.test(c);
  const stray = chars.some((c, i) => c === "\u30fb" && !(japanese(chars[i - 1]) && japanese(chars[i + 1])));
  return stray ? "A username's ・ goes between two Japanese words." : null;
}

// The username to log in with: any the server may know (it checks the rest).
export function loginUsernameProblem(value) {
  const name = value.trim();
  if (!name) return "Enter your username.";
  if (length(name) > LIMITS.loginUsernameMax) return `A username has at most ${LIMITS.loginUsernameMax} characters.`;
  return null;
}

// A password already chosen (to log in, or the current one when changing it).
export function enteredPasswordProblem(value) {
  if (!value) return "Enter your password.";
  if (length(value) > LIMITS.passwordMax) return `A password has at most ${LIMITS.passwordMax} characters.`;
  return null;
}

// A new password for `username` (shared/password_rules.py check_password; its list of
// the most common passwords is the server's to check: its reason says so).
export function newPasswordProblem(value, username = "") {
  if (length(value) < LIMITS.passwordMin || length(value) > LIMITS.passwordMax) {
    return `A password has ${LIMITS.passwordMin} to ${LIMITS.passwordMax} characters.`;
  }
  const folded = value.toLowerCase();
  if (username && folded.includes(username.toLowerCase())) return "A password does not hold the username.";
  if (new Set(folded).size <= 1) return "A password is not one character repeated.";
  return null;
}

export function seatsProblem(value) {
  const seats = Number(value);
  const whole = value.trim() !== "" && Number.isInteger(seats);
  return whole && seats >= LIMITS.seatsMin && seats <= LIMITS.seatsMax ? null
    : `A race has ${LIMITS.seatsMin} to ${LIMITS.seatsMax} seats.`;
}

// A race code to join with, as typed (sent trimmed).
export function codeProblem(value) {
  const pattern = new RegExp(`^[A-Za-z0-9]{${LIMITS.codeMin},${LIMITS.codeMax}}$`);
  return pattern.test(value.trim()) ? null : `A race code is ${LIMITS.codeMin} to ${LIMITS.codeMax} letters or digits.`;
}

// ----- the notes ------------------------------------------------------------------------

const rules = new WeakMap(); // input -> its rule

// The note of `input` (an element to place beside it), checked by `rule`: the field's
// aria-describedby names it, so a screen reader reads it with the field, and it is
// announced when it changes. Once a field was found bad, each edit checks it again.
export function noteFor(input, rule) {
  const note = document.createElement("span");
  note.id = `${input.id}-note`;
  note.className = "field-note";
  note.setAttribute("aria-live", "polite");
  const described = input.getAttribute("aria-describedby");
  input.setAttribute("aria-describedby", described ? `${described} ${note.id}` : note.id);
  rules.set(input, rule);
  input.addEventListener("input", () => { if (input.getAttribute("aria-invalid")) show(input, note); });
  return note;
}

function show(input, note = document.getElementById(`${input.id}-note`)) {
  const problem = rules.get(input)(input.value);
  if (note) note.textContent = problem ?? "";
  if (problem) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
  input.setCustomValidity(problem ?? "");
  return problem;
}

// Check `inputs` (each given a rule by noteFor) in order: every note says what is wrong
// with its field or nothing, and the first bad field gets the focus. True when all are
// good: only then may the form send.
export function checkFields(inputs) {
  const bad = inputs.filter((input) => show(input) !== null);
  bad[0]?.focus();
  return bad.length === 0;
}

// Forget what the notes of `inputs` said (a field no longer asked for).
export function clearFields(inputs) {
  for (const input of inputs) {
    const note = document.getElementById(`${input.id}-note`);
    if (note) note.textContent = "";
    input.removeAttribute("aria-invalid");
    input.setCustomValidity("");
  }
}
