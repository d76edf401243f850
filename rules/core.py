"""The one interface every game's rules engine has: State, actions with a stable JSON form, errors.

Shaped after OpenSpiel and python-chess. A game subclasses `State` and fills in a few hooks; the
base class gives every game the same undo, exception safety, JSON parsing of actions and history.
Legality has one hook, `State.why_not` (None, or the `Why` an action is refused); `is_legal`,
`explain_illegal` and `apply` are built on it, and no game overrides them. `State.applied` tries
actions inside a `with` block and takes them back.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import enum
import json
import random
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final, Self, TypeVar, Union, final

from rules.said import Say, plain, said, same, word

JsonDict = dict[str, Any]

CHANCE: Final = -1
"""`State.current_player` when the next step is a chance outcome (a draw, a shuffle, a die)."""


class IllegalAction(ValueError):
    """An action that the rules forbid now; the message names the rule broken and the input."""

    def __init__(self, rule: str, action: object = None, detail: str = "") -> None:
        self.rule = rule
        self.action = action
        self.detail = detail
        shown = _show(action)
        text = f"illegal {shown}: {rule}" if shown else f"illegal: {rule}"
        if detail:
            text += f" ({detail})"
        super().__init__(text)


@dataclass(frozen=True)
class Why:
    """Why an action is refused: the rule it breaks, in players' words, and any detail (which
    card, which seat, the phase); `State.why_not` returns one, `IllegalAction` shows it."""

    rule: str
    detail: str = ""

    def error(self, action: object = None) -> IllegalAction:
        """The `IllegalAction` for `action`, refused for this reason."""
        return IllegalAction(self.rule, action, self.detail)


NOT_NOW: Final = Why("not a legal action at this point of the game")
"""The base `State.why_not` answer: the action is not among those legal now."""


class MalformedAction(IllegalAction):
    """JSON that is not an action of this game at all (unknown type, missing or bad field)."""


class BadOptions(ValueError):
    """Game options that name an unknown option or give it a value it cannot take."""


def _show(action: object) -> str:
    if action is None:
        return ""
    if isinstance(action, Action):
        return action.describe()
    return repr(action)


# --------------------------------------------------------------------------------------------
# Actions


class Visibility(StrEnum):
    """How the referee can learn that an action was taken.

    TABLE: the action changes what lies on the table, so the camera or sensor board sees it (a
    chance outcome marked TABLE can be observed: a card turned face up in a reveal slot). What
    it lays on the locations it names (`Action.LOCATIONS`) follows from what lies there and who
    lays it (a tile of her colour), not from elsewhere in the state: the referee's search counts
    on it (a tile laid wrong on a square is wrong from every node where the square is the same).
    IMPLIED: no sensor sees it, but a visible change that follows proves it (the end of an action
    phase, once a minecart has visibly moved); the referee may take it as part of a sequence.
    INPUT: a decision nothing on the table shows (which jewel, a hidden split, a speed change): a
    person gives it from a phone or a seat button.
    """

    TABLE = "table"
    IMPLIED = "implied"
    INPUT = "input"


class Decision(StrEnum):
    """Whose decision an action is, when it is one nothing on the table settles (`Action.DECISION`).

    The referee never takes such an action for anyone as part of the moves it reads off the table:
    where the rules wait for it and more than one is legal, it stops and asks whoever decides.

    NONE: not such a decision: the table shows it (a tile laid, a card played) or proves it (a
    route the minecart took, a speed die the cart's travel proves, an end of turn the next move
    proves).
    FREE: the free choice of the seat to act (`State.current_player`) that nothing on the table
    shows (which jewel to take, which pile is dropped, which mission is claimed).
    HIDDEN: a FREE choice that is also concealed (a hidden split): its question, options and answer
    reach that seat alone; not the other seats, not spectators, not the host.
    HOST: the host's ruling, whoever is to act (the remedy for a proven revoke).
    """

    NONE = "none"
    FREE = "free"
    HIDDEN = "hidden"
    HOST = "host"


@dataclass(frozen=True)
class Action:
    """Base of every action and chance outcome: a small frozen value with a stable JSON form.

    Subclasses set `TYPE` (the JSON "type") and declare fields of plain types: int, str, bool,
    str-valued enums, tuples of those, or optional ones. `CHANCE_OUTCOME` marks outcomes that
    only chance (or an observed physical draw) produces; `VISIBILITY` says whether the table
    shows the action (see `Visibility`; the safe default is INPUT, never inferred); `DECISION`
    whether it is someone's own decision that nothing on the table settles (see `Decision`).
    """

    TYPE: ClassVar[str] = ""
    CHANCE_OUTCOME: ClassVar[bool] = False
    VISIBILITY: ClassVar[Visibility] = Visibility.INPUT
    DECISION: ClassVar[Decision] = Decision.NONE  # a seat's own choice: never taken for it
    # IMPLIED actions that pass play to another seat (the end of a turn): the next seat's visible
    # action proves them. Otherwise only the same seat's own next action proves an implied one.
    PROVEN_BY_NEXT_SEAT: ClassVar[bool] = False
    WORDS: ClassVar[str] = ""  # for players: "place the {cart} minecart on {square}"
    # The fields that name a location of the table (a square, a card slot), as python-chess's
    # `Move` names its squares: what the referee compares with the locations that changed.
    # A card's id, a colour or exits are no location.
    LOCATIONS: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> JsonDict:
        out: JsonDict = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            out[f.name] = _to_json_value(getattr(self, f.name))
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        hints = _field_types(cls)
        extra = set(data) - set(hints) - {"type"}
        if extra:
            raise MalformedAction(f"unknown field(s) {sorted(extra)} for {cls.TYPE!r}", dict(data))
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name in data:
                kwargs[f.name] = _from_json_value(hints[f.name], data[f.name], f.name, data)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise MalformedAction(f"missing field {f.name!r} for {cls.TYPE!r}", dict(data))
        return cls(**kwargs)

    def locations(self) -> tuple[str, ...]:
        """The locations this action names: the values of its `LOCATIONS` fields."""
        return tuple(getattr(self, name) for name in self.LOCATIONS)

    def words(
        self,
        named: Callable[[str], str] | None = None,
        seats: Callable[[int], str] | None = None,
        say: Say = same,
    ) -> str:
        """What a player reads on the phone: `WORDS` filled in with the fields, else the type
        and its values in plain words. `named` gives players' name for an id (a place, a card);
        `{field:a}` in `WORDS` puts "a" or "an" before the value, `{seat:seat}` names the seat
        (by `seats`, else "seat 2"); `say` gives a line in the reader's language."""
        data = {k: word(said(v, named).replace("_", " "), seats) for k, v in self.to_json().items()}
        if self.WORDS:
            return say(self.WORDS).format(**data)
        values = [v for k, v in data.items() if k != "type"]
        return data["type"] + (": " + ", ".join(values) if values else "")

    def describe(self) -> str:
        """Short human text: `place_tile(square=F7, exits=NS)`."""
        args = ", ".join(f"{k}={plain(v)}" for k, v in self.to_json().items() if k != "type")
        return f"{self.TYPE}({args})"


def _to_json_value(v: Any) -> Any:
    if isinstance(v, enum.Enum):
        return v.value if isinstance(v.value, str) else v.name
    if isinstance(v, tuple):
        return [_to_json_value(x) for x in v]
    return v


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(cls: type) -> dict[str, Any]:
    hints = _FIELD_TYPES.get(cls)
    if hints is None:
        hints = _FIELD_TYPES[cls] = typing.get_type_hints(cls)
    return hints


def _from_json_value(tp: Any, v: Any, name: str, data: Mapping[str, Any]) -> Any:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if v is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _from_json_value(inner[0], v, name, data)
    if origin is tuple:
        if not isinstance(v, list | tuple):
            raise MalformedAction(f"field {name!r} must be a list", dict(data))
        (item,) = typing.get_args(tp)[:1]
        return tuple(_from_json_value(item, x, name, data) for x in v)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        by_json = {_to_json_value(m): m for m in tp}
        if isinstance(v, str) and v in by_json:
            return by_json[v]
        else:
            allowed = ", ".join(by_json)
            raise MalformedAction(
                f"field {name!r} is {v!r}, not one of {allowed}", dict(data)
            ) from None
    if tp is bool:
        if not isinstance(v, bool):
            raise MalformedAction(f"field {name!r} must be true or false", dict(data))
        return v
    if tp is int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise MalformedAction(f"field {name!r} must be an integer", dict(data))
        return v
    if tp is str:
        if not isinstance(v, str):
            raise MalformedAction(f"field {name!r} must be a string", dict(data))
        return v
    raise TypeError(f"unsupported action field type {tp!r}")  # a bug in a game's action class


A = TypeVar("A", bound=Action)


class ActionCodec:
    """Parses action JSON for one game: the `type` picks the class."""

    def __init__(self, classes: Iterable[type[Action]]) -> None:
        self.classes: dict[str, type[Action]] = {c.TYPE: c for c in classes}

    def parse(self, data: Mapping[str, Any] | Action) -> Action:
        if isinstance(data, Action):
            return data
        if not isinstance(data, Mapping):
            raise MalformedAction("an action must be a JSON object", data)
        kind = data.get("type")
        cls = self.classes.get(kind) if isinstance(kind, str) else None
        if cls is None:
            known = ", ".join(sorted(self.classes))
            raise MalformedAction(f"unknown action type {kind!r}; known: {known}", dict(data))
        return cls.from_json(data)


# --------------------------------------------------------------------------------------------
# Options


@dataclass(frozen=True)
class Option:
    """One game option: name, default, the values it may take, and the rule text it settles.
    `players`: the player counts it means anything for (None: every count); `main`: in the
    host's short form (else folded under more options); `offered`: where any value of its type
    is taken (a board's file), the values a host picks from; `needs`: another option's name and
    the value it must have for this one to mean anything (a variant's own setting)."""

    name: str
    default: Any
    choices: tuple[Any, ...] | None = None
    doc: str = ""
    players: tuple[int, ...] | None = None
    main: bool = False
    offered: tuple[Any, ...] | None = None
    needs: tuple[str, Any] | None = None

    def check(self, value: Any) -> Any:
        """The value if this option may take it (type-exactly: 1 is not true); else BadOptions
        naming the option, the value and the allowed values as JSON spells them."""
        if self.choices is not None and not any(
            value == c and type(value) is type(c) for c in self.choices
        ):
            allowed = ", ".join(_json(c) for c in self.choices)
            raise BadOptions(f"option {self.name!r} is {_json(value)}, not one of {allowed}")
        if self.choices is None and type(value) is not type(self.default):
            raise BadOptions(
                f"option {self.name!r} must be a {type(self.default).__name__}, got {_json(value)}"
            )
        return value


def _json(value: Any) -> str:
    """A value as it is written in JSON (true, false, null, "text", 3)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def resolve_options(spec: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with `given`; an unknown name or bad value raises `BadOptions`."""
    given = dict(given or {})
    known = {o.name: o for o in spec}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise BadOptions(f"unknown option(s) {unknown}; known: {sorted(known)}")
    return {o.name: o.check(given[o.name]) if o.name in given else o.default for o in spec}


# --------------------------------------------------------------------------------------------
# State

_NO_SNAPSHOT: Final = object()
"""The undo record of a step taken by `State.advance`: there is nothing to restore."""


def may_explain(action: Action, changed: AbstractSet[str], known: AbstractSet[str]) -> bool:
    """Whether `action` may explain a change seen at `changed` (`State.legal_actions_naming`):
    it does not show on the table, names no location, one that changed, or none of `known`."""
    if action.VISIBILITY is not Visibility.TABLE:
        return True
    named = action.locations()
    return not named or not changed.isdisjoint(named) or known.isdisjoint(named)


class State(ABC):
    """A game in progress. Subclasses implement the `_hooks`; the public methods are shared.

    `apply` is atomic: on any exception the state is exactly as before. `undo` restores the state
    before the last `apply` exactly. Both are built on `_snapshot`/`_restore`, which a game keeps
    cheap by holding its mutable data in a few containers of frozen values. `applied` tries a few
    actions inside a `with` block and takes them back after it.

    Legality is one hook, `why_not`: None for a legal action, else the `Why` it is refused.
    `is_legal` and `explain_illegal` (final) and `apply` ask it, after the checks every game
    shares (the game is over; a chance outcome while a player is to act, or the reverse).

    A game with hidden information overrides `_view_json` (what a seat sees of the state),
    `action_view` (what it sees of an applied action) and `redeal_secrets` (for the privacy test);
    `view` and `history_view` never carry the random seed.
    """

    GAME: ClassVar[str]
    CODEC: ClassVar[ActionCodec]

    def __init__(self, options: Mapping[str, Any], seed: int) -> None:
        self.options: dict[str, Any] = dict(options)
        self.seed = seed
        self._undo: list[tuple[Action, object]] = []
        self._actors: list[int] = []  # who took each action in `_undo` (CHANCE for chance)

    # ---- what a game implements
    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """A seat number, `CHANCE`, or `None` once the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every action the current player (or chance) may take now."""

    def legal_actions_naming(
        self, changed: AbstractSet[str], known: AbstractSet[str]
    ) -> list[Action]:
        """`legal_actions()` less the actions that show on the table (`Visibility.TABLE`) and
        name locations of `known`, none of them in `changed`: the actions that could explain a
        change seen at `changed` (the referee asks at every node it searches), in
        `legal_actions`' order. A game with many placements may override it to list fewer."""
        return [a for a in self.legal_actions() if may_explain(a, changed, known)]

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Carry out a legal action (legality already checked)."""

    @abstractmethod
    def _snapshot(self) -> object: ...

    @abstractmethod
    def _restore(self, snapshot: object) -> None: ...

    @abstractmethod
    def scores(self) -> list[float]:
        """Points per seat as they stand now (final once the game is over)."""

    def score_parts(self, say: Say = same) -> list[list[tuple[str, float]]]:
        """How each seat's score is made up, in words (said by `say`: English, as the code
        writes it, where no other is given) and points; they add up to `scores()`."""
        return [[(say("points"), score)] for score in self.scores()]

    def provisional_parts(self) -> list[set[str]]:
        """Per seat, which of `score_parts()` (by their words) are only provisional: counted as
        things stand, but decided at the game's end (none by default; none once it is over)."""
        return [set() for _ in self.scores()]

    @abstractmethod
    def _state_json(self) -> JsonDict:
        """Everything that defines the state, for `to_json` (besides game, options, seed)."""

    @classmethod
    @abstractmethod
    def _from_state_json(cls, options: dict[str, Any], seed: int, data: JsonDict) -> Self: ...

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """At a CHANCE state, each outcome with its probability; otherwise empty."""
        return []

    def observed_chance(self) -> bool:
        """Whether the pending chance happens on the table (a real card turned up, a real die
        rolled): the service then waits to see it, or to be told it, instead of drawing it."""
        return False

    def why_not(self, action: Action) -> Why | None:
        """None if `action` may be applied now, else the rule it breaks: the one legality hook.

        The shared checks come first (`is_legal`, `explain_illegal` and `apply` make them): the
        game is not over, and a chance outcome comes only when chance is to act, a player action
        only when a player is. A game overrides this to name its rules, and must agree with
        `legal_actions` and `chance_outcomes` (the conformance tests check it). By default a
        chance outcome must be among `chance_outcomes()` with a chance above 0, a player action
        among `legal_actions()`.
        """
        if action.CHANCE_OUTCOME:
            if any(outcome == action for outcome, p in self.chance_outcomes() if p > 0):
                return None
        elif action in self.legal_actions():
            return None
        return NOT_NOW

    def view(self, seat: int | None) -> JsonDict:
        """What `seat` may see (None: a spectator), never the random seed.

        Built from an allow-list: the game's name and options, and what `_view_json` names as
        visible to that seat. A game with hidden information overrides `_view_json`.
        """
        return {"game": self.GAME, "options": dict(self.options), **self._view_json(seat)}

    def _view_json(self, seat: int | None) -> JsonDict:
        """The state as `seat` may see it; by default all of `_state_json` (nothing is hidden)."""
        return self._state_json()

    def history_view(self, seat: int | None) -> list[JsonDict]:
        """The actions applied so far as `seat` may see them (see `action_view`)."""
        return [
            self.action_view(action, actor, seat)
            for (action, _), actor in zip(self._undo, self._actors, strict=True)
        ]

    def action_view(self, action: Action, actor: int, seat: int | None) -> JsonDict:
        """An applied action as `seat` may see it; `actor` took it. By default all of it."""
        return action.to_json()

    def redeal_secrets(self, seat: int, rng: random.Random) -> Self | None:
        """A copy in which what `seat` alone knows is drawn afresh, different but consistent
        with everything the others know; None if `seat` holds no such secret now.

        The privacy test uses it: every other seat's view must not change.
        """
        return None

    def invariants(self) -> list[str]:
        """The game's conservation laws that do not hold now (empty when all is well)."""
        return []

    def determinise(self, seat: int, rng: random.Random) -> Self:
        """A copy to search from (see `fork`) in which everything `seat` cannot see is drawn
        afresh at random, consistent with everything it has seen: the other hands, a split it
        may not look at. What `seat` sees is kept; chance still to come stays chance.

        The copy must depend only on what `seat` may see and on `rng`: two states that differ
        only in what `seat` cannot see give the same copy for the same `rng` (the computer
        player never peeks; its tests check it). By default nothing is hidden: a fork.
        """
        return self.fork()

    # ---- for the search (rules.ai): cheap copies, steps without checks or undo
    def fork(self, history: bool = False) -> Self:
        """An independent copy without undo history, as cheap as one undo snapshot (no JSON).

        `history=True` keeps the list of actions taken (what `determinise` may read: the plays of
        the tricks so far), not their undo snapshots: the copy still cannot undo them. A table
        hands such a copy to a computer player's search on another thread."""
        twin = copy.copy(self)
        twin.options = self.options  # never changed after the start: shared
        twin._undo = [(a, _NO_SNAPSHOT) for a, _ in self._undo] if history else []
        twin._actors = list(self._actors) if history else []
        twin._restore(self._snapshot())
        return twin

    def advance(self, action: Action) -> None:
        """Take an action from `legal_actions()` or `chance_outcomes()` of this very state, for
        good: no parsing, no legality check, no snapshot; `undo` cannot take it back.

        The search's playouts on a fork use it; a table never does (use `apply`). If `_apply`
        raises, the state is left half-changed: throw the fork away.
        """
        actor = self.current_player
        self._apply(action)
        self._undo.append((action, _NO_SNAPSHOT))
        self._actors.append(CHANCE if actor is None else actor)

    # ---- shared behaviour
    @property
    def is_over(self) -> bool:
        return self.current_player is None

    @property
    def history(self) -> list[Action]:
        return [a for a, _ in self._undo]

    def parse_action(self, data: Mapping[str, Any] | Action) -> Action:
        """The action for JSON (or an action value), in its one canonical form."""
        return self.normalise(self.CODEC.parse(data))

    def normalise(self, action: Action) -> Action:
        """Write an action the way `legal_actions` does (say, square names upper-case).

        Games whose actions can be spelt several ways override this, so that `apply`,
        `legal_actions` and the history agree on one form.
        """
        return action

    @final
    def is_legal(self, action: Action) -> bool:
        """Whether `action` may be applied now (see `why_not`)."""
        return self._refusal(action, self.current_player) is None

    @final
    def explain_illegal(self, action: Action) -> IllegalAction:
        """The error for an action that is not legal now, naming the rule it breaks.

        Raises ValueError if the action is legal now: there is nothing to explain.
        """
        why = self._refusal(action, self.current_player)
        if why is None:
            raise ValueError(f"{action.describe()} is legal now")
        return why.error(action)

    @final
    def _refusal(self, action: Action, player: int | None) -> Why | None:
        """The shared checks, then the game's `why_not`; `player` is `current_player`."""
        if player is None:
            return Why("the game is over")
        if (player == CHANCE) != action.CHANCE_OUTCOME:
            if action.CHANCE_OUTCOME:
                return Why("a chance outcome, but a player is to act now")
            return Why("a player action, but chance is to be resolved now")
        return self.why_not(action)

    def apply(self, action: Mapping[str, Any] | Action) -> None:
        """Apply a player action or chance outcome (a value or its JSON); atomic."""
        act = self.parse_action(action)
        actor = self.current_player
        why = self._refusal(act, actor)
        if why is not None:
            raise why.error(act)
        assert actor is not None  # the game is not over: `_refusal` checked it
        snap = self._snapshot()
        try:
            self._apply(act)
        except BaseException:
            self._restore(snap)
            raise
        self._undo.append((act, snap))
        self._actors.append(actor)

    def apply_legal(self, action: Action) -> None:
        """Apply an action this very state just listed (`legal_actions`, `chance_outcomes`).

        The parsing and checks `apply` makes are skipped: a search that applies thousands of
        actions it took from the rules themselves pays for the rules' moves alone. Undone as
        `apply`'s are. An action from anywhere else goes through `apply`."""
        actor = self.current_player
        assert actor is not None, "the game is over: no action is listed"
        snap = self._snapshot()
        try:
            self._apply(action)
        except BaseException:
            self._restore(snap)
            raise
        self._undo.append((action, snap))
        self._actors.append(actor)

    def undo(self) -> Action:
        """Take back the last applied action; returns it. Raises IndexError if there is none."""
        if not self._undo:
            raise IndexError("nothing to undo")
        act, snap = self._undo[-1]
        if snap is _NO_SNAPSHOT:
            raise RuntimeError(f"{act.describe()} was taken by advance(): it cannot be undone")
        self._undo.pop()
        self._actors.pop()
        self._restore(snap)
        return act

    @final
    @contextlib.contextmanager
    def applied(self, actions: Iterable[Mapping[str, Any] | Action]) -> Iterator[list[Action]]:
        """Try actions and take them back: `with state.applied([a, b]) as done: ...`.

        Applies the actions (values or JSON) in order, as `apply` does, and yields them in their
        canonical form; when the block ends, however it ends (an exception included), the state
        is taken back to how it was before: what the block itself applied and left on top is
        undone as well, since it lies over the given actions. If an action is refused part-way,
        those before it are undone and its `IllegalAction` (or `MalformedAction`) is raised; the
        block does not run. One action is `state.applied([action])`.

        The block must not take back actions applied before it (a RuntimeError says so).
        """
        if isinstance(actions, Mapping | Action):
            raise TypeError("applied() takes a list of actions; one is applied([action])")
        depth = len(self._undo)
        done: list[Action] = []
        try:
            for action in actions:
                self.apply(action)
                done.append(self._undo[-1][0])
            yield done
        finally:
            if len(self._undo) < depth:
                raise RuntimeError(
                    f"the block took back {depth - len(self._undo)} action(s) applied before it"
                )
            while len(self._undo) > depth:
                self.undo()

    def to_json(self) -> JsonDict:
        return {
            "game": self.GAME,
            "options": dict(self.options),
            "seed": self.seed,
            **self._state_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild a state from `to_json` output; it has no undo history."""
        own = copy.deepcopy(dict(data))
        if own.get("game") != cls.GAME:
            raise ValueError(f"state JSON is for game {own.get('game')!r}, not {cls.GAME!r}")
        return cls._from_state_json(dict(own["options"]), int(own["seed"]), own)

    def clone(self) -> Self:
        """An independent copy (without undo history)."""
        return self.from_json(self.to_json())
