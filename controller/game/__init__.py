"""The live game: its one owner, the event log, replay, privacy and who may do what."""
