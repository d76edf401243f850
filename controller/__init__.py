"""The railtable service: joins camera and sensor board, referees, stores, serves phones."""
