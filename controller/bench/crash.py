"""Pulled plugs: a scripted game killed with SIGKILL at random points, restarted each time.

The worker plays a scripted game through the live game (each action chosen from the game's
seed and the number of steps so far, so a restarted worker carries on the same script) and prints
`ACK n` once the n-th step is on disk. The runner kills it at random moments, restarts it, and
checks after every restart that the state is exactly the script's state after the steps in the
log: nothing acknowledged is lost, nothing is applied twice, and the log is never half-written.
A game with no seed draws from its secret, as the service's games do: the script's state is then
drawn from the secret in the log, so a restart must draw exactly as the secret says.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from controller.game.access import Asker
from controller.game.live import LiveGame
from controller.game.store import EventLog
from controller.referee.deck import SecretDeck, SeededDeck
from controller.referee.moves import ChanceResolver
from rules.core import CHANCE, State
from rules.playout import Policy, choose
from rules.registry import new_game


def scripted_action(state: State) -> dict[str, object]:
    """The script's next action: the bot's pick from a RNG seeded by the game and its step."""
    rng = random.Random(state.seed * 7919 + len(state.history))
    return choose(state, rng, Policy.BOT).to_json()


SECRET = "secret"  # the worker's seed argument for a game drawing from its secret


def worker(data_dir: Path, game: str, players: int, seed: int | None, steps: int) -> int:
    """Resume or start the game (with no seed: drawing from its secret), then play the script,
    acknowledging each step once on disk."""
    live = LiveGame(EventLog(data_dir / "railtable.sqlite3"))
    if not live.resume():
        live.start(game, {"players": players}, seed)
    while True:
        opened = live.open
        if opened is None or opened.state.is_over or len(opened.state.history) >= steps:
            print("DONE", flush=True)
            return 0
        state = opened.state
        seat = state.current_player
        assert seat is not None and seat != CHANCE
        live.act(Asker.at(seat), scripted_action(state))
        print(f"ACK {len(state.history)}", flush=True)


def reference(game: str, players: int, deck: ChanceResolver, seed: int, length: int) -> State:
    """The script played directly on the engine until the history is `length` long, drawing
    from `deck` (the seed's, or the secret's of the game in the log)."""
    state = new_game(game, {"players": players}, seed)
    while len(state.history) < length:
        if state.current_player == CHANCE:
            state.apply(deck(state))
        else:
            state.apply(scripted_action(state))
    return state


@dataclass(frozen=True)
class CrashReport:
    """What the kills showed."""

    kills: int
    restarts: int
    acknowledged: int  # the last step acknowledged before the last kill
    steps_in_log: int
    lost: int  # acknowledged steps missing after a restart: must be 0
    mismatches: int  # restarts whose state differed from the script's: must be 0
    seconds: float

    def to_json(self) -> dict[str, object]:
        return dict(vars(self))


def run(
    kills: int,
    data_dir: Path,
    game: str = "offtherails",
    players: int = 4,
    seed: int | None = 4,
    steps: int = 400,
    rng_seed: int = 1,
) -> CrashReport:
    """Kill the worker `kills` times at random moments; check the log after each restart
    (`seed` None: the game draws from its secret, as the service's do)."""
    rng = random.Random(rng_seed)
    started = time.monotonic()
    acknowledged = lost = mismatches = restarts = 0
    in_log = 0
    for _ in range(kills):
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.bench.crash",
                "worker",
                str(data_dir),
                game,
                str(players),
                SECRET if seed is None else str(seed),
                str(steps),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        wait_acks = rng.randint(1, 4)
        seen = 0
        for line in process.stdout:
            if line.startswith("ACK"):
                acknowledged = int(line.split()[1])
                seen += 1
                if seen >= wait_acks:
                    time.sleep(rng.random() * 0.01)  # somewhere inside the next step
                    break
            elif line.startswith("DONE"):
                break
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        restarts += 1
        log = EventLog(data_dir / "railtable.sqlite3")
        record = log.open_game()
        if record is None:
            log.close()
            break
        secret = log.secret(record.id)
        log.close()
        deck: ChanceResolver = (
            SeededDeck(record.engine_seed) if secret is None else SecretDeck(secret, record.game)
        )
        resumed = LiveGame(EventLog(data_dir / "railtable.sqlite3"))  # as the service starts
        resumed.resume()
        state = resumed.open.state if resumed.open is not None else None
        resumed.log.close()
        if state is None:
            break
        in_log = len(state.history)
        if in_log < acknowledged:
            lost += 1
        expected = reference(game, players, deck, record.engine_seed, in_log)
        if json.dumps(expected.to_json(), sort_keys=True) != json.dumps(
            state.to_json(), sort_keys=True
        ):
            mismatches += 1
    return CrashReport(
        kills,
        restarts,
        acknowledged,
        in_log,
        lost,
        mismatches,
        round(time.monotonic() - started, 2),
    )


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "worker":
        _, _, folder, name, count, game_seed, limit = sys.argv
        given = None if game_seed == SECRET else int(game_seed)
        sys.exit(worker(Path(folder), name, int(count), given, int(limit)))
    print(
        f"usage: python -m controller.bench.crash worker DIR GAME PLAYERS SEED|{SECRET} STEPS",
        file=sys.stderr,
    )
    sys.exit(2)
