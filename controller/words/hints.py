"""A hint's line of why: what the computer's move is expected to gain against the next best."""

from __future__ import annotations

from controller.words.book import Book
from rules.ai.search import Result


def hint_why(result: Result | None, book: Book) -> str:
    """One line for a hint, its moves in the game's names."""
    if result is None or not result.options or result.iterations == 0:
        return "the only move allowed now"
    best = result.options[0]
    line = f"wins about {best.value:.0%} of {result.iterations} games played on from here"
    if len(result.options) > 1:
        runner = result.options[1]
        line += f"; the next best ({runner.action.words(book.name)}) about {runner.value:.0%}"
    return line
