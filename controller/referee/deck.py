"""The digital deck: each draw a keyed function of the game's secret and of its position."""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass, field
from typing import ClassVar

from rules.core import Action, State

SECRET_BYTES = 32  # a game's secret from the OS: 256 bits, never fewer than MIN_SECRET_BYTES
MIN_SECRET_BYTES = 16  # 128 bits: no one searches them
_DRAW = b"railtable draw v1"  # what a key is for: the digital deck's draws
_SEARCH = b"railtable search v1"  # the computer players' search seeds
SEARCH_SEED_LIMIT = 1 << 31  # a search's seed: below this, as a seeded game's always were


def new_secret() -> bytes:
    """A new game's secret, from the operating system's randomness."""
    return secrets.token_bytes(SECRET_BYTES)


@dataclass(frozen=True)
class SecretDeck:
    """The live service's deck: draw n of a game is picked by HMAC-SHA256(secret; the game's
    name, n), a 64-bit number seeding the pick among the outcomes by their chances. Without the
    secret no draw tells anything of another; with it (the log, a finished game's record) every
    draw is the same again, so a restart and a replay agree."""

    secret: bytes = field(repr=False)  # never in a repr: tracebacks and logs do not show it
    game: str

    def __post_init__(self) -> None:
        if len(self.secret) < MIN_SECRET_BYTES:
            raise ValueError(f"a game's secret has at least {MIN_SECRET_BYTES} bytes")

    predictable: ClassVar[bool] = False  # no one without the secret tells a draw to come

    def key(self, label: bytes, position: int) -> int:
        """64 bits keyed by the secret, for `label` (what they are for) at `position`."""
        message = b"\0".join((label, self.game.encode(), position.to_bytes(8, "big")))
        digest = hmac.new(self.secret, message, hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big")

    def draw_seed(self, position: int) -> int:
        """The 64 bits that pick the draw made after `position` steps of the game."""
        return self.key(_DRAW, position)

    def __call__(self, state: State) -> Action:
        """The outcome of the chance pending in `state`, drawn at its position (the number of
        steps so far): the same state draws the same, so the referee can look past a draw."""
        return _pick(state, self.draw_seed(len(state.history)))

    def search_seed(self, moves: int) -> int:
        """A computer player's search seed at the game's `moves`th change: keyed by the secret
        (the search never sees the secret, nor any draw to come), the same for a replay."""
        return self.key(_SEARCH, moves) % SEARCH_SEED_LIMIT


@dataclass(frozen=True)
class SeededDeck:
    """A deck for tests and reproducible demos (`--seed`, the config's `seed`): draw n is
    `random.Random(seed * 1000003 + n)`'s pick. Predictable by anyone who finds the seed (2^31
    of them are searched in minutes): never the table's deck unless the host asked for a seed."""

    seed: int
    predictable: ClassVar[bool] = True

    def __call__(self, state: State) -> Action:
        return _pick(state, self.seed * 1_000_003 + len(state.history))

    def search_seed(self, moves: int) -> int:
        """A search's seed: the same game at the same move decides the same way."""
        return random.Random(self.seed * 1_000_003 + moves).randrange(SEARCH_SEED_LIMIT)


Deck = SecretDeck | SeededDeck


def _pick(state: State, seed: int) -> Action:
    outcomes = state.chance_outcomes()
    rng = random.Random(seed)
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def digital_draw(state: State) -> Action:
    """A draw from the state's own seed (`SeededDeck`): for tests, scenarios and benches, which
    replay a game from its seed. Predictable: the live service draws from the game's `Deck`."""
    return SeededDeck(state.seed)(state)
