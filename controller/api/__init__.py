"""The HTTP API for the phones (FastAPI): routers per area, dependencies for the game and host."""
