"""Serial link to the sensor board: frame codec, messages, reliable link, virtual board."""
