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

NOT_LEGAL = "not a legal move: "
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
            "words": " then ".join(book.action(a) for a in o["actions"]),
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
    seen = "seen on the table: " + ("; ".join(book.action(a) for a in acts) or "nothing new")
    applied = "applied: " + book.actions(acts)
    if data.get("withheld"):
        line = _withheld(data, book)
        return line, line
    if kind is VerdictKind.APPLIED:
        text = applied
        if reason is Reason.COMPUTER_DECIDES:
            text += f"; now {book.seat(seat)} decides its move"
        elif instructions:
            text += "; now: " + "; ".join(instructions)
        return text, seen
    line = _line(data, reason, book, instructions, wrong, options)
    move = data.get("computer_move")
    if move is not None:
        computer, action = move["seat"], book.action(move["action"])
        if kind is VerdictKind.INSTRUCTIONS:
            line = f"{book.seat(computer)}: {action}; to do: " + "; ".join(instructions)
        elif kind is VerdictKind.ALERT:
            line += f" | {book.seats_own(computer)} move: {action}"
    follows = data.get("follows")
    if follows == Reason.AS_EXPECTED.value:
        line = "the table is as the rules expect; " + line
    elif follows == Reason.SEEN.value:
        now = "; now: " + "; ".join(instructions) if instructions else ""
        return f"{applied}{now}; {line}", f"{seen}{now}; {line}"
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
    places = book.places(data.get("locations", []))
    said_options = "; ".join(o["text"] for o in options)
    if reason is Reason.AS_EXPECTED:
        return "the table is as the rules expect"
    if reason is Reason.COMPUTER_DECIDES:
        return f"waiting for {book.seat(seat)} to decide its move"
    if reason is Reason.FOLLOWING:
        return "to do: " + "; ".join(instructions)
    if reason is Reason.MANY_READINGS:
        return (
            f"{book.seat(seat)}: the table fits {len(options)} moves; which one was it? "
            + " | ".join(o["text"] for o in options)
        )
    if reason is Reason.HIDDEN_CHOICE:
        kinds = ", ".join(k.replace("_", " ") for k in data.get("asked_kinds", []))
        own = book.seats_own(seat)
        return f"{book.seat(seat)}: a hidden choice ({kinds}), made on {own} phone alone"
    if reason is Reason.OWN_DECISION:
        who = book.seat(seat)
        return f"{who}: yours to decide, the table cannot show it; say which: {said_options}"
    if reason is Reason.UNSEEN_INPUT:
        who = book.seat(seat) if seat is not None else "the host (a real draw)"
        return f"{who}: the table cannot show this; say which: {said_options}"
    if reason is Reason.CAME_UP:
        who = book.seat(seat) if seat is not None else "the host (a real draw)"
        return f"{who}: say which came up: {said_options}"
    if reason is Reason.COVERED:
        return f"waiting: {places} covered; the move cannot be judged yet"
    if reason is Reason.COVERED_MANY:
        return (
            f"waiting: more than one move, or the end of a turn, while {places} cannot be seen; "
            "uncover them"
        )
    if reason is Reason.DRAW_NOT_SHOWN:
        drawn = " or ".join(book.action(a) for a in data.get("drawn", []))
        return f"waiting: what came up ({drawn}) does not show on the table yet"
    if reason is Reason.NEEDS_COVERED:
        return f"waiting: the move needs {places}, covered now; it is judged once they can be seen"
    if reason is Reason.BACK_TO_BEFORE:
        return f"the table is back to before {book.actions(data.get('actions', []))}: take it back?"
    if reason is Reason.REAL_DRAW_KEPT:
        real = ", ".join(book.action(a) for a in data.get("drawn", []))
        return (
            f"not taken back: the table is back to before {book.actions(data.get('taken', []))}, "
            f"but real draws came since ({real}) and the referee never takes back a real draw: "
            "put the pieces back as the rules have them, or the host undoes it | "
            + " | ".join(wrong)
        )
    return NOT_LEGAL + " | ".join(dict.fromkeys(wrong))  # NOT_LEGAL, TOO_MANY


def _withheld(data: Mapping[str, Any], book: Book) -> str:
    """A question as those who are not asked see it: who is asked, not the options."""
    seat = data.get("seat")
    if data.get("hidden"):
        return f"{book.seat(seat)} makes a hidden choice on their own phone"
    if seat is None:
        return "the host is asked what the table cannot show"
    return f"{book.seat(seat)} is asked how the table came about"


def _option(option: Mapping[str, Any], book: Book) -> str:
    return book.actions(option["actions"]) + (", then a question" if option.get("asks") else "")


def _instruction(data: Mapping[str, Any], book: Book) -> str:
    """One location's instruction: the pieces to turn, put on and take off."""
    place = book.place(data["location"])
    take_off, put_on = data.get("take_off", []), data.get("put_on", [])
    parts = []
    turned = {t.partition("@")[0] for t in take_off} & {t.partition("@")[0] for t in put_on}
    for text in put_on:
        label, turn = book.piece_words_of(text)
        verb = "turn" if text.partition("@")[0] in turned else "put"
        parts.append(f"{verb} {the(label)} on {place}{turn}")
    for text in take_off:
        if text.partition("@")[0] not in turned:
            label, _ = book.piece_words_of(text)
            parts.append(f"take {the(label)} off {place}")
    if not parts:
        what = ", ".join(book.piece(t) for t in data.get("want", [])) or "nothing"
        parts.append(f"{place} should hold: {what}")
    return "; ".join(parts)


def _wrong(data: Mapping[str, Any], book: Book) -> str:
    """What is said of one location no legal move explains."""
    why = Wrong(data["why"])
    place = book.place(data["location"])
    if why is Wrong.TOO_MANY:
        (piece,) = data["seen"]["pieces"]
        label, _ = book.piece_words_of(piece)
        places = data.get("places", [])
        return (
            f"{book.places(places)}: {the(label)} lies on {len(places)} squares; "
            f"the game has {data.get('copies')}"
        )
    seen = _view(data["seen"], book)
    text = f"{place}: {seen} lies there, but the rules expect {book.pieces_said(data['expected'])}"
    turn = data.get("turn")
    if why is Wrong.COMPUTER_SEAT:
        text += f"; {book.seat(turn)} is the computer's: it makes its own moves"
    elif why is Wrong.LEGAL_HERE:
        here = [book.action(a) for a in data.get("legal_here", [])] or [
            f"{kind} ({book.seats_own(turn)} own phone shows which)"
            for kind in data.get("legal_kinds", [])
        ]
        more = f" (and {len(here) - _LEGAL_SHOWN} more)" if len(here) > _LEGAL_SHOWN else ""
        text += f"; legal here: {', '.join(here[:_LEGAL_SHOWN])}{more}"
    elif why is Wrong.OUT_OF_TURN:
        mover = data.get("mover")
        text += (
            f"; it is {book.seats_own(turn)} turn, not {book.seats_own(mover)}: "
            f"{book.seat(turn)} has not ended it"
        )
        todo = [_instruction(i, book) for i in data.get("todo", [])]
        if todo:
            text += " (still to do: " + "; ".join(todo) + ")"
    else:
        text += "; no legal move puts it there"
    fix = data.get("fix")
    if fix is not None:
        text += f"; to put it right: {_instruction(fix, book)}"
    return text


def _view(data: Mapping[str, Any], book: Book) -> str:
    """What was seen of a location."""
    seen = data.get("seen")
    if seen == "exact":
        return book.pieces_said(data.get("pieces", []))
    if seen == "magnet":
        return "a magnetic piece" if data.get("magnet") else "no magnetic piece"
    if seen == "on_top":
        return book.pieces_said(data.get("pieces", [])) + " (on what it hides)"
    return "something unseen"


def plain_line(verdict: Verdict, info: Game[Any] | None) -> str:
    """The referee's own account of a verdict: the rules' ids for places and seats."""
    return verdict_line(verdict, Book.of(info, plain=True))
