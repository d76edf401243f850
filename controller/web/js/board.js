// The mat as SVG, drawn from the table (GET /api/table, or the stream's view) and the game's look
// (GET /api/games/{name}/look): each piece by its form, colour, letter and exits, which the look
// gives; nothing here knows a game. Directions are 0 north, 1 east, 2 south, 3 west, of the piece
// at turn 0; `turn` quarter turns clockwise.
import { html, svg as el } from "./dom.js";

const TRACK = "#3e2723";
const PLAIN = "#777";

// A piece the look does not name (a card file of one's own): a plain card with its name's words.
function unknown(p) {
  return {form: "card", colour: PLAIN, words: p.identity.replaceAll("_", " ").split(" ").slice(0, 3)};
}

function lookUp(look, p) {
  const key = `${p.kind}:${p.identity}` + (p.face ? ":" + p.face : "");
  return (look && look.pieces && look.pieces[key]) || unknown(p);
}

// Where direction `d`, turned `turn`, meets the edge of a box `rx` by `ry` around (cx, cy).
function edge(cx, cy, rx, ry, d, turn) {
  return [[cx, cy - ry], [cx + rx, cy], [cx, cy + ry], [cx - rx, cy]][(d + turn) % 4];
}

function tile(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  const owned = Boolean(look.colour);
  g.appendChild(el("rect", {x: cx - s * 0.45, y: cy - s * 0.45, width: s * 0.9, height: s * 0.9,
                            fill: owned ? "#efe7dc" : "#a1887f", stroke: look.colour || "#a1887f",
                            "stroke-width": owned ? 3 : 0, rx: 2}));
  for (const exit of look.exits || []) {
    const [x, y] = edge(cx, cy, s * 0.45, s * 0.45, exit, p.turn);
    g.appendChild(el("line", {x1: cx, y1: cy, x2: x, y2: y, stroke: TRACK,
                              "stroke-width": s * 0.12, "stroke-linecap": "round"}));
  }
  if (look.letter) g.appendChild(el("text", {x: cx + s * 0.28, y: cy - s * 0.22, "text-anchor": "middle",
                                             "font-size": s * 0.24, "font-weight": "bold"}, look.letter));
}

function token(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  g.appendChild(el("circle", {cx, cy, r: s * 0.3, fill: look.colour,
                              stroke: look.cap === "black" ? "#000" : "#555",
                              "stroke-width": look.cap === "black" ? 3 : 1.2,
                              "stroke-dasharray": look.cap === "white" ? "3 2" : "none"}));
  if (look.heading) {
    const a = (p.turn % 4) * Math.PI / 2;
    g.appendChild(el("path", {d: `M ${cx + Math.sin(a) * s * 0.47} ${cy - Math.cos(a) * s * 0.47}
                                 L ${cx + Math.sin(a + 0.5) * s * 0.3} ${cy - Math.cos(a + 0.5) * s * 0.3}
                                 L ${cx + Math.sin(a - 0.5) * s * 0.3} ${cy - Math.cos(a - 0.5) * s * 0.3} Z`,
                              fill: "#000"}));
  }
  g.appendChild(el("text", {x: cx, y: cy + s * 0.1, "text-anchor": "middle", "font-size": s * 0.28,
                            "font-weight": "bold", fill: look.ink}, look.letter));
}

function chasm(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  g.appendChild(el("rect", {x: cx - s * 0.4, y: cy - s * 0.4, width: s * 0.8, height: s * 0.8,
                            fill: "#111", stroke: look.colour, "stroke-width": 3}));
  g.appendChild(el("text", {x: cx, y: cy + s * 0.1, "text-anchor": "middle", "font-size": s * 0.28,
                            fill: "#fff"}, "▼" + look.letter));
}

function station(g, p, look, loc) {
  g.appendChild(el("rect", {x: loc.x - loc.w * 0.45, y: loc.y - loc.h * 0.45, width: loc.w * 0.9,
                            height: loc.h * 0.9, fill: "#fff", stroke: look.colour || "#555",
                            "stroke-width": 4, rx: 3}));
  g.appendChild(el("text", {x: loc.x, y: loc.y + loc.h * 0.2, "text-anchor": "middle",
                            "font-size": loc.h * 0.55, "font-weight": "bold"}, look.letter));
}

// A rail card lying in its slot: each track joins its exits (two: a straight line or a curve;
// more: all meet in the middle); `over` crosses an earlier track on a bridge; stubs end short.
function rail(g, p, look, loc) {
  const at = (d) => edge(loc.x, loc.y, loc.w * 0.45, loc.h * 0.45, d, p.turn);
  g.appendChild(el("rect", {x: loc.x - loc.w * 0.47, y: loc.y - loc.h * 0.47, width: loc.w * 0.94,
                            height: loc.h * 0.94, fill: "#fffdf5", stroke: "#555", rx: 3}));
  const track = {stroke: TRACK, "stroke-width": Math.min(loc.w, loc.h) * 0.09,
                 fill: "none", "stroke-linecap": "round"};
  for (const t of look.tracks || []) {
    if (t.exits.length === 2) {
      const [a, b] = t.exits.map(at);
      const straight = Math.abs(t.exits[0] - t.exits[1]) === 2;
      const d = straight ? `M ${a[0]} ${a[1]} L ${b[0]} ${b[1]}`
                         : `M ${a[0]} ${a[1]} Q ${loc.x} ${loc.y} ${b[0]} ${b[1]}`;
      if (t.over) g.appendChild(el("path", {...track, d, stroke: "#fffdf5", "stroke-width": track["stroke-width"] * 2.2}));
      g.appendChild(el("path", {...track, d}));
    } else {
      for (const exit of t.exits) {
        const [x, y] = at(exit);
        g.appendChild(el("line", {...track, x1: x, y1: y, x2: loc.x, y2: loc.y}));
      }
    }
  }
  for (const exit of look.stubs || []) {
    const [x, y] = at(exit);
    const sx = x + (loc.x - x) * 0.45, sy = y + (loc.y - y) * 0.45;
    g.appendChild(el("line", {...track, x1: x, y1: y, x2: sx, y2: sy}));
    g.appendChild(el("circle", {cx: sx, cy: sy, r: track["stroke-width"] * 0.9, fill: "#b00020"}));
  }
}

function card(g, p, look, loc) {
  g.appendChild(el("rect", {x: loc.x - loc.w * 0.45, y: loc.y - loc.h * 0.45, width: loc.w * 0.9,
                            height: loc.h * 0.9, fill: "#fff", stroke: look.colour || PLAIN,
                            "stroke-width": 2.5, rx: 2}));
  (look.words || []).filter(Boolean).forEach((w, i) =>
    g.appendChild(el("text", {x: loc.x, y: loc.y - loc.h * 0.15 + i * Math.min(9, loc.h * 0.25),
                              "text-anchor": "middle", "font-size": Math.min(8, loc.w / 5)}, w)));
}

const FORMS = {tile, token, chasm, station, rail, card};

function drawPiece(p, look, loc) {
  const g = el("g", {"aria-hidden": "true"});
  const seen = lookUp(look, p);
  (FORMS[seen.form] || card)(g, p, seen, loc);
  return g;
}

// The whole mat into `svg`; with `wordsList`, the table in words too (for a screen reader).
export function drawBoard(svg, t, look, wordsList) {
  svg.replaceChildren();
  if (wordsList) wordsList.replaceChildren();
  if (!t) { svg.setAttribute("aria-label", "no game with a table is open"); return; }
  svg.setAttribute("viewBox", `0 0 ${t.width_mm} ${t.height_mm}`);
  const last = new Set(t.last_move || []);
  const marked = new Set(t.marked || []);
  for (const loc of t.locations) {
    const isMarked = marked.has(loc.name);
    const cls = "loc" + (isMarked ? (t.alert ? " alert" : " marked") : last.has(loc.name) ? " last" : "");
    const g = el("g", {"data-name": loc.name});
    g.appendChild(el("rect", {class: cls, x: loc.x - loc.w / 2, y: loc.y - loc.h / 2,
                              width: loc.w, height: loc.h}));
    const pieces = t.pieces[loc.name] || [];
    const said = pieces.map((p) => p.label).join(", ");
    g.appendChild(el("title", {}, loc.name + ": " + (said || "empty")));
    pieces.forEach((p) => g.appendChild(drawPiece(p, look, loc)));
    if (isMarked) g.appendChild(el("text", {class: "mark", x: loc.x - loc.w / 2 + 2, y: loc.y - loc.h / 2 + 12,
                                            fill: t.alert ? "#b00020" : "#8a5a00"}, t.alert ? "✗" : "!"));
    else if (last.has(loc.name)) g.appendChild(el("text", {class: "mark", x: loc.x - loc.w / 2 + 2,
                                                          y: loc.y - loc.h / 2 + 12, fill: "#0d47a1"}, "●"));
    svg.appendChild(g);
    if (wordsList && (said || isMarked || last.has(loc.name))) {
      const notes = (isMarked ? (t.alert ? " (not legal)" : " (to do)") : "") + (last.has(loc.name) ? " (last move)" : "");
      wordsList.appendChild(html("li", {}, `${loc.name}: ${said || "empty"}${notes}`));
    }
  }
  const pieces = Object.values(t.pieces).reduce((n, ps) => n + ps.length, 0);
  svg.setAttribute("aria-label", `the table: ${pieces} pieces` +
    (last.size ? `; last move at ${[...last].join(", ")}` : "") +
    (marked.size ? `; look at ${[...marked].join(", ")}` : "") + ". The table in words follows.");
}
