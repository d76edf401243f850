"""Sub-commands `railtable rules list|play|check` and `railtable bench rules`."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.cli._types import Subparsers, UsageError


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `rules list|play|check` and the `rules` bench target."""
    rules_parser = commands.add_parser("rules", help="the rules engines: list, play, check")
    sub = rules_parser.add_subparsers(dest="rules_command", required=True, metavar="ACTION")

    sub.add_parser("list", help="list the registered games").set_defaults(handler=_list)

    play = sub.add_parser("play", help="play random legal actions to the end; print scores")
    play.add_argument("game")
    play.add_argument("--players", type=int, default=None)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--option", action="append", default=[], metavar="NAME=JSON")
    play.add_argument("--policy", choices=["uniform", "by_type", "bot"], default="uniform")
    play.add_argument("--verbose", action="store_true", help="print every action")
    play.set_defaults(handler=_play)

    replay = sub.add_parser(
        "replay", help="check a JSON game record (the service's export) action by action"
    )
    replay.add_argument("file", type=Path)
    replay.set_defaults(handler=_replay)

    check = sub.add_parser("check", help="run scenario files or folders of them")
    check.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    check.set_defaults(handler=_check)

    bench = benches.add_parser("rules", help="playouts/s, legal actions p99, apply+undo/s")
    bench.add_argument("--json", action="store_true", help="one JSON object per game")
    bench.add_argument("--seconds", type=float, default=5.0, help="time per game")
    bench.add_argument("--players", type=int, default=None, help="default: the most allowed")
    bench.add_argument("--seed", type=int, default=1)
    bench.set_defaults(handler=_bench)


def _parse_options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--option {pair!r}: expected NAME=VALUE, the value in JSON")
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def _list(args: argparse.Namespace) -> int:
    import rules

    for info in rules.GAMES.values():
        print(f"{info.name}\t{info.title}\t{info.min_players}-{info.max_players} players")
    return 0


def _play(args: argparse.Namespace) -> int:
    import rules
    from rules.playout import Policy, play_out

    options = _parse_options(args.option)
    if args.players is not None:
        options["players"] = args.players
    state = rules.new_game(args.game, options, args.seed)
    rng = random.Random(args.seed)

    def show(s: rules.State, a: rules.Action) -> None:
        print(a.describe())

    steps = play_out(state, rng, Policy(args.policy), on_step=show if args.verbose else None)
    result = {
        "game": args.game,
        "players": state.options.get("players"),
        "seed": args.seed,
        "steps": steps,
        "scores": state.scores(),
    }
    extra = state.to_json()
    for key in ("winners", "end_reason", "solo"):
        if extra.get(key) not in (None, ""):
            result[key] = extra[key]
    print(json.dumps(result))
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Replay a game record; one line for the first action the rules refuse."""
    import rules

    try:
        record = json.loads(args.file.read_text())
    except json.JSONDecodeError as error:
        raise UsageError(f"{args.file}: not JSON ({error})") from None
    if not isinstance(record, dict) or not {"game", "options", "seed", "actions"} <= set(record):
        raise UsageError(f"{args.file}: not a game record (game, options, seed, actions)")
    seed = record["seed"]  # None: the game drew from its secret (in a finished game's record)
    deck = _secret_deck(args.file, record)
    state = rules.new_game(record["game"], record["options"], 0 if seed is None else seed)
    for number, entry in enumerate(record["actions"], start=1):
        drawn = None  # the digital deck's draw here, checked against the record's
        if deck is not None and state.current_player == rules.CHANCE:
            drawn = None if state.observed_chance() else deck(state)
        try:
            action = state.parse_action(entry["action"])
            if drawn is not None and action != drawn:
                print(f"action {number} ({entry['action']}): not the draw the game's secret gives"
                      f" ({drawn.to_json()})")  # fmt: skip
                return 1
            state.apply(action)
        except (rules.IllegalAction, KeyError, TypeError) as error:
            print(f"action {number} ({entry.get('action') if isinstance(entry, dict) else entry}):"
                  f" {error}")  # fmt: skip
            return 1
    scores = state.scores()
    if record.get("scores") is not None and record["scores"] != scores:
        print(f"the record's scores {record['scores']} differ from the replay's {scores}")
        return 1
    print(json.dumps({"actions": len(record["actions"]), "scores": scores, "over": state.is_over}))
    return 0


def _secret_deck(file: Path, record: dict[str, Any]) -> Callable[[Any], Any] | None:
    """The deck of a finished game's record that holds its secret (hex), else None."""
    if record.get("secret") is None:
        return None
    from controller.referee.deck import SecretDeck

    try:
        return SecretDeck(bytes.fromhex(str(record["secret"])), str(record["game"]))
    except ValueError as error:
        raise UsageError(f"{file}: the record's secret: {error}") from None


def _scenario_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.rglob("*.json"))
            if not found:
                raise UsageError(f"no scenario files (*.json) in {p}")
            files.extend(found)
        elif p.exists():
            files.append(p)
        else:
            raise UsageError(f"no such file or folder: {p}")
    return files


def _check(args: argparse.Namespace) -> int:
    from controller.checks.scenario import TABLE_STEPS
    from rules.scenario import ScenarioResult, StepFailure, run_scenario

    passed = failed = 0
    for path in _scenario_files(args.paths):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            results = [ScenarioResult(str(path), StepFailure(0, f"unreadable: {e}"))]
        else:
            items = data if isinstance(data, list) else [data]
            results = [
                run_scenario(s, f"{path}" + (f"[{i}]" if len(items) > 1 else ""), TABLE_STEPS)
                for i, s in enumerate(items)
            ] or [ScenarioResult(str(path), StepFailure(0, "the file holds no scenario"))]
        for r in results:
            if r.failure is None:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {r.name} step {r.failure.step}: {r.failure.message}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def _bench(args: argparse.Namespace) -> int:
    import rules
    from rules.bench import bench_game

    for info in rules.GAMES.values():
        players = args.players or info.max_players
        figures = bench_game(info.name, players, args.seconds, args.seed)
        if args.json:
            print(json.dumps(figures))
        else:
            print(
                f"{info.name} ({players} players): {figures['playouts_per_s']:.1f} playouts/s, "
                f"legal actions p99 {figures['legal_actions_p99_ms']:.3f} ms, "
                f"{figures['apply_undo_per_s']:.0f} apply+undo/s"
            )
    return 0


def narrate_random_game(game: str, players: int, seed: int | None) -> int:
    """Play a random game in the terminal, printing each action and the final scores."""
    import rules
    from rules.playout import Policy, choose

    seed = seed if seed is not None else random.randrange(1 << 30)
    state = rules.new_game(game, {"players": players}, seed)
    rng = random.Random(seed)
    print(f"railtable: no table service yet; a random {game} game, {players} players, seed {seed}")
    while not state.is_over:
        who = state.current_player
        action = choose(state, rng, Policy.BOT)
        state.apply(action)
        seat = "chance" if who == rules.CHANCE else f"seat {who}"
        print(f"{seat:>8}: {action.describe()}")
    print(json.dumps({"scores": state.scores(), "end": state.to_json().get("end_reason")}))
    return 0
