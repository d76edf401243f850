// Everything around the mat, drawn from the state: the header (game, turn, phase, who you are),
// the verdict and the referee's question, your moves, the scores and your private part, the last
// events; and the tone and vibration that mark your turn, a question and an alert.
import { $, html, seatName } from "./dom.js";

// The game as the stream's view names it (or /api/status, before the first view came).
export function gameOf(state) {
  return state.view ? state.view.game : state.health ? state.health.game : null;
}

export function drawHeader(state) {
  const mySeat = state.role === "seat" ? state.seat : null;
  $("me").textContent = state.health ? (state.role === "seat" ? "you are seat " + mySeat : state.role) : "";
  $("me").className = "badge";
  const g = gameOf(state);
  if (!state.view && !state.health) return;
  $("title").textContent = g ? g.title : "railtable: no game open";
  const turn = !g ? "" : g.current_player === -1 ? "drawing" : g.current_player === null ? "game over" :
    (g.current_player === mySeat ? "your turn (seat " + mySeat + ")" : "seat " + g.current_player + " to act");
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
  return Boolean(v && v.seat !== null && v.seat !== undefined && !(v.options && v.options.length));
}

// The verdict box and the question's buttons; returns what should beep (an alert, your turn, a question).
export function drawVerdict(state, answer) {
  const v = verdictOf(state);
  const g = gameOf(state);
  const mySeat = state.role === "seat" ? state.seat : null;
  const box = $("verdict");
  const asked = v && v.options && v.options.length;
  box.textContent = asked ? `${seatName(v.seat)}: the table does not show which move it was; ` +
                            (state.role === "host" || v.seat === mySeat ? "pick it below." : "they pick it on their phone.")
                  : v ? (v.words || v.text) : g ? "The table is as the rules expect." : "No game is open: the host starts one.";
  box.className = v ? (v.kind === "alert" ? "alert" : "todo") : "";
  const q = $("question");
  q.replaceChildren();
  if (asked) {
    q.appendChild(html("p", {}, (state.role === "host" ? seatName(v.seat) + " is asked" : "Which was it?") + " Pick one:"));
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

export function drawScores(state) {
  const st = state.view.state;
  const mySeat = state.role === "seat" ? state.seat : null;
  const body = $("scores").tBodies[0];
  body.replaceChildren();
  if (!st) { $("private").hidden = true; return; }
  const top = Math.max(...st.scores);
  st.scores.forEach((points, seat) => {
    const tr = html("tr", {});
    const who = seatName(seat) + (seat === mySeat ? " (you)" : "") + (st.is_over && points === top ? " ★ winner" : "");
    tr.appendChild(html("th", {scope: "row"}, who));
    tr.appendChild(html("td", {}, String(points)));
    const parts = (st.score_parts[seat] || []).map((p) => `${p.what}: ${p.points}`).join("; ");
    tr.appendChild(html("td", {}, parts || "nothing yet"));
    body.appendChild(tr);
  });
  const mine = Object.entries(st.private || {});
  $("private").hidden = !(state.role === "seat" && mine.length);
  const box = $("private-body");
  box.replaceChildren();
  for (const [key, value] of mine) {
    const words = Array.isArray(value) ? value.map((x) => typeof x === "object" ? JSON.stringify(x) : String(x)).join(", ")
                                       : typeof value === "object" ? JSON.stringify(value) : String(value);
    box.appendChild(html("p", {}, `${key.replaceAll("_", " ")}: ${words || "none"}`));
  }
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

function eventText(e) {
  const d = e.data || {};
  if (e.kind === "action") return (e.seat === -1 || e.seat === null ? "drawn: " : seatName(e.seat) + ": ") + (d.text || d.action.type);
  if (e.kind === "start") return "a new game starts";
  if (e.kind === "end") return "the game ends" + (d.reason ? ": " + d.reason : "");
  if (e.kind === "undo") return `the host took back ${d.count} action${d.count === 1 ? "" : "s"}`;
  if (d.words || d.text) return (e.kind === "alert" ? "✗ " : "") + (d.words || d.text);
  return e.kind;
}

export function addEvent(e) {
  const list = $("events");
  list.prepend(html("li", {}, eventText(e)));
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
