// The host's controls (with the table PIN): a new game with its options, end, undo, accept the
// table, the seats' QR codes; and the camera and sensors panel: health, camera view, calibration.
import { fetchFile, post } from "./api.js";
import { $, html } from "./dom.js";
import { gameOf } from "./panels.js";

const CAMERA_MS = 2000;  // the camera view, while shown
const HEALTH_MS = 5000;  // the inputs' health, while the panel is open

function chosenGame(state) {
  return state.games.find((g) => g.name === $("game").value);
}

function showOptions(state) {
  const game = chosenGame(state);
  const box = $("game-options");
  box.replaceChildren();
  if (!game) return;
  for (const o of game.options) {
    const label = html("label", {class: "opt"}, o.name.replaceAll("_", " ") + " ");
    let input;
    if (o.choices && o.choices.every((c) => typeof c === "boolean")) {
      input = html("input", {type: "checkbox", id: "opt-" + o.name});
      input.checked = o.default;
    } else if (o.choices) {
      input = html("select", {id: "opt-" + o.name});
      for (const c of o.choices) input.appendChild(html("option", {value: JSON.stringify(c)}, String(c)));
      input.value = JSON.stringify(o.default);
    } else {
      input = html("input", {id: "opt-" + o.name, value: String(o.default),
                             inputmode: typeof o.default === "number" ? "numeric" : "text"});
    }
    input.dataset.kind = typeof o.default;
    label.appendChild(input);
    if (o.doc) label.appendChild(html("span", {class: "hint"}, " " + o.doc));
    box.appendChild(label);
  }
}

function chosenOptions(state) {
  const game = chosenGame(state);
  const options = {};
  for (const o of game ? game.options : []) {
    const input = $("opt-" + o.name);
    if (input.type === "checkbox") options[o.name] = input.checked;
    else if (input.tagName === "SELECT") options[o.name] = JSON.parse(input.value);
    else options[o.name] = input.dataset.kind === "number" ? Number(input.value) : input.value;
  }
  return options;
}

// The games this table can referee, in the host's list.
export function showGames(state) {
  for (const g of state.games) {
    $("game").appendChild(html("option", {value: g.name}, `${g.title} (${g.min_players}-${g.max_players} players)`));
  }
  showOptions(state);
}

async function showQr(state) {
  const box = $("codes");
  box.replaceChildren();
  const g = gameOf(state);
  const players = g ? g.players : 0;
  for (let seat = 0; seat < players; seat++) {
    const r = await fetchFile(`/api/seats/${seat}/qr`);
    if (!r) return;
    const figure = html("figure", {});
    figure.innerHTML = await r.text();
    const svg = figure.querySelector("svg");
    if (svg) { svg.setAttribute("role", "img"); svg.setAttribute("aria-label", "QR code for seat " + seat); }
    figure.appendChild(html("figcaption", {}, "seat " + seat + ": scan to join"));
    box.appendChild(figure);
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
  const s = state.health;
  if (!s) return;
  for (const k of ["camera", "board"]) {
    const ok = ["calibrated", "connected", "simulated"].includes(s[k].state);
    $(k).textContent = s[k].state;
    $(k).className = "badge " + (ok ? "ok" : (s[k].state === "none" ? "" : "bad"));
    $(k + "-detail").textContent = s[k].detail || "";
  }
  $("gpio").textContent = s.gpio ? `pins ${s.gpio.pins}, ${s.gpio.seat_buttons} seat buttons, ${s.gpio.seat_leds} seat lights` : "";
}

// `askStatus` fetches /api/status anew (the role, once the PIN is typed; the inputs' health).
export function setUpHost(state, askStatus) {
  $("game").onchange = () => showOptions(state);
  $("pin").onchange = askStatus;
  $("start").onclick = () => post("/api/games", {game: $("game").value, options: chosenOptions(state)});
  $("end").onclick = () => post("/api/games/current/end");
  $("undo").onclick = () => post("/api/undo", {count: 1});
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
    if (await post("/api/camera/calibrate")) $("camera-detail").textContent = "looking for the corner markers…";
  };
  let healthTimer = null;
  $("camera-panel").ontoggle = () => {
    clearInterval(healthTimer);
    if (!$("camera-panel").open) return;
    askStatus();
    healthTimer = setInterval(askStatus, HEALTH_MS);
  };
}
