// Requests to the Pi: who is asking travels in headers (the seat token and this phone's id; the
// table PIN typed, with what the person does until the host's session is open) or, for the host, in the HttpOnly session cookie the Pi
// sets; a request that hangs (a phone losing its Wi-Fi mid-request) is given up after a while.
import { $, say } from "./dom.js";
import { state } from "./state.js";
import { tr } from "./words.js";

const GET_MS = 8000;
const POST_MS = 15000;

// The live stream cannot send headers: a cookie carries the seat token, for reading only.
export function keepSeatCookie() {
  if (state.seatToken) {
    document.cookie = "railtable_seat=" + encodeURIComponent(state.seatToken) + "; path=/; SameSite=Strict";
    document.cookie = "railtable_phone=" + state.phone + "; path=/; SameSite=Strict";
  }
}

const TAKEN = "another phone took over this seat";  // the table's refusal (controller/api/deps.py)

// This phone holds the seat of its link: resolves "held", "asked" (another phone holds it:
// `by` names its player) or null (no seat, offline, a stale link: said by get and post).
export async function claimSeat(takeOver) {
  if (!state.seatToken) return null;
  let r;
  try {
    r = await fetch("/api/seats/claim", {method: "POST", headers: headers(),
                                          body: JSON.stringify({take_over: takeOver}), signal: timed(POST_MS)});
  } catch (e) { return null; }
  if (r.status === 403) { forgetSeat(await detail(r)); return null; }
  if (!r.ok) return null;
  const got = await r.json();
  return got.held ? {result: "held"} : {result: "asked", by: got.by};
}

export function forgetSeat(why) {
  state.seatToken = "";
  state.role = "spectator";
  state.seat = null;
  localStorage.removeItem("seatToken");
  document.cookie = "railtable_seat=; path=/; max-age=0";
  say(why, true);  // it stays: a phone no longer a player's says so until something else is said
}

export function headers(act = false) {
  const h = {"Content-Type": "application/json"};
  if (state.seatToken) h["X-Seat-Token"] = state.seatToken;
  if (state.phone) h["X-Phone"] = state.phone;
  // The PIN typed goes with what the person does (before its session is open), never with the
  // page's own reading: each of those carrying a wrong one counted as one more wrong PIN.
  const pin = $("pin").value.trim();
  if (act && pin && !state.pinLocked && state.role !== "host") h["X-Table-Pin"] = pin;
  return h;
}

function timed(ms) {
  const control = new AbortController();
  setTimeout(() => control.abort(), ms);
  return control.signal;
}

async function detail(r) {
  try { return (await r.json()).detail || r.statusText; } catch (e) { return r.statusText; }
}

// JSON, or null when it failed (offline, refused, or nothing there).
export async function get(path) {
  let r;
  try { r = await fetch(path, {headers: headers(), signal: timed(GET_MS)}); }
  catch (e) { return null; }
  if (r.status === 403 && state.seatToken) {
    const why = await detail(r);
    if (why === TAKEN) forgetSeat(takenWords());
    else if (why.includes("seat link")) forgetSeat(why);
    return null;
  }
  return r.ok ? r.json() : null;
}

let opening = null;  // the host session being opened, while it is

// A change: its answer as JSON, or null after saying what went wrong. A change asked while the PIN
// just typed is still being checked waits for that check (leaving the PIN box for a host's button
// both sends the PIN and presses the button).
export async function post(path, body) {
  if (opening) await opening;
  let r;
  try {
    r = await fetch(path, {method: "POST", headers: headers(true), body: JSON.stringify(body || {}),
                           signal: timed(POST_MS)});
  } catch (e) {
    say(tr("not sent: no connection to the table"));
    return null;
  }
  if (!r.ok) {
    const why = await detail(r);
    if (r.status === 403 && why === TAKEN) forgetSeat(takenWords());
    else say(why);
    return null;
  }
  return r.json();
}

// "Another phone took over Ann's seat", by the player's name while this phone still knows it.
function takenWords() {
  const seats = (state.view && state.view.game && state.view.game.seats) || [];
  const p = seats[state.seat];
  return p ? tr("another phone took over {player}'s seat: this phone watches the game now", {player: p.name}) :
    tr("another phone took over this seat: this phone watches the game now");
}

// The host's session: the PIN typed once opens it, and the Pi sets its token as a cookie (HttpOnly:
// no script on the page can read it, so nothing here keeps it; it lasts across reloads). Resolves
// "host", "wrong", "wait" (with `waitS`, said in `why`) or "offline".
export function openSession() {
  const asked = askSession();
  opening = asked;
  asked.finally(() => { if (opening === asked) opening = null; });
  return asked;
}

async function askSession() {
  const pin = $("pin").value.trim();
  let r;
  try {
    r = await fetch("/api/host/session", {method: "POST", headers: {"X-Table-Pin": pin}, signal: timed(POST_MS)});
  } catch (e) {
    return {result: "offline", why: tr("not sent: no connection to the table")};
  }
  if (r.ok) return {result: "host"};
  const why = await detail(r);
  if (r.status === 429) return {result: "wait", why, waitS: Number(r.headers.get("Retry-After")) || 60};
  return {result: "wrong", why};
}

// End this phone's host session (the Pi forgets it and drops the cookie).
export async function endSession() {
  try { await fetch("/api/host/session", {method: "DELETE", signal: timed(POST_MS)}); }
  catch (e) { say(tr("not sent: no connection to the table")); }
}

// A picture or a file (QR code, camera view, game record): the response, or null after saying why.
export async function fetchFile(path) {
  let r;
  try { r = await fetch(path, {headers: headers(), signal: timed(GET_MS)}); }
  catch (e) { say(tr("no connection to the table")); return null; }
  if (!r.ok) { say(await detail(r)); return null; }
  return r;
}

// How a game's pieces are drawn (GET /api/games/{name}/look): asked once per game, or null when
// it could not be had (asked again next time).
const looks = new Map();
export function lookOf(game) {
  if (!looks.has(game)) {
    looks.set(game, get(`/api/games/${encodeURIComponent(game)}/look`).then((look) => {
      if (!look) looks.delete(game);
      return look;
    }));
  }
  return looks.get(game);
}
