#!/usr/bin/env bash
# Install railtable as a service on a Raspberry Pi: a user, a venv under /opt/railtable, the
# config in /etc/railtable, the unit enabled. Idempotent; --dry-run prints what it would do.
# RAILTABLE_ON_PI=1 (or 0) says whether this is a Pi instead of asking the machine (the tests).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv=/opt/railtable/venv
run() { if [ "${DRY_RUN:-0}" = 1 ]; then echo "+ $*"; else "$@"; fi; }
[ "${1:-}" = "--dry-run" ] && DRY_RUN=1
if [ "${DRY_RUN:-0}" != 1 ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run it with sudo (it creates a user and installs a systemd unit)" >&2
  exit 2
fi
on_pi=${RAILTABLE_ON_PI:-0}
if [ -z "${RAILTABLE_ON_PI:-}" ] && { grep -qa "Raspberry Pi" /proc/device-tree/model 2>/dev/null \
  || [ -f /etc/rpi-issue ]; }; then
  on_pi=1
fi

id railtable >/dev/null 2>&1 || run useradd --system --home /var/lib/railtable --shell /usr/sbin/nologin railtable
run usermod -aG dialout,video,gpio,audio railtable
if [ "$on_pi" = 1 ]; then
  # The OS's own builds, seen by the venv through --system-site-packages: the camera module's
  # Python route (picamera2 on libcamera), the pins (lgpio: PyPI's aarch64 lgpio for Python 3.11
  # is an empty placeholder) and the table's voice.
  run apt-get update -qq
  run apt-get install -y -qq python3-venv rsync python3-picamera2 python3-lgpio espeak-ng
else
  # The table speaks turns, alerts and the winner with Debian's offline speech engine.
  command -v espeak-ng >/dev/null 2>&1 || run apt-get install -y -qq espeak-ng
fi
run mkdir -p /opt/railtable /var/lib/railtable
run install -d -m 0750 -o root -g railtable /etc/railtable
run rsync -a --delete --exclude .venv --exclude .git "$here/" /opt/railtable/src/
# --system-site-packages: the OS's picamera2, libcamera and lgpio are importable; every pinned
# package still installs into the venv and wins over the OS's copy (re-running it on an existing
# venv only rewrites its pyvenv.cfg).
run python3 -m venv --system-site-packages "$venv"
run "$venv/bin/python" -m pip install --quiet -c "$here/constraints.txt" /opt/railtable/src
if [ "$on_pi" = 1 ]; then
  # The OS's simplejpeg (picamera2 imports it) is built for the OS's numpy 1.24; the venv's
  # numpy 2 fails it with "numpy.dtype size changed" (picamera2#1088, #1211). simplejpeg's own
  # wheel, built for numpy 2, goes into the venv in its place.
  run "$venv/bin/python" -m pip install --quiet -c "$here/constraints.txt" \
    -c "$here/systemd/pi-constraints.txt" simplejpeg
fi
# The config holds the table PIN and the venue's MQTT password: root writes it, the service reads.
if [ -f /etc/railtable/railtable.toml ]; then
  run chown root:railtable /etc/railtable/railtable.toml
  run chmod 0640 /etc/railtable/railtable.toml
else
  run install -m 0640 -o root -g railtable "$here/docs/railtable.example.toml" /etc/railtable/railtable.toml
fi
run chown -R railtable:railtable /var/lib/railtable
run install -m 0644 "$here/systemd/railtable.service" /etc/systemd/system/railtable.service
run systemctl daemon-reload
run systemctl enable --now railtable.service
if [ "$on_pi" = 1 ]; then
  for module in picamera2 lgpio; do
    if [ "${DRY_RUN:-0}" = 1 ]; then
      echo "+ $venv/bin/python -c 'import $module'"
    elif ! problem=$("$venv/bin/python" -c "import $module" 2>&1); then
      echo "railtable: '$module' does not import in $venv: ${problem##*$'\n'}" \
        "(docs/install-pi.md, Check each part)" >&2
    fi
  done
fi
echo "railtable: installed; see 'systemctl status railtable' and 'journalctl -u railtable -f'"
