"""The ``ptosim`` command line."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import PtoError


def _demo(_: argparse.Namespace) -> int:
    from .demo import run
    return 0 if run() else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptosim", description="Functional simulator and verifier for the PTO ISA.")
    parser.add_argument("--version", action="version", version=f"ptosim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="run the bundled DMA demo kernel and check its bytes")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (0 ok, 1 kernel error, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except PtoError as err:
        print(f"ptosim: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
