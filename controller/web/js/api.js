// Requests to the Pi: who is asking travels in headers (the seat token; the table PIN only while
// the host's session is being opened) or, for the host, in the HttpOnly session cookie the Pi
// sets; a request that hangs (a phone losing its Wi-Fi mid-request) is given up after a while.
import { $, say } from "./dom.js";
import { state } from "./state.js";

const GET_MS = 8000;
const POST_MS = 15000;

// The live stream cannot send headers: a cookie carries the seat token, for reading only.
export function keepSeatCookie() {
  if (state.seatToken) {
    document.cookie = "railtable_seat=" + encodeURIComponent(state.seatToken) + "; path=/; SameSite=Strict";
  }
}

export function forgetSeat(why) {
  state.seatToken = "";
  state.role = "spectator";
  state.seat = null;
  localStorage.removeItem("seatToken");
  document.cookie = "railtable_seat=; path=/; max-age=0";
  say(why);
}

export function headers() {
  const h = {"Content-Type": "application/json"};
  if (state.seatToken) h["X-Seat-Token"] = state.seatToken;
  const pin = $("pin").value.trim();  // typed, its session not open yet (not while locked out)
  if (pin && !state.pinLocked) h["X-Table-Pin"] = pin;
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
  if (r.status === 403 && state.seatToken && !$("pin").value) {
    const why = await detail(r);
    if (why.includes("seat link")) forgetSeat(why);
    return null;
  }
  return r.ok ? r.json() : null;
}

// A change: its answer as JSON, or null after saying what went wrong.
export async function post(path, body) {
  let r;
  try {
    r = await fetch(path, {method: "POST", headers: headers(), body: JSON.stringify(body || {}),
                           signal: timed(POST_MS)});
  } catch (e) {
    say("not sent: no connection to the table");
    return null;
  }
  if (!r.ok) { say(await detail(r)); return null; }
  return r.json();
}

// The host's session: the PIN typed once opens it, and the Pi sets its token as a cookie (HttpOnly:
// no script on the page can read it, so nothing here keeps it; it lasts across reloads). Resolves
// "host", "wrong", "wait" (with `waitS`, said in `why`) or "offline".
export async function openSession() {
  const pin = $("pin").value.trim();
  let r;
  try {
    r = await fetch("/api/host/session", {method: "POST", headers: {"X-Table-Pin": pin}, signal: timed(POST_MS)});
  } catch (e) {
    return {result: "offline", why: "not sent: no connection to the table"};
  }
  if (r.ok) return {result: "host"};
  const why = await detail(r);
  if (r.status === 429) return {result: "wait", why, waitS: Number(r.headers.get("Retry-After")) || 60};
  return {result: "wrong", why};
}

// End this phone's host session (the Pi forgets it and drops the cookie).
export async function endSession() {
  try { await fetch("/api/host/session", {method: "DELETE", signal: timed(POST_MS)}); }
  catch (e) { say("not sent: no connection to the table"); }
}

// A picture or a file (QR code, camera view, game record): the response, or null after saying why.
export async function fetchFile(path) {
  let r;
  try { r = await fetch(path, {headers: headers(), signal: timed(GET_MS)}); }
  catch (e) { say("no connection to the table"); return null; }
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
