// The page's one state: who is asking, the newest view from the stream, the inputs' health and the
// games' looks. main.js changes it (and stream.js the last row seen, api.js a forgotten seat,
// host.js a lock-out); the other modules only read it. Nothing else is kept between redraws.
const params = new URLSearchParams(location.search);

// This phone's own id (random, kept on it): the table knows which phone holds a seat by it, so
// a second phone opening the same seat's link asks before taking it over (docs/phone-page.md).
function phoneId() {
  let id = localStorage.getItem("phone");
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("phone", id);
  }
  return id;
}

export const state = {
  seatToken: params.get("seat") || localStorage.getItem("seatToken") || "",
  phone: phoneId(),
  role: "spectator",  // from /api/status "you": spectator, seat or host
  seat: null,
  health: null,  // /api/status: camera, board, gpio (and the game, until the stream's view comes)
  view: null,  // the newest "snapshot" event: {version, row, game, finished, state, table, verdict, choices}
  hostVerdict: null,  // {version, verdict}: the host's own verdict where the stream's hides a question
  looks: {},  // game name -> its look (GET /api/games/{name}/look), once it came
  kinds: [],  // the log's event kinds: the stream's event names for rows
  lastRow: null,  // the newest log row seen: a new stream starts after it, so nothing is missed
  cue: "",  // what the phone last beeped for
  games: [],  // the games this table can referee (GET /api/games/available)
  joined: params.get("seat") !== null,  // came by a seat's link just now: asked for a name
  pinLocked: false,  // wrong PINs lock the table out: the typed PIN waits (host.js says why)
};

// The seat's token is kept on the phone, never left in the address bar (nor in a shared link).
if (params.get("seat")) {
  localStorage.setItem("seatToken", state.seatToken);
  params.delete("seat");
  history.replaceState(null, "", location.pathname + (params.size ? "?" + params : "") + location.hash);
}
