"""Off the Rails actions and chance outcomes: frozen values whose JSON is documented in docs/."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules.core import Action, ActionCodec, Decision, Visibility
from rules.offtherails.components import Colour, Direction, Gem, Side
from rules.offtherails.missions import Mission
from rules.said import Say, listed, said, same, side_said, spoken, word

# ---- setup


@dataclass(frozen=True)
class ChooseSide(Action):
    """The first player chooses the side of the board to begin on."""

    TYPE = "choose_side"
    WORDS = spoken("choose the {side} side")
    DECISION = Decision.FREE  # the first player's choice; nothing lies on the table yet
    side: Side


# ---- action phase


_OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}


def track_words(exits: str, say: Say = same) -> tuple[str, str]:
    """A track tile as players name it, and where it leads: ("a corner track", ", joining south
    and west")."""
    sides = [side_said(e, say) for e in exits]
    joined = listed(sides, say)
    if len(exits) == 2 and _OPPOSITE.get(exits[0]) == exits[1]:
        leads = say(", running {start} to {end}").format(start=sides[0], end=sides[1])
        return say("a straight track"), leads
    if len(exits) == 2:
        return say("a corner track"), say(", joining {sides}").format(sides=joined)
    if len(exits) == 3:
        return say("a T junction"), say(", joining {sides}").format(sides=joined)
    if len(exits) == 4:
        return say("a crossing"), ""
    return say("a track tile"), say(", exits {exits}").format(exits=exits)


@dataclass(frozen=True)
class PlaceTile(Action):
    """Place a straight or corner track tile on an empty square, exits as letters: "NS", "NE"."""

    TYPE = "place_tile"
    LOCATIONS = ("square",)
    VISIBILITY = Visibility.TABLE
    square: str
    exits: str

    def words(
        self,
        named: Callable[[str], str] | None = None,
        seats: Callable[[int], str] | None = None,
        say: Say = same,
    ) -> str:
        kind, leads = track_words(self.exits, say)
        square = named(self.square) if named else self.square
        return say("lay {track} on {square}{leads}").format(track=kind, square=square, leads=leads)


@dataclass(frozen=True)
class Upgrade(Action):
    """Upgrade an unoccupied tile: straight or corner to a T, a T to a cross. `exits` after it."""

    TYPE = "upgrade"
    LOCATIONS = ("square",)
    VISIBILITY = Visibility.TABLE
    square: str
    exits: str

    def words(
        self,
        named: Callable[[str], str] | None = None,
        seats: Callable[[int], str] | None = None,
        say: Say = same,
    ) -> str:
        kind, leads = track_words(self.exits, say)
        square = named(self.square) if named else self.square
        line = say("make the tile on {square} {track}{leads}")
        return line.format(square=square, track=kind, leads=leads)


class _CartWords(Action):
    """An action naming a minecart by its id ("red-white"): said by the game's name for it
    ("the red minecart with the white die"), else as "the red-white minecart"."""

    def words(
        self,
        named: Callable[[str], str] | None = None,
        seats: Callable[[int], str] | None = None,
        say: Say = same,
    ) -> str:
        data = {k: word(said(v, named), seats) for k, v in self.to_json().items()}
        cart = str(self.to_json()["cart"])
        if named is None or named(cart) == cart:
            data["cart"] = word(say("the {cart} minecart").format(cart=cart), seats)
        return say(self.WORDS).format(**data)


@dataclass(frozen=True)
class PlaceCart(_CartWords):
    """Put a minecart from one's supply on a free starting track of one's Surface Layer."""

    TYPE = "place_cart"
    WORDS = spoken("place {cart} on {square}")
    LOCATIONS = ("square",)
    VISIBILITY = Visibility.TABLE
    cart: str
    square: str


@dataclass(frozen=True)
class SetSpeed(_CartWords):
    """Turn a minecart's speed die up or down by one."""

    TYPE = "set_speed"
    WORDS = spoken("set the speed of {cart} to {speed}")
    cart: str
    speed: int


@dataclass(frozen=True)
class EndActions(Action):
    """End the action phase (it also ends by itself once all actions are used)."""

    TYPE = "end_actions"
    WORDS = spoken("done with actions: the minecarts move")
    VISIBILITY = Visibility.IMPLIED
    PROVEN_BY_NEXT_SEAT = True  # with no minecart to move, the next player's move proves it


# ---- move phase


@dataclass(frozen=True)
class MoveFirst(_CartWords):
    """Choose which of one's minecarts moves next."""

    TYPE = "move_first"
    WORDS = spoken("move {cart} first")
    VISIBILITY = Visibility.IMPLIED
    cart: str


@dataclass(frozen=True)
class Route(Action):
    """At a junction, the exit the moving minecart leaves by."""

    TYPE = "route"
    WORDS = spoken("at the junction, go {exit}")
    VISIBILITY = Visibility.IMPLIED
    exit: Direction


@dataclass(frozen=True)
class TakeJewel(Action):
    """Choose which jewel the minecart picks up from a deposit offering a choice."""

    TYPE = "take_jewel"
    WORDS = spoken("take {jewel:a}")
    DECISION = Decision.FREE  # jewels carry no markers: the table never shows which
    jewel: Gem


@dataclass(frozen=True)
class Split(Action):
    """The hit minecart's owner splits its jewels: `pile` is pile 1 (the larger when odd)."""

    TYPE = "split"
    WORDS = spoken("split the jewels: {pile} in pile 1, the rest in pile 2")
    DECISION = Decision.HIDDEN  # concealed: the hit cart's owner alone knows the piles
    pile: tuple[Gem, ...]


@dataclass(frozen=True)
class DropPile(Action):
    """The moving player chooses which hidden pile (1 or 2) the hit minecart drops."""

    TYPE = "drop_pile"
    WORDS = spoken("drop pile {pile}")
    DECISION = Decision.FREE  # the moving player's pick between hidden piles
    pile: int


@dataclass(frozen=True)
class ClaimMission(Action):
    """Claim one completed mission card (at most one a turn)."""

    TYPE = "claim_mission"
    WORDS = spoken("claim the mission {mission}")
    DECISION = Decision.FREE  # which of several completed missions
    mission: Mission


@dataclass(frozen=True)
class PlaceChasm(Action):
    """Chasm phase: put the drawn chasm token on a square next to one of its colour."""

    TYPE = "place_chasm"
    WORDS = spoken("place a chasm on {square}")
    LOCATIONS = ("square",)
    VISIBILITY = Visibility.TABLE
    square: str


# ---- chance outcomes


@dataclass(frozen=True)
class AssignSide(Action):
    """Chance: the side the third player gets at random."""

    TYPE = "assign_side"
    WORDS = spoken("deal the {side} side")
    CHANCE_OUTCOME = True
    side: Side


@dataclass(frozen=True)
class DealMission(Action):
    """Chance: a mission card dealt face up."""

    TYPE = "deal_mission"
    WORDS = spoken("deal the mission {mission}")
    CHANCE_OUTCOME = True
    mission: Mission


@dataclass(frozen=True)
class RevealDeposit(Action):
    """Chance: a deposit card turned face up, naming mine square `number` of the `colour` mine."""

    TYPE = "reveal_deposit"
    WORDS = spoken("reveal the {colour} deposit {number}")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.TABLE  # with the physical deck: the card in the reveal slot
    colour: Colour
    number: int


@dataclass(frozen=True)
class RevealChasmCard(Action):
    """Chance: the Chasm card turned up from the deposit deck."""

    TYPE = "reveal_chasm_card"
    WORDS = spoken("reveal a chasm card")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.TABLE


@dataclass(frozen=True)
class DrawGem(Action):
    """Chance: one gem drawn blind from the bag."""

    TYPE = "draw_gem"
    WORDS = spoken("draw {gem:a}")
    CHANCE_OUTCOME = True
    gem: Gem


@dataclass(frozen=True)
class DrawChasmToken(Action):
    """Chance: a chasm token drawn from the supply."""

    TYPE = "draw_chasm_token"
    WORDS = spoken("draw a {colour} chasm token")
    CHANCE_OUTCOME = True
    colour: Colour


@dataclass(frozen=True)
class RollChasmDie(Action):
    """Chance (chasm die variant): the eight-sided die naming the mine square that collapses."""

    TYPE = "roll_chasm_die"
    WORDS = spoken("roll {number} on the chasm die")
    CHANCE_OUTCOME = True
    number: int


CODEC = ActionCodec(
    [
        ChooseSide,
        PlaceTile,
        Upgrade,
        PlaceCart,
        SetSpeed,
        EndActions,
        MoveFirst,
        Route,
        TakeJewel,
        Split,
        DropPile,
        ClaimMission,
        PlaceChasm,
        AssignSide,
        DealMission,
        RevealDeposit,
        RevealChasmCard,
        DrawGem,
        DrawChasmToken,
        RollChasmDie,
    ]
)
