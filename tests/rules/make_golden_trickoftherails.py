"""Write Trick of the Rails golden playthroughs; run it after a deliberate rules change."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import rules
from rules.playout import Policy, choose

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES: list[tuple[dict[str, object], int]] = [
    ({"players": 3}, 21),
    ({"players": 4, "lane": "expert", "teams": True}, 22),
    ({"players": 5, "hands": "table"}, 23),
]


def playthrough(options: dict[str, object], seed: int) -> dict[str, Any]:
    state = rules.new_game("trickoftherails", options, seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
    final = state.to_json()
    return {
        "game": "trickoftherails",
        "options": options,
        "seed": seed,
        "actions": [a.to_json() for a in state.history],
        "final": {k: final[k] for k in ("scores", "winners", "railways", "shares", "revokes")},
    }


def main() -> None:
    for options, seed in CASES:
        data = playthrough(options, seed)
        name = f"trickoftherails_{options['players']}p_seed{seed}.json"
        (GOLDEN / name).write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
        print(name, len(data["actions"]), "actions", data["final"]["scores"])


if __name__ == "__main__":
    main()
