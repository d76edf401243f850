// The host's controls (with the table PIN, then a host session): a new game with its options, end,
// undo, accept the table, the seats' QR codes; and the camera and sensors panel: health, camera
// view, calibration.
import { endSession, fetchFile, openSession, post } from "./api.js";
import { $, html, playerName, playersOf } from "./dom.js";
import { gameOf } from "./panels.js";
import { ntr, tr } from "./words.js";

// Ask before what cannot be taken back; resolves true on "yes".
export function confirmFirst(title, words, yes, no = tr("Keep playing")) {
  const dialog = $("confirm");
  $("confirm-h").textContent = title;
  $("confirm-words").textContent = words;
  $("confirm-yes").textContent = yes;
  $("confirm-no").textContent = no;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((done) => { dialog.onclose = () => done(dialog.returnValue === "yes"); });
}

const CAMERA_MS = 2000;  // the camera view, while shown
const HEALTH_MS = 5000;  // the inputs' health, while the panel is open

function chosenGame(state) {
  return state.games.find((g) => g.name === $("game").value);
}

// The chosen game's options as a short form (the players, and what changes how the table is
// played), the rest folded under "More options"; an option that means nothing for the chosen
// number of players (a solo rule in a game of 3) is not shown, nor sent.
function showOptions(state) {
  const game = chosenGame(state);
  const box = $("game-options");
  box.replaceChildren();
  if (!game) return;
  const more = html("details", {id: "more-options"});
  more.appendChild(html("summary", {}, tr("More options")));
  for (const o of game.options) {
    const label = html("label", {class: "opt", "data-option": o.name}, (o.label || o.name) + " ");
    const values = o.choices || o.offered;
    let input;
    if (values && values.every((c) => typeof c === "boolean")) {
      input = html("input", {type: "checkbox", id: "opt-" + o.name});
      input.checked = o.default;
      label.classList.add("check");
    } else if (values) {
      input = html("select", {id: "opt-" + o.name});
      values.forEach((c, i) => input.appendChild(
        html("option", {value: JSON.stringify(c)}, (o.choices_words && o.choices_words[i]) || String(c))));
      input.value = JSON.stringify(o.default);
    } else {
      input = html("input", {id: "opt-" + o.name, value: String(o.default),
                             inputmode: typeof o.default === "number" ? "numeric" : "text"});
    }
    input.dataset.kind = typeof o.default;
    label.appendChild(input);
    if (o.help) label.appendChild(html("span", {class: "hint"}, o.help));
    (o.main ? box : more).appendChild(label);
  }
  if (more.children.length > 1) box.appendChild(more);
  box.addEventListener("change", () => fitPlayers(state));
  fitPlayers(state);
}

function playersChosen(game) {
  const players = $("opt-players");
  return players ? JSON.parse(players.value) : game.min_players;
}

// An option's current value in the form (checkbox, drop-down or text).
function optionValue(input) {
  if (input.type === "checkbox") return input.checked;
  if (input.tagName === "SELECT") return JSON.parse(input.value);
  return input.dataset.kind === "number" ? Number(input.value) : input.value;
}

// Whether an option means anything with the player count and the other options chosen.
function applies(o, count) {
  if (o.players && !o.players.includes(count)) return false;
  if (!o.needs) return true;
  const other = $("opt-" + o.needs.option);
  return Boolean(other) && optionValue(other) === o.needs.value;
}

// Only the options for as many players as chosen, and for the variants chosen, are shown.
function fitPlayers(state) {
  const game = chosenGame(state);
  if (!game) return;
  const count = playersChosen(game);
  for (const o of game.options) {
    const label = document.querySelector(`#game-options [data-option="${o.name}"]`);
    if (label) label.hidden = !applies(o, count);
  }
}

function chosenOptions(state) {
  const game = chosenGame(state);
  const options = {};
  const count = game ? playersChosen(game) : 0;
  for (const o of game ? game.options : []) {
    if (!applies(o, count)) continue;  // the rules' default, unasked
    options[o.name] = optionValue($("opt-" + o.name));
  }
  return options;
}

// The games this table can referee, in the host's list.
export function showGames(state) {
  for (const id of ["game", "game-options"]) {
    $(id).addEventListener("input", () => { touched = true; });
    $(id).addEventListener("change", () => { touched = true; });
  }
  for (const g of state.games) {
    $("game").appendChild(html("option", {value: g.name},
      tr("{game} ({least}-{most} players)", {game: g.title, least: g.min_players, most: g.max_players})));
  }
  showOptions(state);
}

// The new-game form follows the game on the table (or the one just over): "Start a new game"
// starts the same game for as many players unless the host picks otherwise.
// Once the host has touched the form, it is theirs until another game is on the table: a stream
// snapshot arriving late never undoes what they chose.
let followed = null;
let touched = false;
export function followGame(state) {
  const g = gameOf(state) || (state.view && state.view.finished
    ? {id: "f" + state.view.finished.id, name: state.view.finished.game, players: state.view.finished.players.length}
    : null);
  if (!g || followed === g.id || !state.games.some((x) => x.name === g.name)) return;
  const first = followed === null;
  followed = g.id;
  if (touched && first) return;
  touched = false;
  $("game").value = g.name;
  showOptions(state);
  const players = $("opt-players");
  if (players && [...players.options].some((o) => o.value === String(g.players))) players.value = String(g.players);
  fitPlayers(state);
}

async function showQr(state) {
  const box = $("codes");
  box.replaceChildren();
  const g = gameOf(state);
  const players = g ? g.players : 0;
  box.dataset.game = g ? String(g.id) : "";
  for (let seat = 0; seat < players; seat++) {
    const r = await fetchFile(`/api/seats/${seat}/qr`);
    if (!r) return;
    const figure = html("figure", {"data-seat": String(seat)});
    figure.innerHTML = await r.text();
    figure.appendChild(html("figcaption", {}));
    box.appendChild(figure);
  }
  drawCodes(state);
}

// The seats' codes carry the names their players joined by ("Ann: scan to join"), and go when
// their game ends (a code joins only the game it was made for).
export function drawCodes(state) {
  const box = $("codes");
  if (!box.children.length) return;
  const g = gameOf(state);
  if (!g || String(g.id) !== box.dataset.game) { box.replaceChildren(); return; }
  for (const figure of box.children) {
    const name = playerName(state, Number(figure.dataset.seat));
    const svg = figure.querySelector("svg");
    if (svg) { svg.setAttribute("role", "img"); svg.setAttribute("aria-label", tr("QR code for {player}", {player: name})); }
    const caption = figure.querySelector("figcaption");
    const scan = tr("{player}: scan to join", {player: name});
    if (caption.textContent !== scan) caption.textContent = scan;
  }
}

async function showCamera() {
  const r = await fetchFile("/api/camera.jpg");
  if (!r) return false;
  const img = $("camera-img");
  const old = img.src;
  img.src = URL.createObjectURL(await r.blob());
  if (old) URL.revokeObjectURL(old);
  img.hidden = false;
  return true;
}

// The camera's and the sensor board's health, with their reasons in words.
export function drawHealth(state) {
  const game = gameOf(state);  // a game started with a seed: its draws are predictable (a demo)
  $("demo-seed").hidden = !(game && game.reproducible_seed);
  const s = state.health;
  if (!s) return;
  for (const k of ["camera", "board"]) {
    if (!s[k]) continue;  // a table that does not say (the API's test stand-in)
    const ok = ["calibrated", "connected", "simulated"].includes(s[k].state);
    $(k).textContent = s[k].state;
    $(k).className = "badge " + (ok ? "ok" : (["none", "waiting"].includes(s[k].state) ? "" : "bad"));
    const detail = s[k].detail || "";  // said once: "calibrated; 4 of 4 …" after the badge "calibrated"
    $(k + "-detail").textContent = detail.startsWith(s[k].state) ? detail.slice(s[k].state.length).replace(/^[;:,]\s*/, "") : detail;
  }
  const g = s.gpio;  // "degraded": the pins could not be opened, and its detail says what to do
  $("gpio").textContent = !g ? "" : g.state === "degraded" ? tr("not working: {why}", {why: g.detail}) : g.state === "none" ? tr("none wired") :
    wired(g);
}

// The wired pins, said whole: how many seat buttons and lights.
function wired(g) {
  const buttons = ntr("{count} seat button", "{count} seat buttons", g.seat_buttons);
  const lights = ntr("{count} seat light", "{count} seat lights", g.seat_leds);
  return tr("pins {pins}, {buttons}, {lights}", {pins: g.pins, buttons, lights});
}

const PIN_RETRY_MS = 5000;  // while locked out, the PIN is tried again this often (not counted)
let pinTimer = null;

// The PIN typed: it opens a host session for this phone (then the field is emptied: the cookie
// carries the session). While wrong PINs lock the table, say why and for how long, counting down,
// and try again now and then (a try in a lock-out is not counted), so that a press of the table's
// button lets the host in within seconds.
async function enterPin(state, rejoin) {
  clearInterval(pinTimer);
  const why = $("pin-why");
  const shown = (words) => {
    why.hidden = false;
    why.textContent = words.charAt(0).toUpperCase() + words.slice(1);
    why.scrollIntoView({block: "nearest"});
  };
  if (!$("pin").value.trim()) { shown(tr("type the table PIN first")); return; }
  const got = await openSession();
  state.pinLocked = got.result === "wait";
  if (got.result === "host") {
    $("pin").value = "";
    why.hidden = true;
    rejoin();
    return;
  }
  shown(got.why);
  if (got.result !== "wait") { $("pin").select(); return; }
  const until = Date.now() + got.waitS * 1000;
  const tried = Date.now();
  pinTimer = setInterval(() => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    why.textContent = why.textContent.replace(/in \d+ s/, `in ${left} s`);
    if (left === 0 || Date.now() - tried >= PIN_RETRY_MS) enterPin(state, rejoin);
  }, 1000);
}

// Whether this phone holds the host's session, and the button that ends it.
export function drawSession(state) {
  const host = state.role === "host";
  $("session").hidden = !host;
  $("pin-entry").hidden = host;
  if (host) $("session-words").textContent = tr("This phone is the host (its session lasts across reloads until ended here, or 12 h unused).");
}

// `askStatus` fetches /api/status anew (the role, once the PIN is typed; the inputs' health);
// `rejoin` does that and opens the stream anew, as whoever this phone now is.
export function setUpHost(state, askStatus, rejoin) {
  $("game").onchange = () => showOptions(state);
  // Taken when the field is left, on Enter, or by the button (once, though leaving the field
  // for the button does both).
  let tried = {pin: "", at: 0};
  const typed = (e) => {
    const pin = $("pin").value.trim();
    if (!pin && e.type === "change") { $("pin-why").hidden = true; return; }  // emptied
    if (pin && pin === tried.pin && Date.now() - tried.at < 2000) return;
    tried = {pin, at: Date.now()};
    enterPin(state, rejoin);
  };
  $("pin").onchange = typed;
  $("pin").onkeydown = (e) => { if (e.key === "Enter") typed(e); };
  $("pin-ok").onclick = typed;
  $("end-session").onclick = async () => { await endSession(); rejoin(); };
  $("start").onclick = async () => {
    if (gameOf(state) && !(await confirmFirst(tr("Start a new game?"), tr("The game being played ends now, with the scores as they stand."),
                                                tr("Start a new game")))) return;
    post("/api/games", {game: $("game").value, options: chosenOptions(state)});
  };
  $("end").onclick = async () => {
    if (!(await confirmFirst(tr("End this game?"), tr("The scores as they stand become final; the game cannot be played on."),
                                tr("End the game")))) return;
    post("/api/games/current/end");
  };
  $("undo").onclick = async () => {
    if (!(await confirmFirst(tr("Take back the last move?"), tr("The table then shows what to put back."), tr("Take it back")))) return;
    post("/api/undo", {count: 1});
  };
  $("accept").onclick = () => post("/api/table/accept");
  $("qr").onclick = () => showQr(state);
  let cameraTimer = null;
  $("camera-view").onclick = async () => {
    clearInterval(cameraTimer);
    if (await showCamera()) cameraTimer = setInterval(async () => {
      if (!$("camera-panel").open || !(await showCamera())) clearInterval(cameraTimer);
      askStatus();
    }, CAMERA_MS);
  };
  $("calibrate").onclick = async () => {
    if (await post("/api/camera/calibrate")) $("camera-detail").textContent = tr("looking for the corner markers…");
  };
  let healthTimer = null;
  $("camera-panel").ontoggle = () => {
    clearInterval(healthTimer);
    if (!$("camera-panel").open) return;
    askStatus();
    healthTimer = setInterval(askStatus, HEALTH_MS);
  };
}

// The host names the players (each phone may name its own player too).
export function drawNames(state) {
  const box = $("names");
  const players = playersOf(state);
  const key = JSON.stringify(players.map((p) => p.name));
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren();
  for (const p of players) {
    const label = html("label", {class: "opt"}, tr("Player {number}", {number: p.seat + 1}) + " ");
    const input = html("input", {value: p.name, maxlength: "20", "data-seat": String(p.seat)});
    input.onchange = () => post(`/api/seats/${p.seat}/player`, {name: input.value});
    label.appendChild(input);
    box.appendChild(label);
  }
}
