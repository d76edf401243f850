"""A verdict in words: the one place that says what the referee decided, from its data.

`said(data, book)` takes a verdict as the log and the snapshots keep it (`Verdict.to_json`, after
`privacy.verdict_for` kept what its audience may see) and adds its words: `text` (the referee's
account: "applied: ..."), `words` (the same for a player's phone: "seen on the table: ..."),
each option's, instruction's and wrong location's `text`, and the places' and seat's names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.referee.verdict import Reason, Verdict, VerdictKind, Wrong
from controller.words.book import Book, the
from rules.game import Game

_LEGAL_SHOWN = 3  # legal moves named for a wrong location, at most


def verdict_line(verdict: Verdict, book: Book) -> str:
    """The referee's one line for a verdict."""
    return str(said(verdict.to_json(), book)["text"])


def said(data: Mapping[str, Any], book: Book) -> dict[str, Any]:
    """The verdict with its words (a verdict logged before verdicts were data keeps its own)."""
    out = dict(data)
    if "reason" not in data:  # logged before verdicts were data: its own words
        if data.get("withheld"):
            out["text"] = out["words"] = _withheld(data, book)
        return out
    reason = Reason(data["reason"])
    instructions = [_instruction(i, book) for i in data.get("instructions", [])]
    out["instructions"] = [
        {**i, "text": t, "place": book.place(i["location"])}
        for i, t in zip(data.get("instructions", []), instructions, strict=True)
    ]
    out["options"] = [
        {
            **o,
            "text": _option(o, book),
            "words": _then(book, [book.action(a) for a in o["actions"]]),
        }
        for o in data.get("options", [])
    ]
    wrong = [_wrong(w, book) for w in data.get("wrong", [])]
    out["wrong"] = [
        {**w, "text": t, "place": book.place(w["location"])}
        for w, t in zip(data.get("wrong", []), wrong, strict=True)
    ]
    out["places"] = [book.place(n) for n in data.get("locations", [])]
    if data.get("seat") is not None:
        out["who"] = book.seat(data["seat"])
    text, words = _lines(data, reason, book, instructions, wrong, out["options"])
    out["text"], out["words"] = text, words
    return out


def _lines(
    data: Mapping[str, Any],
    reason: Reason,
    book: Book,
    instructions: list[str],
    wrong: list[str],
    options: list[dict[str, Any]],
) -> tuple[str, str]:
    """The verdict's line for the referee's account, and for a phone."""
    kind = VerdictKind(data["kind"])
    seat = data.get("seat")
    acts = data.get("actions", [])
    say = book.say
    moves = "; ".join(book.action(a) for a in acts)
    seen = (
        say.tr("seen on the table: {moves}", moves=moves)
        if moves
        else say.tr("seen on the table: nothing new")
    )
    applied = say.tr("applied: {moves}", moves=book.actions(acts))
    if data.get("withheld"):
        line = _withheld(data, book)
        return line, line
    if kind is VerdictKind.APPLIED:
        text = applied
        if reason is Reason.COMPUTER_DECIDES:
            text = say.tr(
                "{done}; now {player} decides its move", done=text, player=book.seat(seat)
            )
        elif instructions:
            text = say.tr("{done}; now: {steps}", done=text, steps="; ".join(instructions))
        return text, seen
    line = _line(data, reason, book, instructions, wrong, options)
    move = data.get("computer_move")
    if move is not None:
        computer, action = move["seat"], book.action(move["action"])
        if kind is VerdictKind.INSTRUCTIONS:
            line = say.tr(
                "{player}: {move}; to do: {steps}",
                player=book.seat(computer), move=action, steps="; ".join(instructions),
            )  # fmt: skip
        elif kind is VerdictKind.ALERT:
            line = say.tr(
                "{alert} | {player}'s move: {move}",
                alert=line, player=book.seat(computer), move=action,
            )  # fmt: skip
    follows = data.get("follows")
    if follows == Reason.AS_EXPECTED.value:
        line = say.tr("the table is as the rules expect; {then}", then=line)
    elif follows == Reason.SEEN.value:
        if instructions:
            steps = "; ".join(instructions)
            applied = say.tr("{done}; now: {steps}", done=applied, steps=steps)
            seen = say.tr("{done}; now: {steps}", done=seen, steps=steps)
        return f"{applied}; {line}", f"{seen}; {line}"
    return line, line


def _line(
    data: Mapping[str, Any],
    reason: Reason,
    book: Book,
    instructions: list[str],
    wrong: list[str],
    options: list[dict[str, Any]],
) -> str:
    seat = data.get("seat")
    say = book.say
    places = book.places(data.get("locations", []))
    said_options = "; ".join(o["text"] for o in options)
    who = book.seat(seat) if seat is not None else say.tr("the host (a real draw)")
    if reason is Reason.AS_EXPECTED:
        return say.tr("the table is as the rules expect")
    if reason is Reason.COMPUTER_DECIDES:
        return say.tr("waiting for {player} to decide its move", player=book.seat(seat))
    if reason is Reason.FOLLOWING:
        return say.tr("to do: {steps}", steps="; ".join(instructions))
    if reason is Reason.MANY_READINGS:
        return say.ntr(
            "{player}: the table fits {count} move; which one was it? {moves}",
            "{player}: the table fits {count} moves; which one was it? {moves}",
            len(options), player=book.seat(seat), moves=" | ".join(o["text"] for o in options),
        )  # fmt: skip
    if reason is Reason.HIDDEN_CHOICE:
        kinds = ", ".join(k.replace("_", " ") for k in data.get("asked_kinds", []))
        return say.tr(
            "{player}: a hidden choice ({kinds}), made on {player}'s phone alone",
            player=book.seat(seat), kinds=kinds,
        )  # fmt: skip
    if reason is Reason.OWN_DECISION:
        return say.tr(
            "{player}: yours to decide, the table cannot show it; say which: {options}",
            player=book.seat(seat), options=said_options,
        )  # fmt: skip
    if reason is Reason.UNSEEN_INPUT:
        return say.tr("{player}: the table cannot show this; say which: {options}",
                      player=who, options=said_options)  # fmt: skip
    if reason is Reason.CAME_UP:
        return say.tr("{player}: say which came up: {options}", player=who, options=said_options)
    if reason is Reason.COVERED:
        return say.tr("waiting: {places} covered; the move cannot be judged yet", places=places)
    if reason is Reason.COVERED_MANY:
        return say.tr(
            "waiting: more than one move, or the end of a turn, while {places} cannot be seen; "
            "uncover them",
            places=places,
        )
    if reason is Reason.DRAW_NOT_SHOWN:
        drawn = _or(book, [book.action(a) for a in data.get("drawn", [])])
        return say.tr("waiting: what came up ({drawn}) does not show on the table yet", drawn=drawn)
    if reason is Reason.NEEDS_COVERED:
        return say.tr(
            "waiting: the move needs {places}, covered now; it is judged once they can be seen",
            places=places,
        )
    if reason is Reason.BACK_TO_BEFORE:
        return say.tr("the table is back to before {moves}: take it back?",
                      moves=book.actions(data.get("actions", [])))  # fmt: skip
    if reason is Reason.REAL_DRAW_KEPT:
        real = ", ".join(book.action(a) for a in data.get("drawn", []))
        return say.tr(
            "not taken back: the table is back to before {moves}, but real draws came since "
            "({draws}) and the referee never takes back a real draw: put the pieces back as the "
            "rules have them, or the host undoes it | {wrong}",
            moves=book.actions(data.get("taken", [])), draws=real, wrong=" | ".join(wrong),
        )  # fmt: skip
    return say.tr(
        "not a legal move: {wrong}", wrong=" | ".join(dict.fromkeys(wrong))
    )  # also TOO_MANY


def _withheld(data: Mapping[str, Any], book: Book) -> str:
    """A question as those who are not asked see it: who is asked, not the options."""
    seat, say = data.get("seat"), book.say
    if data.get("hidden"):
        return say.tr("{player} makes a hidden choice on their own phone", player=book.seat(seat))
    if seat is None:
        return say.tr("the host is asked what the table cannot show")
    return say.tr("{player} is asked how the table came about", player=book.seat(seat))


def _option(option: Mapping[str, Any], book: Book) -> str:
    moves = book.actions(option["actions"])
    return book.say.tr("{moves}, then a question", moves=moves) if option.get("asks") else moves


def _then(book: Book, moves: list[str]) -> str:
    """`lay a track then move the minecart`: moves one after the other."""
    said = moves[0] if moves else ""
    for move in moves[1:]:
        said = book.say.tr("{first} then {next}", first=said, next=move)
    return said


def _or(book: Book, items: list[str]) -> str:
    """`a ruby or a diamond`."""
    said = items[0] if items else ""
    for item in items[1:]:
        said = book.say.tr("{first} or {next}", first=said, next=item)
    return said


def _instruction(data: Mapping[str, Any], book: Book) -> str:
    """One location's instruction: the pieces to turn, put on and take off."""
    place, say = book.place(data["location"]), book.say
    take_off, put_on = data.get("take_off", []), data.get("put_on", [])
    parts = []
    turned = {t.partition("@")[0] for t in take_off} & {t.partition("@")[0] for t in put_on}
    for text in put_on:
        label, turn = book.piece_words_of(text)
        piece = book.the(label)
        if text.partition("@")[0] in turned:
            parts.append(
                say.tr("turn {piece} on {place}{turn}", piece=piece, place=place, turn=turn)
            )
        else:
            parts.append(
                say.tr("put {piece} on {place}{turn}", piece=piece, place=place, turn=turn)
            )
    for text in take_off:
        if text.partition("@")[0] not in turned:
            label, _ = book.piece_words_of(text)
            parts.append(say.tr("take {piece} off {place}", piece=book.the(label), place=place))
    if not parts:
        what = ", ".join(book.piece(t) for t in data.get("want", [])) or say.tr("nothing")
        parts.append(say.tr("{place} should hold: {pieces}", place=place, pieces=what))
    return "; ".join(parts)


def _wrong(data: Mapping[str, Any], book: Book) -> str:
    """What is said of one location no legal move explains: for a player, what to do first
    ("put the red minecart back on F7 (take it off G2)"), then why; the referee's own account
    says what lies where first."""
    why, say = Wrong(data["why"]), book.say
    place = book.place(data["location"])
    if why is Wrong.TOO_MANY:
        return _too_many(data, book)
    seen = _view(data["seen"], book)
    expected = book.pieces_said(data["expected"])
    text = say.tr("{place}: {seen} lies there, but the rules expect {expected}",
                  place=place, seen=seen, expected=expected)  # fmt: skip
    fix = data.get("fix")
    lead = _instruction(fix, book) if fix is not None and not book.plain else None
    if lead is not None:
        pieces = data["seen"].get("pieces") and data["seen"].get("seen") in ("exact", "on_top")
        text = say.tr(
            "{fix}: {seen} lies on {place}, but the rules expect {expected}",
            fix=lead, seen=book.the(seen) if pieces else seen, place=place, expected=expected,
        )  # fmt: skip
    turn = data.get("turn")
    if why is Wrong.COMPUTER_SEAT:
        text = say.tr("{what}; {player} is the computer's: it makes its own moves",
                      what=text, player=book.seat(turn))  # fmt: skip
    elif why is Wrong.LEGAL_HERE:
        here = [book.action(a) for a in data.get("legal_here", [])] or [
            say.tr(
                "{kind} ({player}'s own phone shows which)",
                kind=kind.replace("_", " "),
                player=book.seat(turn),
            )
            for kind in data.get("legal_kinds", [])
        ]
        legal = ", ".join(here[:_LEGAL_SHOWN])
        if len(here) > _LEGAL_SHOWN:
            legal = say.ntr("{moves} (and {count} more)", "{moves} (and {count} more)",
                            len(here) - _LEGAL_SHOWN, moves=legal)  # fmt: skip
        text = say.tr("{what}; legal here: {moves}", what=text, moves=legal)
    elif why is Wrong.OUT_OF_TURN:
        text = say.tr(
            "{what}; it is {player}'s turn, not {mover}'s: {player} has not ended it",
            what=text, player=book.seat(turn), mover=book.seat(data.get("mover")),
        )  # fmt: skip
        todo = [_instruction(i, book) for i in data.get("todo", [])]
        if todo:
            text = say.tr("{what} (still to do: {steps})", what=text, steps="; ".join(todo))
    else:
        text = say.tr("{what}; no legal move puts it there", what=text)
    if fix is not None and lead is None:
        text = say.tr("{what}; to put it right: {fix}", what=text, fix=_instruction(fix, book))
    return text


def _too_many(data: Mapping[str, Any], book: Book) -> str:
    """A piece on more squares than the game has of it: which to take it off, then why."""
    (piece,) = data["seen"]["pieces"]
    label, _ = book.piece_words_of(piece)
    places = data.get("places", [])
    copies = data.get("copies", 0)
    say, piece_said = book.say, book.the(label)
    if book.plain:
        return (
            f"{book.places(places)}: {the(label)} lies on {len(places)} squares; "
            f"the game has {copies}"
        )
    has = _number(book, copies)
    belongs = [p for p in data.get("belongs", []) if p in places]
    lies = say.listed([book.place(p) for p in places])
    why = say.tr("the game has {count}, and it lies on {places}", count=has, places=lies)
    if belongs and len(belongs) < len(places):
        off = say.listed([book.place(p) for p in places if p not in belongs])
        back = say.listed([book.place(p) for p in belongs])
        return say.tr("put {piece} back on {back} (take it off {off}): {why}",
                      piece=piece_said, back=back, off=off, why=why)  # fmt: skip
    return say.tr("leave {piece} on only {count} of {places}: {why}",
                  piece=piece_said, count=has, places=lies, why=why)  # fmt: skip


def _number(book: Book, n: int) -> str:
    """A small number in words ("two"), a larger one in figures."""
    say = book.say
    numbers = (
        say.tr("none"), say.tr("one"), say.tr("two"), say.tr("three"), say.tr("four"),
        say.tr("five"), say.tr("six"), say.tr("seven"), say.tr("eight"), say.tr("nine"),
        say.tr("ten"),
    )  # fmt: skip
    return numbers[n] if 0 <= n < len(numbers) else str(n)


def _view(data: Mapping[str, Any], book: Book) -> str:
    """What was seen of a location."""
    seen, say = data.get("seen"), book.say
    if seen == "exact":
        return book.pieces_said(data.get("pieces", []))
    if seen == "magnet":
        return say.tr("a magnetic piece") if data.get("magnet") else say.tr("no magnetic piece")
    if seen == "on_top":
        pieces = book.pieces_said(data.get("pieces", []))
        return say.tr("{pieces} (on what it hides)", pieces=pieces)
    return say.tr("something unseen")


def plain_line(verdict: Verdict, info: Game[Any] | None) -> str:
    """The referee's own account of a verdict: the rules' ids for places and seats."""
    return verdict_line(verdict, Book.of(info, plain=True))
