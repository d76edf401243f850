"""Benchmarks of the service: pulled plugs, end-to-end latency, the serial link, stress."""

COMPUTER_ITERATIONS = 20  # `bench table`: a computer seat's search, fast as in the tests (named
# here, light, for the command line's help)
