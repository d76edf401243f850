// The phone page: the one state, fed by the live stream (rows and the asker's whole view after
// each round) and by /api/status (who you are, the inputs' health), and one redraw per change.
import { claimSeat, forgetSeat, get, keepSeatCookie, lookOf, post } from "./api.js";
import { counted, drawBoard, drawCloseUp } from "./board.js";
import { drawComputers, drawHint } from "./computer.js";
import { $, html, playersOf } from "./dom.js";
import {
  confirmFirst, drawCodes, drawHealth, drawNames, drawSession, followGame, setUpHost, showGames,
} from "./host.js";
import {
  addEvent, drawFinished, drawHeader, drawMine, drawScores, drawVerdict, gameOf, hidesQuestion,
  setUpSound, signal,
} from "./panels.js";
import { replay, setUpReplay } from "./replay.js";
import { state } from "./state.js";
import { showStore } from "./store.js";
import { connect, follow } from "./stream.js";
import { setUpLanguage, tr } from "./words.js";

const LOOK_RETRY_MS = 5000;
const STARTING_RETRY_MS = 1000;  // /api/status asked again this soon while the table starts
const STATUS_ROWS = new Set(["input", "start", "end"]);  // rows after which /api/status may differ

// ---- one redraw for whatever changed since the last (the newest state wins)
let pending = false;
function schedule() {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    try { draw(); } catch (e) { console.error("drawing:", e); }
  }, 0);
}

function draw() {
  drawHeader(state);
  drawHealth(state);
  drawSession(state);
  if (!state.view) return;
  const cue = drawVerdict(state, answer);
  if (cue && cue !== state.cue) signal();
  state.cue = cue;
  drawMat();
  const g = gameOf(state);
  drawScores(state, g ? lookFor(g.name) : null, closeUp);
  drawMine(state, act);
  drawFinished(state);
  // No game open: no empty board or scores; on the end screen, no verdict saying it again.
  $("board-part").hidden = !state.view.table;
  $("scores-part").hidden = !state.view.state;
  $("verdict").hidden = Boolean(!g && state.view.finished);
  drawNames(state);
  drawCodes(state);
  drawComputers(state);
  drawHint(state);
  followGame(state);
  drawJoin();
}

// ---- a place or a card seen close (tapped on the board or in a hand)
function closeUp(loc, pieces, goods = null) {
  const g = gameOf(state);
  const look = g ? state.looks[g.name] : null;
  $("close-up-h").textContent = loc.place ? loc.place.charAt(0).toUpperCase() + loc.place.slice(1) : tr("This card");
  drawCloseUp($("close-up-mat"), loc, pieces, look, goods);
  const said = [counted(pieces.map((p) => p.label)), goods ? goods.words : ""].filter(Boolean).join("; ");
  $("close-up-words").textContent = said ? said.charAt(0).toUpperCase() + said.slice(1) + "." : tr("Nothing lies here.");
  $("close-up").showModal();
}

// ---- a phone that came by its seat's link: who is playing here?
let joinAsked = false;
let colour = null;
function drawJoin() {
  const g = gameOf(state);
  const me = state.role === "seat" ? playersOf(state)[state.seat] : null;
  const ask = Boolean(g && state.joined && me && !joinAsked);  // not on a game's end screen
  $("join").hidden = !ask;
  if (!ask || $("join").dataset.shown) return;
  $("join").dataset.shown = "1";
  $("join-name").value = /^Player \d+$/.test(me.name) ? "" : me.name;
  $("join-name").placeholder = me.name;
  const box = $("join-colours");
  box.replaceChildren();
  colour = null;
  for (const c of g.colours || []) {
    const b = html("button", {class: "colour", role: "radio", "aria-checked": String(c === me.colour),
                              style: `--c: var(--${c})`}, c);
    b.onclick = () => {
      colour = c;
      box.querySelectorAll("button").forEach((x) => x.setAttribute("aria-checked", String(x === b)));
    };
    box.appendChild(b);
  }
  if (!(g.colours || []).length) box.appendChild(html("p", {class: "hint"}, tr("Your colour is your pieces': {colour}.", {colour: me.colour})));
}

async function join() {
  const me = playersOf(state)[state.seat];
  const name = $("join-name").value.trim() || (me ? me.name : "");
  const body = colour ? {name, colour} : {name};
  if (await post(`/api/seats/${state.seat}/player`, body)) {
    joinAsked = true;
    $("join").hidden = true;
  }
}

let drawn = {table: null, look: null};  // what the mat shows, so that an unchanged one is kept
function drawMat() {
  const g = gameOf(state);
  const table = state.view.table;
  const look = g ? lookFor(g.name) : null;
  if (table && look === undefined) return;  // drawn once the game's look came
  const text = JSON.stringify(table);
  if (text === drawn.table && look === drawn.look) return;
  drawn = {table: text, look};
  drawBoard($("mat"), table, look, $("words-list"), closeUp);
}

// The game's look: asked once; undefined until it came.
const asking = new Set();
function lookFor(name) {
  const look = state.looks[name];
  if ((look === undefined || look.retryAt < Date.now()) && !asking.has(name)) {
    asking.add(name);
    lookOf(name).then((found) => {
      asking.delete(name);
      state.looks[name] = found || {pieces: {}, retryAt: Date.now() + LOOK_RETRY_MS};
      schedule();
    });
  }
  return look;
}

// ---- what comes in
let statusAsked = 0;
let statusShown = 0;
async function askStatus() {
  const n = ++statusAsked;
  const s = await get("/api/status");
  if (!s || n < statusShown) return;  // an older answer than the one shown
  statusShown = n;
  if (s.starting) {  // the table restarting (this page came before): say so, ask again soon
    $("verdict").hidden = false;
    $("verdict").textContent = "The table is starting…";
    $("verdict").className = "";
    setTimeout(askStatus, STARTING_RETRY_MS);
    return;
  }
  state.health = s;
  showStore(s.store);
  state.role = s.you.role;
  state.seat = s.you.role === "seat" ? s.you.seat : null;
  askHostVerdict();
  schedule();
}

// The stream's view hides a seat's question from everyone else; a host whose stream is not its
// own (by the PIN alone, which a stream cannot carry; its session's cookie it can) asks for its
// own verdict, once per view.
async function askHostVerdict() {
  const view = state.view;
  if (state.role !== "host" || !view || !hidesQuestion(view)) return;
  if (state.hostVerdict && state.hostVerdict.version === view.version) return;
  state.hostVerdict = {version: view.version, verdict: view.verdict};
  const verdict = await get("/api/verdict");
  if (verdict && state.hostVerdict.version === view.version) {
    state.hostVerdict = {version: view.version, verdict};
    schedule();
  }
}

function onRow(event) {
  addEvent(event, state);
  if (STATUS_ROWS.has(event.kind)) askStatus();
}

function onView(view) {
  state.view = view;
  showStore(view.store);
  askHostVerdict();
  schedule();
}

function lost() {
  askStatus();  // a seat's stream also ends when another phone took the seat over: who am I now?
  $("verdict").hidden = false;
  $("verdict").textContent = tr("Reconnecting…");
  $("verdict").className = "";
}

// ---- what goes out (the stream brings what follows)
const act = (action) => post("/api/actions", {action});
const answer = (option) => post("/api/answer", {option});

// ---- start
async function start() {
  let kinds = null;
  let events = null;
  while (!kinds) {
    [kinds, events] = await Promise.all([get("/api/events/kinds"), get("/api/events")]);
    if (!kinds) await new Promise((done) => setTimeout(done, 2000));
  }
  state.kinds = kinds;
  if (events) events.slice(-60).forEach((e) => addEvent(e, state));
  if (events && events.length) state.lastRow = events[events.length - 1].id;
  follow({row: onRow, view: onView, lost});
}

// A seat's link opened on this phone: it holds the seat, unless another phone does and the person
// here would rather not take it over (then this phone watches).
async function takeSeat() {
  const got = await claimSeat(false);
  if (!got || got.result === "held") return;
  const yes = await confirmFirst(tr("Take over this seat?"), tr("This seat is {phone}'s phone. Take it over?", {phone: got.by}),
                                 tr("Take it over"), tr("No, just watch"));
  if (yes) {
    await claimSeat(true);
  } else {
    forgetSeat(tr("you are watching: the seat stays on {phone}'s phone", {phone: got.by}));
  }
}

keepSeatCookie();
setUpLanguage($("language"));
setUpSound();
setUpHost(state, askStatus, () => { askStatus(); connect(); });
setUpReplay();
$("join-ok").onclick = join;
$("again").onclick = () => {
  const f = state.view && state.view.finished;
  if (f) post("/api/games", {game: f.game, options: f.options});
};
$("watch").onclick = () => {
  const f = state.view && state.view.finished;
  if (!f) return;
  $("history").open = true;
  replay(f.id, f.game, 0);
  $("history").scrollIntoView();
};
get("/api/games/available").then((games) => {
  state.games = games || [];
  showGames(state);
  schedule();
});
window.addEventListener("online", () => { connect(); askStatus(); });
// A phone that slept: the browser may have dropped the stream without telling; catch up now.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") { connect(); askStatus(); }
});
takeSeat().then(() => { askStatus(); start(); });
