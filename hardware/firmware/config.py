"""Settings of one physical board: matrix size and which Pico pins drive what (see WIRING.md)."""

ROWS = 8
COLS = 8

# Column multiplexers (one 74HC4067 per row) share these four address lines, S0..S3.
COLUMN_ADDRESS_PINS = (2, 3, 4, 5)
# The row multiplexer (a 74HC4067 fed by the row multiplexers' outputs): S0..S3.
ROW_ADDRESS_PINS = (6, 7, 8, 9)
# The row multiplexer's common output; hall sensors pull it low when a magnet is present.
SENSOR_PIN = 10
# WS2812 data line, through a 74AHCT125 level shifter to 5 V.
LED_DATA_PIN = 16
# Let the multiplexers and the sensor line settle after an address change.
SETTLE_US = 5
WATCHDOG_MS = 2000
