"""`railtable doctor`: what is wrong with this table's setup, in plain words."""

from __future__ import annotations

import argparse
from pathlib import Path

from controller.cli._types import Subparsers


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `doctor`."""
    doctor = commands.add_parser(
        "doctor", help="check the config, camera, sensor board, GPIO, data folder and port"
    )
    doctor.add_argument("--config", type=Path, default=None, help="configuration file")
    doctor.add_argument(
        "--as-service",
        action="store_true",
        help="ask the running service (its /api/status on this machine) how its camera, board, "
        "pins and speaker are doing, as seen from inside its systemd sandbox",
    )
    doctor.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from controller.tools.doctor import diagnose

    if args.as_service:
        from controller.config import default_path, load_config
        from controller.tools.doctor_pi import service_findings

        config = load_config(args.config if args.config is not None else default_path())
        findings = service_findings(config)
    else:
        findings = diagnose(args.config)
    for finding in findings:
        print(finding.line())
    return 0 if all(f.ok for f in findings) else 1
