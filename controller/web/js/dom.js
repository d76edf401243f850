// Small helpers: find an element, make an HTML or SVG one, say something in the verdict box.
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

// A problem in one line, where everyone looks: the verdict box, marked as an alert.
export function say(text) {
  $("verdict").textContent = text;
  $("verdict").className = "alert";
}

export function seatName(seat) {
  return seat === null || seat === undefined ? "the host" : "seat " + seat;
}
