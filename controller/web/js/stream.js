// The live stream (GET /api/stream, server-sent events): every log row as it is written (its id is
// the row id), and after each round of rows the asker's whole view ("snapshot"). A new stream
// starts after the newest row seen, so a phone that lost its connection or slept misses nothing.
import { state } from "./state.js";

const RETRY_MS = 2000;  // a stream the browser gave up on is opened again after this
let source = null;
let handlers = null;

// Follow the stream: `row(event)` for each new log row, `view(snapshot)` after each round,
// `lost()` while the connection is down.
export function follow(on) {
  handlers = on;
  connect();
}

export function connect() {
  if (!handlers) return;  // not following yet: follow() connects
  if (source) source.close();
  const after = state.lastRow !== null ? "?after=" + state.lastRow : "";
  const s = source = new EventSource("/api/stream" + after);
  const onRow = (m) => {
    const id = Number(m.lastEventId);
    if (state.lastRow !== null && id <= state.lastRow) return;  // already shown
    state.lastRow = id;
    handlers.row(JSON.parse(m.data));
  };
  for (const kind of state.kinds) s.addEventListener(kind, onRow);
  s.addEventListener("snapshot", (m) => handlers.view(JSON.parse(m.data)));
  s.onerror = () => {
    if (s !== source) return;  // an old stream, already replaced
    if (s.readyState !== EventSource.OPEN) handlers.lost();
    if (s.readyState === EventSource.CLOSED) setTimeout(() => { if (s === source) connect(); }, RETRY_MS);
  };
}
