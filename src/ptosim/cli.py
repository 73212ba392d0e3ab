"""The ``ptosim`` command line: run and check `.pto` kernels, run the demo.

Exit codes: 0 success, 1 a kernel, verification or runtime error or a failed write-back
(diagnostic on stderr), 2 a usage error (bad or missing --arg, unreadable file, wrong file
size, unwritable destination ...), 128 + N when signal N (SIGINT, SIGTERM) stops the run.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from .errors import PtoError, printable
from .files import (
    GIB,
    MIB,
    Destination,
    FileUsageError,
    check_destination,
    named_destination,
    parse_size,
    read_regular,
    text_stream,
    write_all,
)
from .startup import resume
from .targets import TARGETS, get_target

DEFAULT_MAX_OPS = 10 ** 8       # ~10-20 min at the interpreter's 0.1-0.2 M scalar ops/s
DEFAULT_MAX_KERNEL_SIZE = 16 * MIB
DEFAULT_MAX_ARG_SIZE = 1 * GIB


def _demo(_: argparse.Namespace) -> int:
    from .demo import run
    return 0 if run() else 1


# Parsed kernels by (text, file name, entry): a batch worker parses each kernel once.
_KERNELS: dict[tuple[bytes, str, str | None], Any] = {}


def _load(args: argparse.Namespace) -> Any:
    from .interp import EntryError
    from .kernel import Kernel, UsageError
    path = Path(args.kernel)
    limit = getattr(args, "max_kernel_size", DEFAULT_MAX_KERNEL_SIZE)
    raw, _ = read_regular(path, limit or None, limit_flag="--max-kernel-size")
    key = (bytes(raw), str(path), getattr(args, "entry", None))
    if key in _KERNELS:
        return _KERNELS[key]
    try:
        kernel = Kernel.from_bytes(raw, str(path), getattr(args, "entry", None))
    except EntryError as err:
        usage = UsageError(err.detail)
        usage.candidates = err.candidates   # type: ignore[attr-defined]
        raise usage from None               # (`_check` reads the candidates)
    finally:
        resume()                        # parsed: start-up ends (ptosim.startup)
    if len(_KERNELS) >= 16:
        _KERNELS.pop(next(iter(_KERNELS)))
    _KERNELS[key] = kernel
    return kernel


def _diagnostic(line: str, loc: str | None) -> None:
    """A diagnostic on stderr, with the source line it points at and a caret."""
    from .interp.diagnostics import excerpt
    print(line, file=sys.stderr)
    for text in excerpt(loc):
        print(text, file=sys.stderr)


def _verify_diagnostics(args: argparse.Namespace) -> int:
    """``check --verify-diagnostics``: the diagnostics must be exactly the ones the
    kernel's ``// expected-error {{...}}`` comments announce (see `interp.expected`)."""
    from .errors import PtoSyntaxError, StructureError
    from .interp.diagnostics import render
    from .interp.expected import Seen, expectations, line_of, verify
    from .interp.static import check_kernel
    limit = args.max_kernel_size or None
    raw, _ = read_regular(Path(args.kernel), limit, limit_flag="--max-kernel-size")
    expected = expectations(raw.decode("utf-8", errors="replace"))
    seen: list[Seen] = []
    try:
        kernel = _load(args)
    except (PtoSyntaxError, StructureError) as err:       # the text itself is refused
        seen.append(Seen("error", line_of(err.loc), str(err), str(err)))
    else:
        found = check_kernel(kernel.module, kernel.func, kernel.target(args.target),
                             kernel.locate)
        for d in found.warnings:
            seen.append(Seen("warning", line_of(d.loc), d.message, d.render()))
            if d.related is not None:       # its note: checked like MLIR's expected-note
                seen.append(Seen("note", line_of(d.related), d.note,
                                 render(d.related, "note", d.note)))
        seen += [Seen("error", line_of(e.loc), str(e), str(e)) for e in found.errors]
    problems = verify(expected, seen, args.kernel)
    for line in problems:
        print(printable(line), file=sys.stderr)
    if problems:
        print(printable(f"{args.kernel}: {len(problems)} diagnostic(s) did not match"),
              file=sys.stderr)
        return 1
    print(printable(f"{args.kernel}: all {len(expected)} expected diagnostic(s) seen, "
                    f"nothing else"))
    return 0


def _check(args: argparse.Namespace) -> int:
    from .interp.diagnostics import render
    from .interp.static import check_kernel
    if args.verify_diagnostics:
        return _verify_diagnostics(args)
    try:
        kernel = _load(args)
    except PtoError as load_err:
        names = getattr(load_err, "candidates", ())
        if not names:
            raise
        # no --entry and several kernel functions: check each of them, on to the next
        # after one that fails
        code = 0
        for name in names:
            try:
                code = max(code, _check(argparse.Namespace(**{**vars(args), "entry": name})))
            except PtoError as failed:
                _diagnostic(str(failed) if failed.loc else f"ptosim: {failed}", failed.loc)
                code = 1
        return code
    target = kernel.target(args.target)
    found = check_kernel(kernel.module, kernel.func, target, kernel.locate)
    for diag in found.warnings:
        _diagnostic(diag.render(), diag.loc)
        if diag.related is not None:
            _diagnostic(render(diag.related, "note", diag.note), diag.related)
    for err in found.errors:
        _diagnostic(str(err), err.loc)
    counts = (f"verified {found.verified} op(s), {found.skipped} left to run time (their "
              f"operands depend on loop variables or scalar arguments)")
    if found.errors:
        print(printable(f"{args.kernel}: @{kernel.entry} on {target}: "
                        f"{len(found.errors)} error(s); {counts}"), file=sys.stderr)
        return 1
    print(printable(f"{args.kernel}: @{kernel.entry} checks clean on {target}: {counts}"))
    return 0


def _params(args: argparse.Namespace) -> int:
    """Every parameter of the kernel: position, name, type, element type, and the GM bytes
    its ops touch where the kernel determines them (scalars bound with --arg count)."""
    from .kernel import UsageError
    kernel = _load(args)
    scalars: dict[str, str] = {}
    for spec in args.arg or []:
        key, sep, text = spec.partition("=")
        if not sep or not key:
            raise UsageError(f"--arg expects NAME=VALUE, got {spec!r}")
        scalars[kernel.param(key).name] = text
    target = kernel.target(args.target)
    extents, unknown = kernel.extents(scalars, target=target)
    rows = []
    for p in kernel.params:
        if p.is_pointer:
            from .dtypes import dtype as _dtype
            dt = _dtype(p.element())
            need = _static_bytes(p.type)
            if need is not None:
                size = f"{need:,} bytes ({need // dt.size:,} elements, from its type)"
            elif p.name in extents:
                n = extents[p.name]
                size = f"{'at least ' if unknown else ''}{n:,} bytes ({-(-n // dt.size):,} " \
                       f"elements)"
            else:
                size = "not determined before the run"
            rows.append((str(p.index), f"%{p.name}", str(p.type), dt.name, size))
        else:
            bound = f"= {scalars[p.name]}" if p.name in scalars else "scalar"
            rows.append((str(p.index), f"%{p.name}", str(p.type), "", bound))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    print(printable(f"@{kernel.entry} in {args.kernel} ({target}):"))
    for r in rows:
        print(printable("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4]))
    if unknown:
        print(f"{unknown} op(s) depend on loop variables or unbound scalars: their bytes are "
              f"not counted (bind scalars with --arg NAME=VALUE)")
    return 0


def _bind(kernel: Any, specs: list[str], max_arg_size: int | None = DEFAULT_MAX_ARG_SIZE
          ) -> tuple[dict[str, Any], dict[str, Path]]:
    """``--arg NAME=FILE|VALUE`` -> values by parameter name, and the file of each GM arg."""
    from .kernel import UsageError
    values: dict[str, Any] = {}
    files: dict[str, Path] = {}
    owners: dict[tuple[int, int], str] = {}     # (device, inode) -> parameter
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
            if not os.path.lexists(path) and path.absolute().parent.is_dir():
                # a new output: its size is what the kernel touches (or its memref type's)
                from .kernel import NEW
                need = _static_bytes(p.type)
                values[p.name] = NEW if need is None else np.zeros(need // dt.size, dt.np)
                files[p.name] = path
                continue
            raw, ident = read_regular(path, max_arg_size, what=f" for {p.name}",
                                      limit_flag="--max-arg-size")
            _check_arg_file(p, path, len(raw), ident, owners)
            if len(raw) % dt.size:
                raise UsageError(f"{path} has {len(raw)} bytes, not a whole number of "
                                 f"{dt.name} elements ({dt.size} B) for {p.name}")
            values[p.name] = np.frombuffer(raw, dtype=dt.np)     # writable: no copy
            files[p.name] = path
        else:
            values[p.name] = text
    return values, files


def _run(args: argparse.Namespace) -> int:
    from .interp.diagnostics import WarningLog, render
    from .kernel import UsageError
    kernel = _load(args)
    target = get_target(kernel.target(args.target))
    if args.block_dim > target.max_blocks and not args.force_block_dim:
        raise UsageError(f"--block-dim {args.block_dim} exceeds the {target.max_blocks} blocks "
                         f"(AI cores) of {target.name}; --force-block-dim runs it anyway")
    values, files = _bind(kernel, args.arg or [], args.max_arg_size or None)
    dests = _destinations(kernel, args, files)      # refused here, before the run
    created = {name for name, path in files.items() if not os.path.lexists(path)}
    goldens = _goldens(kernel, args, values)
    progress = _Progress(sys.stderr, args.progress_every)
    log = WarningLog(kernel.locate)
    from .errors import PtoValueError
    from .interp.dump import parse_dump, write_dumps
    try:
        dumps = [parse_dump(text) for text in args.dump or []]
    except PtoValueError as err:
        raise UsageError(err.detail) from None
    dump_dir = Path(args.dump_dir or ".")
    if dumps and not dump_dir.is_dir():
        raise UsageError(f"--dump-dir {dump_dir} is not a directory")
    if args.compare_picture is not None:
        if not goldens:
            raise UsageError("--compare-picture draws --compare's mismatches; give --compare "
                             "NAME=GOLDEN.bin too")
        if not Path(args.compare_picture).is_dir():
            raise UsageError(f"--compare-picture {args.compare_picture} is not a directory")
    op_log: contextlib.AbstractContextManager[Any] = contextlib.nullcontext(
        sys.stderr if args.log == "-" else None)
    if args.log not in (None, "-"):
        op_log = text_stream(dests["--log"])
    try:
        with op_log as stream:
            result = kernel.run(values, target=args.target, block_dim=args.block_dim,
                                progress=progress.update, hazards=not args.no_hazards,
                                trace=args.trace is not None, warnings=log,
                                max_ops=args.max_ops or None, ctrl=args.ctrl,
                                force_block_dim=args.force_block_dim,
                                blas_threads=args.blas_threads, op_log=stream,
                                gm_overrun=args.gm_overrun,
                                sources={k: str(v) for k, v in files.items()},
                                dumps=dumps, adopt=not args.initcheck,
                                provenance=bool(args.compare or args.initcheck),
                                keep_on_chip=False)     # the CLI reads GM only
    finally:
        if dumps:                           # also when the run failed: the state before it
            for line in write_dumps(dumps, dump_dir):
                print(printable(line), file=sys.stderr)
        progress.done()
        for diag in log.diagnostics:        # also when the run failed: they may explain it
            _diagnostic(diag.render(), diag.loc)
            if diag.related is not None:
                _diagnostic(render(diag.related, "note", diag.note), diag.related)
    severity = "error" if args.hazards == "error" else "warning"
    findings = result.findings
    if findings and not kernel.has_sync():
        # written for PTOAS's automatic sync insertion: one note, not a hazard per access
        print(printable(render(
            f"{args.kernel}", "note",
            f"@{kernel.entry} has no synchronisation ops (set_flag / wait_flag, barrier, "
            f"sync.set / sync.wait, get_buf / rls_buf): it looks written for PTOAS's "
            f"automatic sync insertion (ptoas --enable-insert-sync), which orders its pipes; "
            f"the {len(findings)} pipe hazard(s) an unsynchronised run would have are not "
            f"reported")), file=sys.stderr)
        findings = []
    for finding in findings:
        _diagnostic(finding.render(severity), finding.loc)
        if finding.related is not None:
            _diagnostic(render(finding.related, "note", finding.related_note), finding.related)
    checked = "hazards not checked" if args.no_hazards else \
        f"{len(findings)} hazard finding(s)"
    head = (f"ran @{result.entry} on {result.target} x {args.block_dim} block(s): "
            f"{result.ops} ops in {result.seconds:.3f} s, {checked}; ")
    if args.hazards == "error" and findings:
        print(printable(f"{head}wrote nothing (--hazards=error)"))
        return 1
    # only what the kernel wrote: an input file keeps its bytes and its timestamps
    items: list[tuple[Destination, Any]] = [
        (dests[name], np.ascontiguousarray(data).view(np.uint8).reshape(-1))
        for name, data in result.outputs.items()
        if name in result.stored or name in created]
    if args.trace is not None:
        import json
        items.append((dests["--trace"], json.dumps(result.timeline.trace(result.findings),
                                                   indent=1).encode("utf-8")))
    write_all(items, before_rename=_pause_before_rename, renaming=_SIGNALS.deferred)
    written = [str(d.path if args.out_dir else files[d.label]) +
               (f" (new, {data.size:,} bytes)" if d.label in created else "")
               for d, data in items if d.label != "--trace"]
    traced = f"; trace in {args.trace}" if args.trace is not None else ""
    print(printable(f"{head}wrote {', '.join(written) or 'nothing'}{traced}"))
    if args.trace is not None:
        rows = result.timeline.utilisation()
        busy = ", ".join(f"{c} {p} {f:.0%}" for c, p, _, f in rows[:8])
        more = f" (+{len(rows) - 8} more)" if len(rows) > 8 else ""
        end = result.timeline.trace()["otherData"]["end_us"]
        print(printable(f"timeline: {end:.2f} us; pipes busy: {busy or 'none'}{more}"))
    code = _report_comparisons(goldens, result.outputs, args, result.provenance)
    if args.initcheck:
        code = max(code, _initcheck(kernel, values, args, result.outputs, result.provenance))
    return code


def _initcheck(kernel: Any, values: dict[str, Any], args: argparse.Namespace,
               outputs: dict[str, np.ndarray], origin: Any = None) -> int:
    """Run again with every on-chip buffer starting as 0xFF bytes instead of zeros: an
    output that changes depends on on-chip bytes nothing wrote (msSanitizer's initcheck,
    judged by what reaches GM)."""
    from .compare import compare
    again = kernel.run(values, target=args.target, block_dim=args.block_dim, hazards=False,
                       max_ops=args.max_ops or None, ctrl=args.ctrl,
                       force_block_dim=args.force_block_dim, blas_threads=args.blas_threads,
                       gm_overrun=args.gm_overrun, poison=0xFF, provenance=True)
    tainted = 0
    for name, got in outputs.items():
        other = again.outputs[name]
        a, b = np.ascontiguousarray(got), np.ascontiguousarray(other)
        if a.tobytes() == b.tobytes():
            continue
        tainted += 1
        ints = np.dtype(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else None
        if ints is not None:                     # compare bit patterns: NaN != NaN here
            a, b = a.view(ints), b.view(ints)
        result = compare(name, a, b)
        print(printable(f"initcheck: output {name} depends on on-chip bytes nothing wrote: "
                        f"{result.bad} of {result.count} elements change when on-chip "
                        f"memory starts as 0xFF instead of 0x00; first at "
                        f"{list(result.first[0].index)}"), file=sys.stderr)
    if tainted and origin is not None:
        from .interp.provenance import first_tainted
        culprit = first_tainted(origin, again.provenance)
        if culprit is not None:             # the op, not only the output
            print(printable(f"initcheck: first op that used bytes nothing wrote: "
                            f"{culprit.where}: {culprit.undefined}"), file=sys.stderr)
    if not tainted:
        print("initcheck: no output depends on on-chip bytes nothing wrote")
    return 1 if tainted else 0


def _goldens(kernel: Any, args: argparse.Namespace, values: dict[str, Any]
             ) -> dict[str, tuple[np.ndarray, tuple[int, ...] | None]]:
    """``--compare NAME=GOLDEN.bin`` (and ``--shape NAME=RxC``), read and checked before
    the run: the golden holds the parameter's element type and its element count."""
    from .compare import parse_shape
    from .dtypes import dtype as _dtype
    from .errors import PtoValueError
    from .kernel import UsageError
    shapes: dict[str, tuple[int, ...]] = {}
    for spec in args.shape or []:
        key, sep, text = spec.partition("=")
        if not sep:
            raise UsageError(f"--shape expects NAME=RxC, got {spec!r}")
        try:
            shapes[kernel.param(key).name] = parse_shape(text)
        except PtoValueError as err:
            raise UsageError(f"--shape {key}: {err.detail}") from None
    goldens: dict[str, tuple[np.ndarray, tuple[int, ...] | None]] = {}
    for spec in args.compare or []:
        key, sep, text = spec.partition("=")
        if not sep or not text:
            raise UsageError(f"--compare expects NAME=GOLDEN.bin, got {spec!r}")
        p = kernel.param(key)
        if not p.is_pointer or p.name not in values:
            raise UsageError(f"--compare {p.name}: only a GM pointer parameter bound with "
                             f"--arg has an output to compare")
        dt = _dtype(p.element())
        raw, _ = read_regular(Path(text), args.max_arg_size or None,
                              what=f" (golden of {p.name})", limit_flag="--max-arg-size")
        want = np.frombuffer(raw[:len(raw) - len(raw) % dt.size], dtype=dt.np)
        new = not isinstance(values[p.name], np.ndarray)   # a new output: sized by the run
        if len(raw) % dt.size or (not new and want.size != values[p.name].size):
            raise UsageError(f"{text} has {len(raw)} bytes but {p.name} holds "
                             f"{values[p.name].size} {dt.name} elements "
                             f"({values[p.name].nbytes} bytes)")
        shape = shapes.get(p.name)
        if shape is not None and math.prod(shape) != want.size:
            raise UsageError(f"--shape {p.name}={'x'.join(map(str, shape))} holds "
                             f"{math.prod(shape)} elements, not {want.size}")
        goldens[p.name] = (want, shape)
    return goldens


def _report_comparisons(goldens: dict[str, tuple[np.ndarray, tuple[int, ...] | None]],
                        outputs: dict[str, Any], args: argparse.Namespace,
                        origin: Any = None) -> int:
    """Print each comparison; 1 if any output differs from its golden. With the run's
    provenance, the first mismatch is traced back: the op that wrote it, who wrote what
    that op read, and so on."""
    from .compare import compare
    failed = False
    for name, (want, shape) in goldens.items():
        result = compare(name, outputs[name], want, atol=args.atol, rtol=args.rtol,
                         shape=shape)
        failed |= not result.ok
        for line in result.render():
            print(printable(line))
        if args.compare_picture is not None and not result.ok:
            print(printable(_compare_picture(name, outputs[name], want, shape, args)))
        writer = origin.buffer(f"GM %{name}") if origin is not None and not result.ok else None
        if writer is not None:
            first = result.first[0].index
            flat = int(np.ravel_multi_index(first, result.shape))
            size = np.asarray(outputs[name]).dtype.itemsize
            print(printable(f"  where {name}{list(first)} came from:"))
            for line in origin.lineage(writer, flat * size, (flat + 1) * size):
                print(printable(line))
    return 1 if failed else 0


def _compare_picture(name: str, got: Any, want: np.ndarray, shape: tuple[int, ...] | None,
                     args: argparse.Namespace) -> str:
    """``--compare-picture DIR``: draw where ``name``'s mismatches fall; the report line."""
    from .compare import mismatch_picture
    from .plotting import MissingDependencyError
    path = Path(args.compare_picture) / f"compare-{name}.png"
    try:
        rows, cols = mismatch_picture(name, got, want, path, atol=args.atol, rtol=args.rtol,
                                      shape=shape)
    except MissingDependencyError as err:
        return f"  (no picture of the mismatches: {err})"
    return f"  picture of the mismatches ({rows}x{cols}): {path}"


def _server(args: argparse.Namespace) -> int:
    from .server import command
    return command(args.action, args.idle, args.foreground)


def _batch(args: argparse.Namespace) -> int:
    """Run every case of a JSON-lines case file; one line per case, then a summary."""
    from .batch import BatchError, default_workers, outcome_json, read_cases, run_cases
    from .kernel import UsageError
    try:
        cases = read_cases(args.cases)
    except BatchError as err:
        raise UsageError(err.detail) from None
    results = None
    if args.results is not None:
        results = named_destination("--results", Path(args.results))
        check_destination(results, follow=True)
    backend = "ray" if args.ray is not None else "local"
    where = (f"Ray ({args.ray or 'RAY_ADDRESS or a local instance'})" if backend == "ray"
             else "this process" if args.workers == 0 or len(cases) <= 1
             else f"{args.workers or default_workers()} worker process(es)")
    print(printable(f"{args.cases}: {len(cases)} case(s) in {where}"), flush=True)
    start = time.perf_counter()
    lines, failed = [], 0
    for outcome in run_cases(cases, workers=args.workers, backend=backend,
                             address=args.ray or None):
        lines.append(outcome_json(outcome))
        summary = (outcome.stdout.strip().splitlines() or [""])[-1]
        if outcome.ok:
            print(printable(f"ok    {outcome.name} ({outcome.seconds:.2f} s): {summary}"),
                  flush=True)
            continue
        failed += 1
        why = (outcome.stderr.strip().splitlines() or [summary or "?"])[-1]
        print(printable(f"FAIL  {outcome.name} (exit {outcome.code}): {why}"), flush=True)
    seconds = time.perf_counter() - start
    if results is not None:
        write_all([(results, ("\n".join(lines) + "\n").encode("utf-8"))])
    rate = len(cases) / seconds if seconds > 0 else float("inf")
    print(f"{len(cases)} case(s): {len(cases) - failed} ok, {failed} failed in {seconds:.2f} s "
          f"({rate:.1f} cases/s)" + (f"; results in {args.results}" if results else ""))
    return 1 if failed else 0


def _case(args: argparse.Namespace) -> int:
    """Run case folders in the PTO-Gym layout: golden.py, ptosim run, compare.py."""
    import json

    from .cases import CaseError, CaseResult, case_folders, run_folder
    from .kernel import UsageError
    from .tile_cases import run_tile_folder, tile_folders
    roots = [Path(p) for p in args.paths]
    try:
        folders = case_folders(roots)
    except CaseError as err:
        raise UsageError(err.detail) from None
    tiles = tile_folders(roots)
    if not folders and not tiles:
        raise UsageError(f"no kernel.pto or tile case folder (cases.py, gen_data.py, one .pto) "
                         f"under {', '.join(map(str, roots))}")
    options: dict[str, Any] = {}
    if args.target:
        options["target"] = args.target
    if args.gm_overrun != "error":
        options["gm_overrun"] = args.gm_overrun
    keep = Path(args.keep) if args.keep else None
    counts: dict[str, int] = {}
    start = time.perf_counter()
    total = 0
    for folder in folders + tiles:
        root = next((r for r in roots if folder == r or r in folder.parents), folder)
        name = str(folder.relative_to(root)) if folder != root else folder.name
        results: list[CaseResult] = run_tile_folder(folder, name, options, keep) \
            if folder in tiles else [run_folder(folder, name, options, keep)]
        for result in results:        # a tile folder: one line per cases.py entry
            total += 1
            counts[result.status] = counts.get(result.status, 0) + 1
            print(printable(result.line()), flush=True)
            if args.show_binding:
                print(printable(f"      binding: {json.dumps(result.binding)}"))
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    print(f"{total} case(s): {summary} in {time.perf_counter() - start:.1f} s")
    return 0 if counts.get("PASS", 0) == total else 1


def _check_arg_file(p: Any, path: Path, size: int, ident: tuple[int, int],
                    owners: dict[tuple[int, int], str]) -> None:
    """One file per GM parameter (by device and inode, so links and ``./x`` spellings count),
    and at least the bytes a statically shaped memref parameter describes."""
    from .kernel import UsageError
    if ident in owners:
        raise UsageError(f"{path} is bound to both {owners[ident]} and {p.name}; each GM "
                         f"parameter needs its own file (one would overwrite the other's "
                         f"result on write-back)")
    owners[ident] = p.name
    need = _static_bytes(p.type)
    if need is not None and size < need:
        raise UsageError(f"{path} has {size:,} bytes but {p.name} ({p.type}) needs {need:,}")


def _static_bytes(t: Any) -> int | None:
    """Bytes of a memref parameter with a fully static shape, else None."""
    from .mlir.builtin import MemRefType
    if not isinstance(t, MemRefType):
        return None
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return None
    from .dtypes import dtype as _dtype
    from .frontend import ptr_info
    return math.prod(shape) * _dtype(ptr_info(t)[0]).size


def _destinations(kernel: Any, args: argparse.Namespace, files: dict[str, Path]
                  ) -> dict[str, Destination]:
    """Where each GM parameter (and the trace) will be written, checked before the run: the
    file the user named (links followed), or ``DIR/<name>.bin`` (links refused)."""
    from .kernel import UsageError
    dests: dict[str, Destination] = {}
    out_dir = Path(args.out_dir) if args.out_dir else None
    if out_dir is not None and os.path.lexists(out_dir) and not out_dir.is_dir():
        raise UsageError(f"--out-dir {out_dir} exists and is not a directory")
    for p in kernel.params:
        if not p.is_pointer or p.name not in files:
            continue
        if out_dir is not None:
            dests[p.name] = Destination(p.name, out_dir / f"{p.name}.bin")
            check_destination(dests[p.name], follow=False, make_dirs=True)
        else:
            dests[p.name] = named_destination(p.name, files[p.name])
            check_destination(dests[p.name], follow=True)
    if args.log not in (None, "-"):
        op_log = named_destination("--log", Path(args.log))
        check_destination(op_log, follow=True)
        for d in dests.values():
            if os.path.normcase(d.path.resolve()) == os.path.normcase(op_log.path):
                raise UsageError(f"--log {args.log} is also where {d.label} is written")
        dests["--log"] = op_log
    if args.trace is not None:
        trace = named_destination("--trace", Path(args.trace))
        check_destination(trace, follow=True)
        for d in dests.values():
            if os.path.normcase(d.path.resolve()) == os.path.normcase(trace.path):
                raise UsageError(f"--trace {args.trace} is also where {d.label} is written")
        dests["--trace"] = trace
    return dests


def _pause_before_rename() -> None:
    """Test hook: with PTOSIM_TEST_PAUSE_BEFORE_RENAME=FILE set, create FILE once every
    temporary output is written and wait (up to 60 s) for a signal before renaming."""
    marker = os.environ.get("PTOSIM_TEST_PAUSE_BEFORE_RENAME")
    if marker:
        Path(marker).touch()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived (a BaseException, so no ``except Exception`` swallows it)."""

    def __init__(self, signum: int, after_write: bool = False) -> None:
        super().__init__(signum)
        self.signum = signum
        self.after_write = after_write


class _SignalGuard:
    """Turns SIGINT / SIGTERM into `Interrupted`, except while outputs are being renamed:
    there the signal waits until every rename is done (a half-renamed set would be worse)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.deferring = False
        self.pending: int | None = None
        self.saved: dict[int, Any] = {}

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.deferring:
            self.pending = self.pending or signum
            return
        raise Interrupted(signum)

    def install(self) -> None:
        try:
            for sig in self.SIGNALS:
                self.saved[sig] = signal.signal(sig, self._handle)
        except ValueError:              # not the main thread: leave the defaults
            self.saved.clear()

    def restore(self) -> None:
        for sig, old in self.saved.items():
            signal.signal(sig, old)
        self.saved.clear()
        self.pending = None
        self.deferring = False

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """From the first rename on, files have changed: a signal is only recorded (reported
        when the command ends), never allowed to cut the renames short."""
        self.deferring = True
        yield


_SIGNALS = _SignalGuard()


class _Progress:
    """Progress of long runs on stderr: on a terminal a live line after the first second;
    otherwise one line every ``every`` seconds (0: none), so short runs print nothing."""

    def __init__(self, stream: Any, every: float = 10.0) -> None:
        self.stream = stream
        self.every = every
        self.next = every
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.shown = False

    def update(self, ops: int, seconds: float) -> None:
        if self.tty:
            if seconds > 1:
                self.stream.write(f"\rptosim: {ops:,} ops, {seconds:.1f} s")
                self.stream.flush()
                self.shown = True
        elif self.every > 0 and seconds >= self.next:
            self.stream.write(f"ptosim: {ops:,} ops, {seconds:.1f} s\n")
            self.stream.flush()
            self.next = seconds + self.every

    def done(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.shown = False


def _trace(args: argparse.Namespace) -> int:
    from .kernel import UsageError
    from .timeline_plot import render_trace
    raw, _ = read_regular(Path(args.trace_file), DEFAULT_MAX_ARG_SIZE, what=" (trace)")
    try:
        import json
        data = json.loads(raw.decode("utf-8"))
    except ValueError as err:
        raise UsageError(f"cannot read trace {args.trace_file}: {err}") from None
    window = None
    if args.window is not None:
        a, sep, b = args.window.partition(":")
        try:
            window = (float(a), float(b))
        except ValueError:
            raise UsageError(f"--window expects START:END in microseconds, got "
                             f"{args.window!r}") from None
        if not sep or not window[0] < window[1]:
            raise UsageError(f"--window START:END needs START < END, got {args.window!r}")
    arrows = render_trace(data, args.output, window)
    print(f"wrote {args.output} ({arrows} flag / semaphore arrow(s))")
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


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _kernel_size_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--max-kernel-size", type=_size, default=DEFAULT_MAX_KERNEL_SIZE,
                     metavar="BYTES", help="largest KERNEL.pto read (default 16M; 0: no limit)")


def _ctrl_value(text: str) -> int:
    """A CTRL value for --ctrl: decimal or 0x / 0b / 0o, in [0, 2**64)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError(f"{text} is outside the 64-bit CTRL register")
    return value


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
                     help="bind a parameter by name (without %%) or 0-based position; a "
                          "scalar VALUE in hexadecimal (0x4200) is a float parameter's "
                          "bit pattern")
    run.add_argument("--out-dir", metavar="DIR",
                     help="write each GM parameter to DIR/<name>.bin instead of in place")
    run.add_argument("--hazards", choices=("warn", "error"), default="warn",
                     help="report unsynchronised pipe/core accesses as warnings (default) "
                          "or fail the run with exit 1")
    run.add_argument("--no-hazards", action="store_true",
                     help="do not run the pipe-hazard checker")
    run.add_argument("--trace", metavar="OUT.json",
                     help="write a Chrome/Perfetto trace: one track per core x pipe")
    run.add_argument("--max-ops", type=_count, default=DEFAULT_MAX_OPS, metavar="N",
                     help=f"stop after N ops over all cores (default {DEFAULT_MAX_OPS:,}; "
                          f"0: no limit)")
    run.add_argument("--force-block-dim", action="store_true",
                     help="allow --block-dim above the target's AI-core count")
    run.add_argument("--max-arg-size", type=_size, default=DEFAULT_MAX_ARG_SIZE,
                     metavar="BYTES", help="largest --arg file read (default 1G; 0: no limit)")
    run.add_argument("--progress-every", type=float, default=10.0, metavar="SECONDS",
                     help="off a terminal, report progress every SECONDS (default 10; 0: "
                          "never)")
    run.add_argument("--gm-overrun", choices=("error", "warn"), default="error",
                     help="a GM access past the end of its buffer fails the run (default) or "
                          "is reported once per op and buffer, reading zeros and dropping "
                          "writes there")
    _kernel_size_option(run)
    run.add_argument("--ctrl", type=_ctrl_value, metavar="VALUE",
                     help="every core's CTRL register at entry, e.g. 0 for the saturating "
                          "mode (default 0x1000000000000: bit 48, non-saturating)")
    run.add_argument("--log", metavar="FILE|-",
                     help="one line per op (location, core, pipe, operands, bytes read and "
                          "written) to FILE, also when the run fails, or to stderr with -")
    run.add_argument("--dump", action="append", metavar="BUFFER@LINE[#N]",
                     help="save a buffer (l1 l0a l0b l0c bt fb ub ub1, blockK.l1, or a GM "
                          "parameter %%c) as .npy bytes right after the op on LINE runs (the "
                          "last time, or its Nth run); a tile operand of that op (%%y) as its "
                          "valid region in logical order, plus a .png picture; repeatable")
    run.add_argument("--dump-dir", metavar="DIR", help="where --dump files go (default .)")
    run.add_argument("--initcheck", action="store_true",
                     help="run a second time with on-chip memory starting as 0xFF bytes and "
                          "report outputs that change (reads of bytes nothing wrote)")
    run.add_argument("--compare", action="append", metavar="NAME=GOLDEN.bin",
                     help="after the run, compare output NAME with a golden file of its "
                          "element type (repeatable); exit 1 if any element differs")
    run.add_argument("--atol", type=_tolerance, default=0.0, metavar="X",
                     help="--compare: absolute tolerance (default 0)")
    run.add_argument("--rtol", type=_tolerance, default=0.0, metavar="X",
                     help="--compare: relative tolerance (default 0)")
    run.add_argument("--shape", action="append", metavar="NAME=RxC",
                     help="--compare: report positions of NAME in this shape, e.g. 40x64")
    run.add_argument("--compare-picture", metavar="DIR",
                     help="--compare: for each output that differs, also draw where the "
                          "mismatches fall (its --shape, else rows of 64 elements) as "
                          "DIR/compare-NAME.png; needs matplotlib (the plot extra)")
    run.add_argument("--blas-threads", type=_count, metavar="N",
                     help="threads numpy's BLAS may use during the run (default 1, or "
                          "$PTOSIM_BLAS_THREADS; 0: BLAS's own setting)")
    run.set_defaults(func=_run)
    params = sub.add_parser("params", help="list a kernel's parameters and the GM bytes "
                                           "each one's ops touch")
    params.add_argument("kernel", metavar="KERNEL.pto")
    params.add_argument("--entry", metavar="FUNC", help="kernel function (default: the only "
                                                        "one)")
    params.add_argument("--target", choices=sorted(TARGETS), help="overrides pto.target_arch")
    params.add_argument("--arg", action="append", metavar="NAME=VALUE",
                        help="bind a scalar parameter, so the ops that use it count")
    _kernel_size_option(params)
    params.set_defaults(func=_params)

    case = sub.add_parser("case", help="run PTO-Gym style case folders: golden.py, the "
                                       "kernel, compare.py; one line per case")
    case.add_argument("paths", nargs="+", metavar="FOLDER",
                      help="a case folder (kernel.pto, golden.py, compare.py, main.cpp + "
                           "launch.cpp or ptosim-case.json) or a folder of them")
    case.add_argument("--target", choices=sorted(TARGETS), help="overrides pto.target_arch")
    case.add_argument("--gm-overrun", choices=("error", "warn"), default="error",
                      help="as for run")
    case.add_argument("--keep", metavar="DIR",
                      help="leave each case's generated and output files in DIR/<case>")
    case.add_argument("--show-binding", action="store_true",
                      help="print the parameter binding each case ran with")
    case.set_defaults(func=_case)

    batch = sub.add_parser("batch", help="run many cases (a JSON-lines file) in one go")
    batch.add_argument("cases", metavar="CASES.jsonl",
                       help='one JSON object per line: {"kernel": "k.pto", "args": {"a": '
                            '"a.bin", "m": 40}, ...any run option by its long name}')
    batch.add_argument("--workers", type=_count, metavar="N",
                       help="local worker processes (default: one per core; 0: in this "
                            "process)")
    batch.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                       help="run the cases on a Ray cluster (default address: $RAY_ADDRESS "
                            "or a new local instance; needs pip install 'ptosim[ray]')")
    batch.add_argument("--results", metavar="OUT.jsonl",
                       help="write each case's exit code, output and time as JSON lines")
    batch.set_defaults(func=_batch)

    trace = sub.add_parser("trace", help="render a trace written by run --trace as a picture")
    trace.add_argument("trace_file", metavar="TRACE.json")
    trace.add_argument("-o", "--output", metavar="OUT.png", required=True,
                       help="picture to write (.png or .svg)")
    trace.add_argument("--window", metavar="START:END",
                       help="draw only this time window, in microseconds (e.g. 0:5.5)")
    trace.set_defaults(func=_trace)
    check = sub.add_parser("check", help="parse and verify a .pto kernel without running it")
    check.add_argument("kernel", metavar="KERNEL.pto")
    check.add_argument("--entry", metavar="FUNC")
    check.add_argument("--target", choices=sorted(TARGETS))
    check.add_argument("--verify-diagnostics", action="store_true",
                       help="pass only if the diagnostics are exactly those the kernel's "
                            "'// expected-error {{...}}' comments announce")
    _kernel_size_option(check)
    check.set_defaults(func=_check)
    from .layout import TILE_TYPES
    srv = sub.add_parser("server", help="keep a warm ptosim for later commands (start, stop, "
                         "status): each command then skips the imports")
    srv.add_argument("action", choices=("start", "stop", "status"))
    srv.add_argument("--idle", type=float, default=1800.0, metavar="SECONDS",
                     help="stop after this long without a command (default 1800)")
    srv.add_argument("--foreground", action="store_true",
                     help="serve in this process instead of in the background")
    srv.set_defaults(func=_server)
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


def main(argv: list[str] | None = None,
         parser: argparse.ArgumentParser | None = None) -> int:
    """Entry point; returns the process exit code (0 ok, 1 kernel error, 2 usage error).
    ``parser``: one `build_parser` made earlier (a sweep reuses it: building it costs
    more than running a small kernel)."""
    try:
        return _main(argv, parser)
    finally:
        resume()                        # never leaves the collector paused (ptosim.startup)


def _main(argv: list[str] | None, parser: argparse.ArgumentParser | None) -> int:
    parser = parser or build_parser()
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
    from .plotting import MissingDependencyError
    if not hasattr(args, "kernel"):     # no kernel to parse: start-up ends here
        resume()
    _SIGNALS.install()
    try:
        code = int(args.func(args))
        if _SIGNALS.pending is not None:
            raise Interrupted(_SIGNALS.pending, after_write=True)
        return code
    except (UsageError, FileUsageError, MissingDependencyError) as err:
        print(f"ptosim: {err}", file=sys.stderr)
        return 2
    except PtoError as err:
        _diagnostic(str(err) if err.loc else f"ptosim: {err}", err.loc)
        return 1
    except RecursionError:
        print(f"{printable(getattr(args, 'kernel', '?'))}: error: the kernel nests too deeply "
              f"to run",
              file=sys.stderr)
        return 1
    except (Interrupted, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, Interrupted) else int(signal.SIGINT)
        name = signal.Signals(signum).name
        if isinstance(exc, Interrupted) and exc.after_write:
            print(f"ptosim: {name} arrived after the outputs were committed; every output "
                  f"was written", file=sys.stderr)
        else:
            print(f"ptosim: interrupted by {name}; no file was changed", file=sys.stderr)
        return 128 + signum
    except OSError as err:              # a file problem no check above foresaw
        where = f" {err.filename}" if err.filename else ""
        print(f"ptosim: cannot use{where}: {err.strerror or err}", file=sys.stderr)
        return 2
    finally:
        _SIGNALS.restore()

if __name__ == "__main__":
    sys.exit(main())
