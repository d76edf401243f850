"""The table service: the loop over camera and sensor board, their health, LEDs, GPIO, systemd."""
