"""The ``ptosim`` command line: run and check `.pto` kernels, run the demo.

Exit codes: 0 success, 1 a kernel, verification or runtime error (diagnostic on stderr),
2 a usage error (bad or missing --arg, unreadable file, wrong file size ...).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .errors import PtoError, printable
from .targets import TARGETS


def _demo(_: argparse.Namespace) -> int:
    from .demo import run
    return 0 if run() else 1


def _load(args: argparse.Namespace) -> Any:
    from .interp import EntryError
    from .kernel import Kernel, UsageError
    path = Path(args.kernel)
    try:
        path.read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        return Kernel.from_file(path, getattr(args, "entry", None))
    except EntryError as err:
        raise UsageError(err.detail) from None


def _check(args: argparse.Namespace) -> int:
    from .interp.static import check_kernel
    kernel = _load(args)
    errors, notes = check_kernel(kernel.module, kernel.func, kernel.target(args.target),
                                 kernel.locate)
    for line in notes:
        print(line, file=sys.stderr)
    for err in errors:
        print(err, file=sys.stderr)
    if errors:
        return 1
    print(printable(f"{args.kernel}: @{kernel.entry} checks clean on "
                    f"{kernel.target(args.target)}"))
    return 0


def _bind(kernel: Any, specs: list[str]) -> tuple[dict[str, Any], dict[str, Path]]:
    """``--arg NAME=FILE|VALUE`` -> values by parameter name, and the file of each GM arg."""
    from .kernel import UsageError
    values: dict[str, Any] = {}
    files: dict[str, Path] = {}
    for spec in specs:
        key, sep, text = spec.partition("=")
        if not sep or not key:
            raise UsageError(f"--arg expects NAME=FILE or NAME=VALUE, got {spec!r}")
        p = kernel.param(key)
        if p.name in values:
            raise UsageError(f"parameter {p.name} is bound twice")
        if p.is_pointer:
            from .dtypes import dtype as _dtype
            dt = _dtype(p.element())
            path = Path(text)
            try:
                raw = path.read_bytes()
            except OSError as err:
                raise UsageError(f"cannot read {path} for {p.name}: {err.strerror or err}") \
                    from None
            if len(raw) % dt.size:
                raise UsageError(f"{path} has {len(raw)} bytes, not a whole number of "
                                 f"{dt.name} elements ({dt.size} B) for {p.name}")
            values[p.name] = np.frombuffer(raw, dtype=dt.np).copy()
            files[p.name] = path
        else:
            values[p.name] = text
    return values, files


def _run(args: argparse.Namespace) -> int:
    kernel = _load(args)
    values, files = _bind(kernel, args.arg or [])
    progress = _Progress(sys.stderr)
    result = kernel.run(values, target=args.target, block_dim=args.block_dim,
                        progress=progress.update, hazards=not args.no_hazards,
                        trace=args.trace is not None)
    progress.done()
    if args.trace is not None:
        result.timeline.write(args.trace)
    for finding in result.findings:
        print(finding.render().replace(": warning: ", ": error: ", 1)
              if args.hazards == "error" else finding.render(), file=sys.stderr)
    out_dir = Path(args.out_dir) if args.out_dir else None
    written = []
    for name, data in result.outputs.items():
        dest = (out_dir / f"{name}.bin") if out_dir else files[name]
        dest.parent.mkdir(parents=True, exist_ok=True)
        data.tofile(dest)
        written.append(str(dest))
    checked = "hazards not checked" if args.no_hazards else \
        f"{len(result.findings)} hazard finding(s)"
    traced = f"; trace in {args.trace}" if args.trace is not None else ""
    print(printable(f"ran @{result.entry} on {result.target} x {args.block_dim} block(s): "
          f"{result.ops} ops in {result.seconds:.3f} s, {checked}; "
          f"wrote {', '.join(written) or 'nothing'}{traced}"))
    return 1 if args.hazards == "error" and result.findings else 0


class _Progress:
    """A one-line progress report on stderr for runs longer than a second (TTY only)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.start = time.perf_counter()
        self.shown = False

    def update(self, ops: int, seconds: float) -> None:
        if seconds > 1 and getattr(self.stream, "isatty", lambda: False)():
            self.stream.write(f"\rptosim: {ops} ops, {seconds:.1f} s")
            self.stream.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\n")


def _trace(args: argparse.Namespace) -> int:
    from .kernel import UsageError
    from .timeline_plot import render_trace
    try:
        with open(args.trace_file, encoding="utf-8") as f:
            import json
            data = json.load(f)
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot read trace {args.trace_file}: {err}") from None
    render_trace(data, args.output)
    print(f"wrote {args.output}")
    return 0


def _layout(args: argparse.Namespace) -> int:
    import os
    from .kernel import UsageError
    from .layout_plot import gm_grid, layout_grid, render_layout, render_terminal

    def ints(text: str, sep: str, flag: str, count: int) -> tuple[int, ...]:
        try:
            values = tuple(int(v) for v in text.lower().split(sep))
        except ValueError:
            values = ()
        if len(values) != count:
            raise UsageError(f"{flag} expects {count} integers separated by {sep!r}, "
                             f"got {text!r}")
        return values

    try:
        if args.gm:
            if args.layout or args.shape or args.valid:
                raise UsageError("--gm draws a GlobalTensor view from --gm-shape and "
                                 "--gm-stride; it takes no --layout, --shape or --valid")
            if not args.gm_shape:
                raise UsageError("--gm needs --gm-shape S0,S1,S2,S3,S4")
            stride = ints(args.gm_stride, ",", "--gm-stride", 5) if args.gm_stride else None
            grid = gm_grid(args.gm, ints(args.gm_shape, ",", "--gm-shape", 5), stride,
                           args.dtype)
        else:
            if not args.layout or not args.shape:
                raise UsageError("a tile picture needs --layout and --shape RxC "
                                 "(or --gm for a GlobalTensor view)")
            rows, cols = ints(args.shape, "x", "--shape", 2)
            vr, vc = ints(args.valid, "x", "--valid", 2) if args.valid else (rows, cols)
            grid = layout_grid(args.layout, rows, cols, args.dtype, valid=(vr, vc),
                               fractal=args.fractal, tile_type=args.tile)
        if args.output:
            try:
                render_layout(grid, path=args.output, view=args.view)
            except OSError as err:
                raise UsageError(f"cannot write {args.output}: {err.strerror or err}") \
                    from None
            print(f"wrote {args.output}")
        else:
            color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty()
                                               and not os.environ.get("NO_COLOR"))
            sys.stdout.write(render_terminal(grid, view=args.view, color=color))
    except UsageError:
        raise
    except PtoError as err:
        raise UsageError(err.detail) from None
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptosim", description="Functional simulator and verifier for the PTO ISA.")
    parser.add_argument("--version", action="version", version=f"ptosim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="run the bundled demo and check its bytes")
    demo.set_defaults(func=_demo)
    run = sub.add_parser("run", help="run a .pto kernel on .bin inputs")
    run.add_argument("kernel", metavar="KERNEL.pto")
    run.add_argument("--entry", metavar="FUNC", help="kernel function (default: the only one)")
    run.add_argument("--target", choices=sorted(TARGETS), help="overrides pto.target_arch")
    run.add_argument("--block-dim", type=int, default=1, metavar="N",
                     help="number of blocks (default 1)")
    run.add_argument("--arg", action="append", metavar="NAME=FILE|VALUE",
                     help="bind a parameter by name (without %%) or 0-based position")
    run.add_argument("--out-dir", metavar="DIR",
                     help="write each GM parameter to DIR/<name>.bin instead of in place")
    run.add_argument("--hazards", choices=("warn", "error"), default="warn",
                     help="report unsynchronised pipe/core accesses as warnings (default) "
                          "or fail the run with exit 1")
    run.add_argument("--no-hazards", action="store_true",
                     help="do not run the pipe-hazard checker")
    run.add_argument("--trace", metavar="OUT.json",
                     help="write a Chrome/Perfetto trace: one track per core x pipe")
    run.set_defaults(func=_run)
    trace = sub.add_parser("trace", help="render a trace written by run --trace as a picture")
    trace.add_argument("trace_file", metavar="TRACE.json")
    trace.add_argument("-o", "--output", metavar="OUT.png", required=True,
                       help="picture to write (.png or .svg)")
    trace.set_defaults(func=_trace)
    check = sub.add_parser("check", help="parse and verify a .pto kernel without running it")
    check.add_argument("kernel", metavar="KERNEL.pto")
    check.add_argument("--entry", metavar="FUNC")
    check.add_argument("--target", choices=sorted(TARGETS))
    check.set_defaults(func=_check)
    from .layout_plot import TILE_TYPES
    lay = sub.add_parser("layout", help="draw a tile or GlobalTensor layout: which logical "
                                        "(row, col) lives at which offset")
    lay.add_argument("--tile", choices=TILE_TYPES, metavar="TYPE",
                     help=f"TileType ({' '.join(TILE_TYPES)}); Acc means fractal 1024")
    lay.add_argument("--layout", type=str.lower, choices=("nd", "dn", "nz", "zn", "zz", "nn"))
    lay.add_argument("--dtype", default="f16", help="element type (default f16)")
    lay.add_argument("--shape", metavar="RxC", help="tile rows x cols, e.g. 32x48")
    lay.add_argument("--valid", metavar="RxC", help="valid region (default the whole tile)")
    lay.add_argument("--fractal", type=int, choices=(512, 1024, 32),
                     help="fractal bytes (default 512, 1024 for Acc)")
    lay.add_argument("--gm", type=str.upper, choices=("ND", "DN", "NZ"),
                     help="draw a GlobalTensor 5-D view instead of a tile")
    lay.add_argument("--gm-shape", metavar="S0,S1,S2,S3,S4")
    lay.add_argument("--gm-stride", metavar="T0,T1,T2,T3,T4", help="default: packed")
    lay.add_argument("--view", choices=("physical", "logical"),
                     help="buffer as 32 B lines (tile default) or the logical matrix "
                          "(GM default)")
    lay.add_argument("-o", "--output", metavar="FILE.png|FILE.svg",
                     help="write a picture; without it print a text grid")
    lay.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                     help="ANSI colours in the text grid (auto: on a terminal)")
    lay.set_defaults(func=_layout)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (0 ok, 1 kernel error, 2 usage error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:          # argparse: --help exits 0, bad usage exits 2
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "block_dim", 1) < 1:
        print("ptosim: --block-dim must be at least 1", file=sys.stderr)
        return 2
    from .kernel import UsageError
    try:
        return int(args.func(args))
    except UsageError as err:
        print(f"ptosim: {err}", file=sys.stderr)
        return 2
    except PtoError as err:
        print(err if err.loc else f"ptosim: {err}", file=sys.stderr)
        return 1
    except RecursionError:
        print(f"{printable(getattr(args, 'kernel', '?'))}: error: the kernel nests too deeply "
              f"to run",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
