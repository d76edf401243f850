"""How the phone page draws each game's pieces (`GET /api/games/{name}/look`): per piece of the
game's catalogue, the form to draw, its display colour, its letter and its track exits.

The rules know which pieces exist and what they are (a minecart's colour and die, a tile's face, a
rail card's tracks, a card's company); a display colour is no fact of the rules, so the palette is
here, keyed by the games' own colour and company names. The page draws from this and knows no game.

A piece is keyed as `str(Piece)`: "kind:identity", or "kind:identity:face" for a face. Its look is
one of these forms (directions are 0 north, 1 east, 2 south, 3 west, of the piece at turn 0):

- `tile`: a square tile; `exits` its track ends; `colour` its owner's colour (null: nobody's),
  `letter` the colour's letter;
- `token`: a round piece (a minecart, a wagon, the Rock); `colour`, `ink` (the letter's colour on
  it), `letter`, `cap` ("white" dashed, "black" heavy, or null), `heading` (draw its facing);
- `chasm`: a chasm token: `colour`, `letter`;
- `station`: a station card: `colour`, `letter`;
- `rail`: a rail card laid along its slot: `tracks`, each `{"exits", "over"}` (two exits: one track
  from one to the other, straight or curved; three or more: all joined at the middle; `over`: it
  crosses an earlier track on a bridge), `stubs` the dead ends;
- `card`: any other card: `colour` of its edge, `words` to write on it (at most three).

Colours never stand alone: every colour carries a letter (R red, Y yellow, G green, U blue, W white,
K black) or the company's short name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.words.language import Language, tongue
from rules.physical import Piece
from rules.registry import GAMES
from rules.said import Say, same

Look = dict[str, Any]


@dataclass(frozen=True)
class Paint:
    """A display colour: its fill, the letter saying it without colour, the ink to write on it."""

    fill: str
    letter: str = ""
    ink: str = "#fff"


PALETTE = {
    "red": Paint("#c62828", "R"),
    "yellow": Paint("#f9a825", "Y", "#000"),
    "green": Paint("#2e7d32", "G"),
    "blue": Paint("#1565c0", "U"),
    "white": Paint("#eeeeee", "W", "#000"),
    "black": Paint("#212121", "K"),
    "grey": Paint("#757575"),
    "purple": Paint("#6a1b9a"),
    "orange": Paint("#ef6c00"),
}
ROCK = Paint("#616161", "✦")
PLAIN = "#777"  # the edge of a card of no colour


def _exits(mask: int) -> list[int]:
    return [d for d in range(4) if mask & (1 << d)]


def _tile(exits: list[int], paint: Paint | None = None) -> Look:
    return {
        "form": "tile",
        "exits": exits,
        "colour": None if paint is None else paint.fill,
        "letter": "" if paint is None else paint.letter,
    }


def _token(paint: Paint, *, cap: str | None = None, heading: bool = True) -> Look:
    mark = {"white": "w", "black": "k"}.get(cap or "", "")
    return {
        "form": "token",
        "colour": paint.fill,
        "ink": paint.ink,
        "letter": paint.letter + mark,
        "cap": cap,
        "heading": heading,
    }


def _card(words: list[str], paint: Paint | None = None) -> Look:
    return {"form": "card", "colour": PLAIN if paint is None else paint.fill, "words": words[:3]}


def _plain_words(identity: str) -> list[str]:
    return [w for w in identity.replace("_", " ").split(" ") if w][:3]


def _offtherails(say: Say = same) -> dict[Piece, Look]:
    from rules.offtherails import components as c
    from rules.offtherails import physical as p
    from rules.offtherails.missions import MISSION_TITLE, Mission

    looks: dict[Piece, Look] = {}
    for kind, face in p.TILE_FACES:
        looks[p.tile_piece(kind, face)] = _tile(_exits(c.BASE_MASK[face]))
    for colour in c.COLOURS:
        paint = PALETTE[colour.value]
        for die in c.Die:
            looks[p.cart_piece(colour.value, die.value)] = _token(paint, cap=die.value)
        looks[p.chasm_piece(colour.value)] = {
            "form": "chasm",
            "colour": paint.fill,
            "letter": paint.letter,
        }
    for entry in p.catalogue().entries:
        piece = entry.piece
        if piece.kind == "deposit_card":
            named, _, number = piece.identity.partition("-")  # "red-3"; "chasm"
            suit = PALETTE.get(named) if number else None
            looks[piece] = (
                _card([suit.letter, number], suit) if suit is not None else _card([say("Chasm")])
            )
        elif piece.kind == "mission_card":
            title = say(MISSION_TITLE[Mission(piece.identity)])
            looks[piece] = _card(title.split(" ", 2))
    return looks


def _minewagons(say: Say = same) -> dict[Piece, Look]:
    from rules.minewagons import components as c
    from rules.minewagons import physical as p

    looks: dict[Piece, Look] = {}
    for colour in p.TILE_COLOURS:
        for shape in c.SHAPES:
            looks[p.tile_piece(colour, shape)] = _tile(
                _exits(c.BASE_EXITS[shape]), PALETTE[colour.value]
            )
    looks[p.FACE_DOWN] = _tile([], PALETTE[c.Colour.GREEN.value])
    for colour in c.PLAYER_COLOURS:
        looks[p.wagon_piece(colour)] = _token(PALETTE[colour.value])
    looks[p.ROCK] = _token(ROCK, heading=False)
    return looks


STATION_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")  # companies A-F


def _derailed(say: Say = same) -> dict[Piece, Look]:
    from rules.derailed import physical as p
    from rules.derailed.cards import Side, default_cards
    from rules.derailed.data import COMPANIES

    upright = {Side.T: 0, Side.R: 1, Side.B: 2, Side.L: 3}  # the card held upright: top north
    looks: dict[Piece, Look] = {}
    for company, colour in zip(COMPANIES, STATION_COLOURS, strict=True):
        looks[p.station_piece(company)] = {
            "form": "station",
            "colour": PALETTE[colour].fill,
            "letter": company,
        }
    for card in default_cards().cards:
        sides = [s for pair in card.tracks for s in pair]
        joined = list(dict.fromkeys(sides))
        everywhere = (
            len({frozenset(t) for t in card.tracks}) == len(joined) * (len(joined) - 1) // 2
        )
        groups = [joined] if len(joined) > 2 and everywhere else [list(t) for t in card.tracks]
        tracks: list[Look] = []
        for group in groups:
            exits = [upright[s] for s in group]
            straight = len(exits) == 2 and abs(exits[0] - exits[1]) == 2
            over = straight and any(
                len(t["exits"]) == 2
                and abs(t["exits"][0] - t["exits"][1]) == 2
                and not set(t["exits"]) & set(exits)
                for t in tracks
            )
            tracks.append({"exits": exits, "over": over})
        looks[p.rail_piece(card.id)] = {
            "form": "rail",
            "tracks": tracks,
            "stubs": [upright[s] for s in card.stubs],
        }
    return looks


COMPANY_COLOURS = {"bo": "blue", "co": "green", "erie": "yellow", "nyc": "grey", "prr": "red"}


def _trickoftherails(say: Say = same) -> dict[Piece, Look]:
    from rules.trickoftherails import cards as c
    from rules.trickoftherails import physical as p

    looks: dict[Piece, Look] = {}
    for card_id, card in c.CARDS.items():
        if card.kind is c.Kind.CITY:
            city = card_id.removeprefix("city-").replace("_", " ").title()
            looks[p.card_piece(card_id)] = _card([say("City"), city, str(card.value)])
            continue
        if card.kind is c.Kind.LOCOMOTIVE:
            reach = "∞" if card.distance == 0 else str(card.distance)
            cost = say("cost {cost}").format(cost=card.cost)
            looks[p.card_piece(card_id)] = _card([say("Loco"), reach, cost])
            continue
        if card.company is None:
            looks[p.card_piece(card_id)] = _card([say("Reserved")])
            continue
        kinds = {c.Kind.STATION: say("station"), c.Kind.EXCHANGE: say("exchange")}
        rest = str(card.number) if card.kind is c.Kind.RAILWAY else kinds[card.kind]
        paint = PALETTE[COMPANY_COLOURS[card.company.value]]
        looks[p.card_piece(card_id)] = _card([c.COMPANY_NAMES[card.company], rest], paint)
    return looks


BUILDERS: dict[str, Callable[[Say], dict[Piece, Look]]] = {
    "offtherails": _offtherails,
    "minewagons": _minewagons,
    "derailed": _derailed,
    "trickoftherails": _trickoftherails,
}


# Things with no marker (`Game.goods`), drawn by identity: each jewel a filled gem of its own
# shape (so a jewel is told by its shape as well as its colour), a speed die with its pips.
GEM_LOOKS: dict[str, Look] = {
    "rock": {"form": "gem", "shape": "rock", "colour": "#8d8d8d"},
    "ruby": {"form": "gem", "shape": "ruby", "colour": "#d32f2f"},
    "emerald": {"form": "gem", "shape": "emerald", "colour": "#2e9d47"},
    "gold": {"form": "gem", "shape": "gold", "colour": "#f9c025"},
    "diamond": {"form": "gem", "shape": "diamond", "colour": "#dff4ff"},
    "speed": {"form": "die", "colour": "#fff"},
}
GOODS: dict[str, dict[str, Look]] = {"offtherails": GEM_LOOKS}


@functools.cache
def look(game: str, language: Language = Language.EN) -> dict[str, Any]:
    """The look of every piece `game` prints (KeyError: no such game), the words on its cards in
    `language`. A piece no builder knows is drawn as a plain card with its identity's words."""
    info = GAMES[game]
    say = tongue(language)
    known = BUILDERS[game](lambda line: say.tr(line)) if game in BUILDERS else {}
    pieces = [e.piece for e in info.catalogue().entries]
    return {
        "game": game,
        "goods": GOODS.get(game, {}),
        "pieces": {
            str(piece): known.get(piece) or _card(_plain_words(piece.identity)) for piece in pieces
        },
    }
