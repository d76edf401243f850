// Computer players (issue 24): the host seats the computer at any seat (easy, normal, strong) or
// takes it back, and lets seats ask for hints; a seat on its turn asks "what would you do?" and
// reads the answer on its own phone alone. A computer's moves need nothing here: they come as
// the referee's instructions, like any move the rules make.
import { post } from "./api.js";
import { $, html, playerName, playersOf } from "./dom.js";
import { gameOf } from "./panels.js";
import { tr } from "./words.js";

const LEVELS = [["", tr("a person")], ["easy", tr("the computer, easy")], ["normal", tr("the computer, normal")],
                ["strong", tr("the computer, strong")]];

// The host's panel: who plays each seat, and whether hints may be asked.
export function drawComputers(state) {
  const box = $("computers");
  const g = gameOf(state);
  const players = playersOf(state);
  const key = JSON.stringify([players.map((p) => [p.name, p.computer]), g && g.hints]);
  if (!box || box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren();
  if (!g) return;
  for (const p of players) {
    const label = html("label", {class: "opt"}, `${playerName(state, p.seat)}: played by `);
    const pick = html("select", {id: `computer-${p.seat}`, "data-seat": String(p.seat)});
    for (const [value, words] of LEVELS) pick.appendChild(html("option", {value}, words));
    pick.value = p.computer || "";
    pick.onchange = () => post(`/api/seats/${p.seat}/computer`, {level: pick.value || null});
    label.appendChild(pick);
    box.appendChild(label);
  }
  const hints = html("input", {type: "checkbox", id: "hints-on"});
  hints.checked = g.hints !== false;
  hints.onchange = () => post("/api/hints", {on: hints.checked});
  const label = html("label", {class: "opt"});
  label.appendChild(hints);
  label.appendChild(document.createTextNode(" " + tr("Players may ask the computer for a hint")));
  box.appendChild(label);
}

// A seat's phone on its turn: the hint button, and the answer for this phone alone.
let answered = null;  // {version, text}: the hint shown, for the view it was asked in
export function drawHint(state) {
  const box = $("hint");
  if (!box) return;
  const g = gameOf(state);
  const me = state.role === "seat" ? playersOf(state)[state.seat] : null;
  const myTurn = Boolean(g && me && !me.computer && g.hints !== false && g.current_player === state.seat);
  if (!myTurn) answered = null;
  const key = JSON.stringify([myTurn, answered && answered.text]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren();
  if (!myTurn) return;
  const ask = html("button", {id: "hint-ask"}, tr("What would you do?"));
  ask.onclick = async () => {
    ask.disabled = true;
    ask.textContent = tr("The computer is thinking…");
    const hint = await post("/api/hint");
    answered = hint ? {text: tr("The computer would {move} ({why}).", {move: hint.move, why: hint.why})} : null;
    box.dataset.key = "";
    drawHint(state);
  };
  box.appendChild(ask);
  if (answered) box.appendChild(html("p", {id: "hint-answer", class: "secret"}, answered.text));
}
