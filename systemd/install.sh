#!/usr/bin/env bash
# Install railtable as a service on a Raspberry Pi: a user, a venv under /opt/railtable, the
# config in /etc/railtable, the unit enabled. Idempotent; --dry-run prints what it would do.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
run() { if [ "${DRY_RUN:-0}" = 1 ]; then echo "+ $*"; else "$@"; fi; }
[ "${1:-}" = "--dry-run" ] && DRY_RUN=1
if [ "${DRY_RUN:-0}" != 1 ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run it with sudo (it creates a user and installs a systemd unit)" >&2
  exit 2
fi
id railtable >/dev/null 2>&1 || run useradd --system --home /var/lib/railtable --shell /usr/sbin/nologin railtable
run usermod -aG dialout,video,gpio,audio railtable
# The table speaks turns, alerts and the winner with Debian's offline speech engine.
command -v espeak-ng >/dev/null 2>&1 || run apt-get install -y -qq espeak-ng
run mkdir -p /opt/railtable /etc/railtable /var/lib/railtable
run rsync -a --delete --exclude .venv --exclude .git "$here/" /opt/railtable/src/
[ -x /opt/railtable/venv/bin/python ] || run python3 -m venv /opt/railtable/venv
run /opt/railtable/venv/bin/python -m pip install --quiet -c "$here/constraints.txt" /opt/railtable/src
[ -f /etc/railtable/railtable.toml ] || run cp "$here/docs/railtable.example.toml" /etc/railtable/railtable.toml
run chown -R railtable:railtable /var/lib/railtable
run install -m 0644 "$here/systemd/railtable.service" /etc/systemd/system/railtable.service
run systemctl daemon-reload
run systemctl enable --now railtable.service
echo "railtable: installed; see 'systemctl status railtable' and 'journalctl -u railtable -f'"
