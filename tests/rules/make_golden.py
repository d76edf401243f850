"""Write golden playthroughs; run `python tests/rules/make_golden.py` after a rules change."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import rules
from rules.playout import Policy, choose

GOLDEN = Path(__file__).resolve().parent / "golden"
# Seeds picked for eventful bot games: collisions, hidden splits, missions, exits, solo deliveries.
CASES: list[tuple[str, dict[str, object], int]] = [
    ("offtherails", {"players": 4}, 2),
    ("offtherails", {"players": 2, "end_on_deposit": "fill"}, 67),
    ("offtherails", {"players": 3, "bumper_carts": True}, 12),
    ("offtherails", {"players": 1}, 139),
]


def playthrough(game: str, options: dict[str, object], seed: int) -> dict[str, Any]:
    state = rules.new_game(game, options, seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
    final = state.to_json()
    return {
        "game": game,
        "options": options,
        "seed": seed,
        "actions": [a.to_json() for a in state.history],
        "final": {k: final[k] for k in ("scores", "winners", "end_reason", "players", "turn")},
    }


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for game, options, seed in CASES:
        data = playthrough(game, options, seed)
        name = f"{game}_{options['players']}p_seed{seed}.json"
        (GOLDEN / name).write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
        print(name, len(data["actions"]), "actions", data["final"]["scores"])


if __name__ == "__main__":
    main()
