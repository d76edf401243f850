"""Benchmarks of the service: pulled plugs, end-to-end latency, the serial link, stress."""
