// Small helpers: find an element, make an HTML or SVG one, say a problem, name a player.
export const $ = (id) => document.getElementById(id);

import { tr } from "./words.js";

const NS = "http://www.w3.org/2000/svg";

export function svg(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function html(name, attrs, text) {
  const e = document.createElement(name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// A problem with what this phone asked (a wrong PIN, a refusal, no connection), in one line: not
// the referee's verdict on the table, so never called "not a legal move". It is said next to the
// control the person last used (a host scrolled down at the buttons sees it there, in view), or
// at the top of the page when nothing was touched just before.
const NEAR_MS = 15000;  // a control used this recently caused what is said now
let used = {control: null, at: 0};
for (const kind of ["click", "change"]) {
  document.addEventListener(kind, (e) => {
    const control = e.target instanceof Element ? e.target.closest("button, input, select") : null;
    if (control && !control.closest("dialog")) used = {control, at: Date.now()};  // not "Yes" in a confirmation
  }, true);
}

let problemTimer = null;
export function say(text, stays = false) {
  const words = text.charAt(0).toUpperCase() + text.slice(1);
  const near = used.control && used.control.isConnected && Date.now() - used.at < NEAR_MS ? used.control : null;
  const box = near ? sayNear(near) : $("problem");
  box.textContent = words;
  box.hidden = false;
  if (near) box.scrollIntoView({block: "nearest"});
  clearTimeout(problemTimer);
  if (!stays) problemTimer = setTimeout(() => { box.hidden = true; }, 8000);
}

// The one line said next to `control` (after its label, if it is in one); the one before goes.
function sayNear(control) {
  document.querySelectorAll(".said").forEach((old) => old.remove());
  $("problem").hidden = true;
  const box = html("p", {class: "said", role: "alert"});
  (control.closest("label") || control).after(box);
  return box;
}

// The players of the game on show: [{seat, name, colour, hex}], from the stream's view.
export function playersOf(state) {
  const g = state.view ? state.view.game : state.health ? state.health.game : null;
  if (g) return g.seats || [];
  const f = state.view ? state.view.finished : state.health ? state.health.finished : null;
  return (f && f.players) || [];  // the game just over, on its end screen
}

export function playerName(state, seat) {
  if (seat === null || seat === undefined || seat < 0) return tr("the table");
  const p = playersOf(state)[seat];
  return p ? p.name : tr("Player {number}", {number: seat + 1});
}

// A player's colour as a small swatch with their name (colour is never alone: the name is there).
export function nameTag(player, you) {
  const tag = html("span", {class: "who"});
  tag.appendChild(html("i", {class: "swatch", style: `background:${player.hex}`, "aria-hidden": "true"}));
  tag.appendChild(document.createTextNode(you ? tr("{player} (you)", {player: player.name}) : player.name));
  return tag;
}
