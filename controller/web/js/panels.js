// Everything around the mat, drawn from the state: the header (game, turn, phase, who you are),
// the verdict with its steps and the referee's question, your moves, the scores and your private
// part, the last events, the end of a game; and the tone and vibration that mark your turn, a
// question and an alert. Every line comes from the Pi already in players' words.
import { $, html, nameTag, playerName, playersOf, svg as el } from "./dom.js";
import { drawPiece } from "./board.js";

// The game as the stream's view names it (or /api/status, before the first view came).
export function gameOf(state) {
  return state.view ? state.view.game : state.health ? state.health.game : null;
}

const mySeatOf = (state) => (state.role === "seat" ? state.seat : null);

export function drawHeader(state) {
  const mySeat = mySeatOf(state);
  const me = $("me");
  me.replaceChildren();
  me.className = "badge";
  const players = playersOf(state);
  if (state.health) {
    if (mySeat !== null && players[mySeat]) {
      me.appendChild(document.createTextNode("you are "));
      me.appendChild(nameTag(players[mySeat], false));
    } else me.textContent = state.role === "seat" ? "you are player " + (mySeat + 1) : state.role;
  }
  const g = gameOf(state);
  if (!state.view && !state.health) return;
  $("title").textContent = g ? g.title : state.view && state.view.finished ? state.view.finished.title : "railtable";
  const turn = !g ? (state.view && state.view.finished ? "game over" : "no game open") :
    g.current_player === -1 ? "the table draws" : g.current_player === null ? "game over" :
    g.current_player === mySeat ? "your turn, " + playerName(state, mySeat) : playerName(state, g.current_player) + "'s turn";
  $("turn").textContent = turn;
  $("turn").className = "badge" + (g && mySeat !== null && g.current_player === mySeat ? " myturn" : "");
  const st = state.view ? state.view.state : null;
  $("phase").textContent = st && st.phase ? String(st.phase).replaceAll("_", " ") : "";
  $("phase").hidden = !(st && st.phase);
}

// The verdict as the asker may see it: the stream's, or the host's own where the stream hides a
// seat's question from everyone but that seat.
export function verdictOf(state) {
  const h = state.hostVerdict;
  return state.role === "host" && h && h.version === state.view.version ? h.verdict : state.view.verdict;
}

// Whether the host should ask for its own verdict: a seat is asked, and the stream's view hides how.
export function hidesQuestion(view) {
  const v = view.verdict;
  return Boolean(v && v.seat !== null && v.seat !== undefined && !(v.options && v.options.length) && !v.hidden);
}

const NOT_LEGAL = /^not a legal move:\s*/i;
const VERBS = {put: "Put", take: "Take", turn: "Turn"};

function plural(kind, n) {
  const word = kind === "rail" ? "card" : kind.replaceAll("_", " ");
  return n === 1 ? word : word + "s";
}

// Many steps (a game's setup) as a few groups, each with its list folded away.
function drawSteps(state, v) {
  const box = $("steps");
  box.replaceChildren();
  const steps = (v && v.instructions) || [];
  if (steps.length < 4) return false;
  const table = state.view.table;
  const groups = new Map();
  for (const step of steps) {
    const verb = step.text.split(" ")[0];
    const kinds = ((table && table.pieces[step.location]) || []).map((p) => p.kind);
    const kind = verb === "put" && kinds.length ? kinds[0] : "piece";
    const key = verb + " " + kind;
    if (!groups.has(key)) groups.set(key, {verb, kind, steps: []});
    groups.get(key).steps.push(step);
  }
  for (const {verb, kind, steps: some} of groups.values()) {
    const d = html("details", {class: "group"});
    const where = verb === "take" ? "off the places marked !" : verb === "put" ? "on the places marked ! as shown" : "where marked !";
    d.appendChild(html("summary", {}, `${VERBS[verb] || "Set"} ${some.length} ${plural(kind, some.length)} ${where}`));
    const list = html("ul", {});
    some.forEach((s) => list.appendChild(html("li", {}, s.text)));
    d.appendChild(list);
    box.appendChild(d);
  }
  return true;
}

// The verdict box and the question's buttons; returns what should beep (an alert, your turn, a question).
export function drawVerdict(state, answer) {
  const v = verdictOf(state);
  const g = gameOf(state);
  const mySeat = mySeatOf(state);
  const box = $("verdict");
  const asked = v && v.options && v.options.length;
  const actor = v && v.seat !== null && v.seat !== undefined ? v.seat : g && g.current_player >= 0 ? g.current_player : null;
  const who = actor === null ? "" : (actor === mySeat ? playerName(state, actor) + " (you)" : playerName(state, actor)) + ": ";
  const grouped = drawSteps(state, v);  // also clears the last verdict's steps
  let text;
  if (asked && v.hidden) {
    text = `${who}a choice only you make, in secret: pick it below.`;
  } else if (asked) {
    text = `${who}the table does not show which move it was; ` +
      (state.role === "host" || v.seat === mySeat ? "pick it below." : "they pick it on their phone.");
  } else if (grouped) {
    text = `${who}${v.instructions.length} things to do on the table, marked ! on the board:`;
  } else if (v && v.kind === "applied" && !(v.instructions || []).length) {
    text = cap(v.words || v.text || "");  // a move seen: the last events say whose
  } else if (v) {
    const said = (v.words || v.text || "").replace(NOT_LEGAL, "");
    text = (said.startsWith(playerName(state, actor)) ? "" : who) + said;
  } else {
    text = g ? "The table is as the rules expect." : state.view.finished ? "The game is over." : "No game is open: the host starts one.";
  }
  // a piece the sensor board just felt, while the camera looks: said over a move already seen
  const table = g && state.view.table;
  const felt = (table && table.felt) || [];
  const checking = felt.length && !asked && !grouped && (!v || v.kind === "applied");
  if (checking) {
    const placeOf = (name) => (table.locations.find((l) => l.name === name) || {place: name}).place || name;
    text = `A piece moved on ${felt.map(placeOf).join(", ")}: checking it…`;
  }
  box.textContent = text;
  const seen = v && v.kind === "applied" && !(v.instructions || []).length;
  box.className = checking ? "" : v ? (v.kind === "alert" ? "alert" : seen ? "" : "todo") : "";
  const q = $("question");
  q.replaceChildren();
  if (asked) {
    if (v.hidden) q.appendChild(html("p", {class: "secret"}, "Only you see this: nobody else's phone shows these choices."));
    q.appendChild(html("p", {}, (state.role === "host" ? playerName(state, v.seat) + " is asked." : v.hidden ? "Your choice." : "Which was it?") + " Pick one:"));
    v.options.forEach((o, i) => {
      const b = html("button", {class: "primary"}, o.words || o.text);
      b.onclick = () => answer(i);
      q.appendChild(b);
    });
  }
  return (v && v.kind === "alert" ? "alert:" + v.text : "") +
         (g && mySeat !== null && g.current_player === mySeat ? "turn" : "") +
         (asked ? "ask:" + v.text : "");
}

// Each player's row: name, colour and a star for a winner, what the points are made of under the
// name (a phone's width has no room for a third column), the points.
function scoreRows(body, players, scores, parts, mySeat, winners, none = "nothing yet") {
  body.replaceChildren();
  const order = scores.map((_, seat) => seat);
  if (mySeat !== null) order.sort((a, b) => (b === mySeat) - (a === mySeat));  // your own row first
  for (const seat of order) {
    const tr = html("tr", {});
    const th = html("th", {scope: "row"});
    const p = players[seat] || {name: "Player " + (seat + 1), hex: "#999"};
    th.appendChild(nameTag(p, seat === mySeat));
    if (winners.includes(seat)) th.appendChild(html("span", {class: "star"}, " ★ winner"));
    const made = (parts[seat] || []).map((x) => `${x.what}: ${x.points}`).join(" · ");
    th.appendChild(html("div", {class: "made"}, made || none));
    tr.appendChild(th);
    tr.appendChild(html("td", {class: "points"}, String(scores[seat])));
    body.appendChild(tr);
  }
}

// A hand of cards drawn as cards, each tapped to see it whole.
function drawHand(box, ids, look, onTap) {
  const pieces = look && look.pieces ? look.pieces : {};
  const found = ids.map((id) => Object.keys(pieces).find((k) => k.split(":")[1] === id));
  if (!found.length || found.some((k) => !k)) return false;
  const row = html("div", {class: "hand"});
  found.forEach((key, i) => {
    const [kind, identity] = key.split(":");
    const loc = {x: 32, y: 44, w: 63, h: 88};
    const s = el("svg", {viewBox: "0 0 64 88", class: "card", role: "img", tabindex: "0"});
    const piece = {kind, identity, face: null, turn: 0, label: ids[i]};
    s.appendChild(drawPiece(piece, look, loc));
    const b = html("button", {class: "card-button", "aria-label": "see this card whole"});
    b.appendChild(s);
    b.onclick = () => onTap(loc, [piece]);
    row.appendChild(b);
  });
  box.appendChild(row);
  return true;
}

export function drawScores(state, look, onTap) {
  const st = state.view.state;
  const mySeat = mySeatOf(state);
  if (!st) { $("private").hidden = true; $("scores").tBodies[0].replaceChildren(); return; }
  const top = Math.max(...st.scores);
  scoreRows($("scores").tBodies[0], playersOf(state), st.scores, st.score_parts, mySeat,
            st.is_over ? st.scores.map((x, s) => (x === top ? s : -1)) : []);
  const mine = Object.entries(st.private || {});
  $("private").hidden = !(state.role === "seat" && mine.length);
  const box = $("private-body");
  box.replaceChildren();
  const words = st.private_words || {};
  for (const [key, value] of mine) {
    const name = key.replaceAll("_", " ");
    box.appendChild(html("p", {}, `Your ${name}: ${words[key] || "none"}`));
    if (Array.isArray(value) && value.every((x) => typeof x === "string")) drawHand(box, value, look, onTap);
  }
}

// The end of a game: who won, the final scores and what they are made of; it stays until the
// host starts another game.
export function drawFinished(state) {
  const f = state.view.finished;
  const open = Boolean(state.view.game);
  $("finished").hidden = !f || open;
  if (!f || open) return;
  $("finished").dataset.game = String(f.id);
  const names = f.winners.map((s) => f.players[s] ? f.players[s].name : "Player " + (s + 1));
  $("finished-h").textContent = "Game over";
  $("finished-winner").textContent = names.length === 1 ? `★ ${names[0]} wins!` :
    `★ ${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} share the win!`;
  scoreRows($("finished-scores").tBodies[0], f.players, f.scores, f.score_parts, mySeatOf(state), f.winners, "no points");
  $("finished-why").textContent = "Why it ended: " + f.reason + ".";
  $("again").hidden = state.role !== "host";
}

// The moves no sensor sees, offered to the seat whose turn it is.
export function drawMine(state, act) {
  const mine = $("mine");
  const offered = state.role === "seat" ? state.view.choices || [] : [];
  mine.replaceChildren();
  if (!offered.length) return;
  mine.appendChild(html("p", {}, "Your move (nothing on the table shows these):"));
  for (const choice of offered.slice(0, 40)) {
    const b = html("button", {}, choice.text);
    b.onclick = () => act(choice.action);
    mine.appendChild(b);
  }
}

// ---- the last events: one line per move
const QUIET_VERDICTS = new Set(["in_sync", "applied", "instructions", "alert"]);  // said by other rows

function cap(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

function eventText(e, state) {
  const d = e.data || {};
  const who = e.who || playerName(state, e.seat);
  if (e.kind === "action") return `${who}: ${d.text || (d.action && d.action.type) || "a move"}`;
  if (e.kind === "start") return "A new game begins";
  if (e.kind === "end") return "The game ends" + (d.reason ? ": " + d.reason : "");
  if (e.kind === "undo") return `The host took back ${d.count} move${d.count === 1 ? "" : "s"}`;
  if (e.kind === "player" && d.hints) return `Hints are ${d.hints}`;
  if (e.kind === "player" && d.computer !== undefined) {
    return d.computer ? `${cap(who)} plays here now (${d.computer} level)` : `${cap(who)} plays here again`;
  }
  if (e.kind === "player") return `${playerName(state, e.seat)} joined`;
  if (e.kind === "verdict" && QUIET_VERDICTS.has(d.kind)) return null;
  if (e.kind === "instruction" && (d.instructions || []).length > 3) {
    return `To do: ${d.instructions.length} things on the table`;
  }
  if (e.kind === "alert") return "✗ Not a legal move: " + (d.words || d.text || "").replace(NOT_LEGAL, "");
  if (d.words || d.text) return cap(d.words || d.text);
  return null;
}

function drawnLine(li) {
  const parts = [...li.draws.entries()].map(([t, n]) => (n > 1 ? `${t} ×${n}` : t));
  li.textContent = "The table drew: " + parts.slice(0, 8).join("; ") + (parts.length > 8 ? "; …" : "");
}

export function addEvent(e, state) {
  const list = $("events");
  const chance = e.kind === "action" && (e.seat === -1 || e.seat === null);
  if (chance) {
    const text = ((e.data && e.data.text) || "a draw").replace(/ \(hidden\)$/, ", face down");
    let li = list.firstChild;
    if (!li || !li.draws) {
      li = html("li", {class: "draws"});
      li.draws = new Map();
      list.prepend(li);
    }
    li.draws.set(text, (li.draws.get(text) || 0) + 1);
    drawnLine(li);
  } else {
    const text = eventText(e, state);
    if (text === null) return;
    if (list.firstChild && list.firstChild.textContent === text) return;  // said once
    list.prepend(html("li", {}, text));
  }
  while (list.children.length > 40) list.lastChild.remove();
}

export function setUpSound() {
  $("sound").checked = localStorage.getItem("sound") !== "off";
  $("sound").onchange = () => localStorage.setItem("sound", $("sound").checked ? "on" : "off");
}

export function signal() {
  if (!$("sound").checked) return;
  if (navigator.vibrate) navigator.vibrate(150);
  try {
    const audio = new (window.AudioContext || window.webkitAudioContext)();
    const tone = audio.createOscillator();
    tone.frequency.value = 660;
    tone.connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch (e) { /* no sound on this phone */ }
}
