// Small helpers: find an element, make an HTML or SVG one, say a problem, name a player.
export const $ = (id) => document.getElementById(id);

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

// A problem with what this phone asked (a wrong PIN, no connection), in one line: not the
// referee's verdict on the table, so never called "not a legal move".
let problemTimer = null;
export function say(text) {
  const box = $("problem");
  box.textContent = text.charAt(0).toUpperCase() + text.slice(1);
  box.hidden = false;
  clearTimeout(problemTimer);
  problemTimer = setTimeout(() => { box.hidden = true; }, 8000);
}

// The players of the game on show: [{seat, name, colour, hex}], from the stream's view.
export function playersOf(state) {
  const g = state.view ? state.view.game : state.health ? state.health.game : null;
  if (g) return g.seats || [];
  const f = state.view ? state.view.finished : state.health ? state.health.finished : null;
  return (f && f.players) || [];  // the game just over, on its end screen
}

export function playerName(state, seat) {
  if (seat === null || seat === undefined || seat < 0) return "the table";
  const p = playersOf(state)[seat];
  return p ? p.name : "Player " + (seat + 1);
}

// A player's colour as a small swatch with their name (colour is never alone: the name is there).
export function nameTag(player, you) {
  const tag = html("span", {class: "who"});
  tag.appendChild(html("i", {class: "swatch", style: `background:${player.hex}`, "aria-hidden": "true"}));
  tag.appendChild(document.createTextNode(player.name + (you ? " (you)" : "")));
  return tag;
}
