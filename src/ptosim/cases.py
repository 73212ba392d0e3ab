"""Run case folders in the public PTO-Gym layout: ``kernel.pto``, ``golden.py`` (writes the
inputs and ``golden_*.bin``), ``compare.py`` (exit 0 when the outputs match), and the host
program (``main.cpp`` + ``launch.cpp``) that says which file feeds which kernel parameter.

For each case: copy the folder's files to a scratch folder (the case folder is left as it
was), run ``golden.py`` there, bind the files to the kernel's parameters, run the kernel as
``ptosim run`` would, then run ``compare.py``. The binding comes from ``ptosim-case.json`` in
the case folder when there is one::

    {"args": {"0": "v1.bin", "1": "v2.bin", "2": "v3.bin"}, "block_dim": 1}

(parameters by position or name; any other key is a ``ptosim run`` option, as in a batch
case; ``{"runs": [{...}, {...}]}`` for several launches, run in order on the same files; a
scalar parameter the host reads from a file is ``{"file": "v8.bin"}``, its first element
taken as the parameter's type, and ``block_dim`` may be a C integer expression over
parameters, ``"(${8} + 7) / 8"`` with ``${N}`` the value of parameter N),
otherwise it is inferred from the host program: each launch's kernel function, the files
it reads into each device buffer, the constants it passes, and the order of the kernel's
arguments. An output file the golden script
does not write is created at the size of its ``golden_`` counterpart.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .batch import Case, case_from, run_case
from .errors import PtoError

BINDING = "ptosim-case.json"
SCRIPT_TIMEOUT = 600            # seconds for golden.py or compare.py


class CaseError(PtoError):
    """A case folder ptosim cannot run: no kernel, no binding it can find ..."""


@dataclass
class CaseResult:
    name: str
    status: str                 # PASS, FAIL (compare), ERROR (a stage failed)
    stage: str = ""             # golden, binding, run, compare
    detail: str = ""
    seconds: float = 0.0
    binding: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        where = f" ({self.stage})" if self.stage else ""
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.status:<5} {self.name}{where}{tail}"


def case_folders(paths: list[Path]) -> list[Path]:
    """The case folders among ``paths``: a folder with a kernel.pto, or the folders below
    one (any depth) that have one."""
    found: list[Path] = []
    for p in paths:
        if (p / "kernel.pto").is_file():
            found.append(p)
        elif p.is_dir():
            found += sorted(k.parent for k in p.rglob("kernel.pto"))
        else:
            raise CaseError(f"{p} is not a folder")
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise CaseError(f"cannot read {path}: {err.strerror}") from None


def infer_binding(folder: Path) -> dict[str, Any]:
    """The binding the host program implies (see module doc); `CaseError` if it cannot
    be read from it."""
    main_cpp, launch_cpp = folder / "main.cpp", folder / "launch.cpp"
    if not main_cpp.is_file() or not launch_cpp.is_file():
        raise CaseError(f"no {BINDING} and no main.cpp + launch.cpp to infer the binding from")
    main, launch = _read(main_cpp), _read(launch_cpp)
    # host buffer -> file: any call whose first argument is "./x.bin" and that names a host
    # buffer (ReadFile, WriteFile or a case's own wrapper), or a `case N: hostBuf = X`
    # table that reads vN.bin into X
    to_device = {m[2]: m[1] for m in re.finditer(
        r"aclrtMemcpy\(\s*(\w+)\s*,[^,]+,\s*(\w+)\s*,[^;]*HOST_TO_DEVICE", main)}
    from_device = {m[1]: m[2] for m in re.finditer(
        r"aclrtMemcpy\(\s*(\w+)\s*,[^,]+,\s*(\w+)\s*,[^;]*DEVICE_TO_HOST", main)}
    file_of_device: dict[str, Any] = {}
    for m in re.finditer(r'\w+\(\s*"\./([\w.-]+\.bin)"\s*,([^;]*?)\)', main):
        names = re.findall(r"\b\w+\b", m[2])
        host = next((n for n in names if n in to_device or n in from_device), None)
        if host in to_device:
            file_of_device.setdefault(to_device[host], m[1])
        elif host in from_device:
            file_of_device.setdefault(from_device[host], m[1])
    # a host scalar read from a file (ReadFile("./v8.bin", size, &v8Host, size))
    for m in re.finditer(r'\w+\(\s*"\./([\w.-]+\.bin)"\s*,[^,;]*,\s*&\s*(\w+)\s*,', main):
        file_of_device.setdefault(m[2], {"file": m[1]})
    for m in re.finditer(r"case\s+(\d+)\s*:\s*hostBuf\s*=\s*(\w+)\s*;", main):
        if m[2] in to_device:
            file_of_device.setdefault(to_device[m[2]], f"v{m[1]}.bin")
    consts = {m[1]: int(m[2]) for m in re.finditer(
        r"\b(?:const(?:expr)?\s+)?(?:u?int(?:8|16|32|64)_t|int|long|size_t|unsigned)\s+(\w+)\s*="
        r"\s*(-?\d+)\s*;", main)}
    calls = list(re.finditer(r"\n\s*(Launch\w*)\s*\((.*?)\)\s*;", main, re.S))
    if not calls:
        raise CaseError("main.cpp has no Launch...(...) call to infer the binding from")
    runs = [_launch(call[1], call[2], launch, file_of_device, consts) for call in calls]
    return runs[0] if len(runs) == 1 else {"runs": runs}


def _launch(fn: str, actual_text: str, launch: str, file_of_device: dict[str, Any],
            consts: dict[str, int]) -> dict[str, Any]:
    """One host launch: the kernel it calls, its arguments as files or numbers."""
    # C++ casts around an argument (reinterpret_cast<float *>(dev), (float *)dev) pass it on
    actual = [re.sub(r"^(?:\w+_cast\s*<[^>]*>\s*\(\s*(\w+)\s*\)|\([^)]*\)\s*(\w+))$",
                     lambda m: m[1] or m[2], a.strip()) for a in actual_text.split(",")]
    body = re.search(re.escape(fn) + r"\s*\((.*?)\)\s*\{(.*?)\n\}", launch, re.S)
    if body is None:
        raise CaseError(f"launch.cpp does not define {fn}")
    formal = [re.split(r"[\s*&]+", p.strip())[-1] for p in body[1].split(",") if p.strip()]
    kernel_call = re.search(r"(\w+)\s*<<<\s*([^,>]+)\s*,.*?>>>\s*\((.*?)\)\s*;", body[2], re.S)
    if kernel_call is None:
        raise CaseError(f"{fn} in launch.cpp has no kernel<<<...>>>(...) launch")
    passed = dict(zip(formal, actual))
    args: dict[str, Any] = {}
    position: dict[str, int] = {}               # launch-body name -> kernel argument
    for i, text in enumerate(a for a in kernel_call[3].split(",") if a.strip()):
        name = re.sub(r"\([^)]*\)", "", text).strip()      # drop casts
        position[name] = i
        value = passed.get(name, name)
        if value in file_of_device:
            args[str(i)] = file_of_device[value]
        elif re.fullmatch(r"-?\d+", value):
            args[str(i)] = int(value)
        elif value in consts:
            args[str(i)] = consts[value]
        else:
            raise CaseError(f"cannot tell what kernel argument {i} ({name}) is from the host "
                            f"program; write {BINDING}")
    binding: dict[str, Any] = {"entry": kernel_call[1], "args": args}
    block_dim = kernel_call[2].strip()
    block_dim = passed.get(block_dim, block_dim)
    local = {m[1]: m[2].strip() for m in re.finditer(
        r"\bconst(?:expr)?\s+(?:u?int(?:8|16|32|64)_t|int|long|size_t|unsigned)\s+(\w+)\s*="
        r"\s*([^;]+);", body[2])}
    if block_dim in local:                      # const int32_t blocks = (v9 + 7) / 8;
        binding["block_dim"] = _block_expr(local[block_dim], local, position, consts)
    elif re.fullmatch(r"\d+", block_dim):
        binding["block_dim"] = int(block_dim)
    elif block_dim in consts:
        binding["block_dim"] = consts[block_dim]
    return binding


def _block_expr(text: str, local: dict[str, str], position: dict[str, int],
                consts: dict[str, int]) -> int | str:
    """A launch's block count as a number or a ``${N}`` expression over kernel arguments
    (names of the launch body's integer constants substituted)."""
    def name(m: re.Match[str]) -> str:
        n = m[0]
        if n in position:
            return f"${{{position[n]}}}"
        if n in local:
            return f"({_block_expr(local[n], local, position, consts)})"
        if n in consts:
            return str(consts[n])
        raise CaseError(f"cannot evaluate the block count {text!r}: {n} is not a kernel "
                        f"argument or constant; write {BINDING}")
    expr = re.sub(r"\b[A-Za-z_]\w*\b", name, text)
    return int(expr) if re.fullmatch(r"\d+", expr) else expr


def c_int_expr(expr: str, values: dict[int, int]) -> int:
    """Evaluate a ``${N}`` block-count expression: integers, + - * / % and parentheses,
    ``/`` truncating toward zero as in C."""
    import ast

    text = re.sub(r"\$\{(\d+)\}", lambda m: str(values[int(m[1])]), expr)

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, (ast.Div, ast.Mod)) and b != 0:
                q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
                return q if isinstance(node.op, ast.Div) else a - q * b
        raise CaseError(f"block_dim {expr!r} is not an integer expression ptosim can evaluate")
    try:
        return ev(ast.parse(text, mode="eval"))
    except SyntaxError:
        raise CaseError(f"block_dim {expr!r} is not an integer expression") from None


def binding_of(folder: Path) -> tuple[dict[str, Any], str]:
    """The case's binding and where it came from."""
    path = folder / BINDING
    if path.is_file():
        try:
            obj = json.loads(_read(path))
        except json.JSONDecodeError as err:
            raise CaseError(f"{path}: not JSON: {err.msg} (line {err.lineno})") from None
        if not isinstance(obj, dict):
            raise CaseError(f"{path}: a binding is a JSON object")
        return obj, BINDING
    return infer_binding(folder), "main.cpp + launch.cpp"


def _script(work: Path, name: str, origin: Path) -> tuple[bool, str]:
    """Run a case script in the scratch folder; it may import helpers that live next to
    the case or in its family folder, so both are on its path."""
    env = dict(os.environ)
    paths = [str(origin), str(origin.parent), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    try:
        done = subprocess.run([sys.executable, name], cwd=work, capture_output=True,
                              text=True, timeout=SCRIPT_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return False, f"{name} ran longer than {SCRIPT_TIMEOUT} s"
    text = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, (text[-1] if text else f"exit {done.returncode}")


def scalars_from_files(run: dict[str, Any], work: Path) -> dict[str, Any]:
    """``run`` with each ``{"file": F}`` argument replaced by F's first element (read as
    its parameter's type, after golden.py wrote F) and a ``block_dim`` expression by its
    value."""
    args = run.get("args")
    if not isinstance(args, dict):
        return run
    wanted = {k: v for k, v in args.items() if isinstance(v, dict)}
    block_dim = run.get("block_dim")
    if not wanted and not isinstance(block_dim, str):
        return run
    import numpy as np

    from .kernel import Kernel
    kernel = Kernel.from_file(work / str(run.get("kernel", "kernel.pto")), run.get("entry"))
    args = dict(args)
    for key, spec in wanted.items():
        p = kernel.param(str(key))
        path = work / str(spec.get("file", ""))
        if set(spec) != {"file"} or not path.is_file():
            raise CaseError(f"argument {key}: {spec!r} names no file the golden script wrote")
        if p.is_pointer:
            raise CaseError(f"argument {key}: {{\"file\": ...}} is for scalar parameters; "
                            f"%{p.name} is a pointer (give the file name itself)")
        np_type = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
                   "index": np.int64, "f16": np.float16, "f32": np.float32,
                   "f64": np.float64}.get(str(p.type))
        data = np.fromfile(path, np_type) if np_type is not None else np.zeros(0)
        raw = path.read_bytes()
        if not data.size and str(p.type).startswith("i") and 0 < len(raw) < 8:
            # a narrower host scalar (a uint8_t / uint16_t the launcher widens): its bytes
            args[key] = int.from_bytes(raw, "little")
            continue
        if not data.size:
            raise CaseError(f"argument {key}: cannot read a {p.type} from {path.name}")
        args[key] = data[0].item()
    out = {**run, "args": args}
    if isinstance(block_dim, str):
        values = {kernel.param(str(k)).index: v for k, v in args.items()
                  if isinstance(v, int)}
        try:
            out["block_dim"] = c_int_expr(block_dim, values)
        except KeyError as err:
            raise CaseError(f"block_dim {block_dim!r} uses argument {err} that has no "
                            f"integer value") from None
    return out


def run_folder(folder: Path, name: str, options: dict[str, Any] | None = None,
               keep: Path | None = None) -> CaseResult:
    """Run one case folder (see module doc); ``options`` are extra ``ptosim run`` options
    (``{"gm_overrun": "warn"}``), ``keep`` a folder to leave the scratch files in."""
    start = time.perf_counter()
    result = CaseResult(name, "ERROR")
    try:
        binding, source = binding_of(folder)
    except CaseError as err:
        result.stage, result.detail = "binding", err.detail
        return result
    result.binding = binding
    with tempfile.TemporaryDirectory(prefix="ptosim-case-") as tmp:
        work = keep / name.replace("/", "_") if keep is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for f in folder.iterdir():
            if f.is_file() and f.name != BINDING:
                shutil.copy2(f, work / f.name)
        if (work / "golden.py").is_file():
            ok, detail = _script(work, "golden.py", folder.resolve())
            if not ok:
                result.stage, result.detail = "golden", detail
                return result
        for value in [v for r in binding.get("runs", [binding]) if isinstance(r, dict)
                      for v in r.get("args", {}).values()]:
            if isinstance(value, str) and value.endswith(".bin") and not (work / value).exists():
                golden = work / f"golden_{value}"
                if golden.is_file():                 # an output the golden script sized
                    (work / value).write_bytes(bytes(golden.stat().st_size))
        runs = binding.get("runs", [binding])
        if not isinstance(runs, list) or not runs:
            result.stage, result.detail = "binding", '"runs" must be a list of launches'
            return result
        for run in runs:                 # launches in order, on the same files (device memory)
            try:
                run = scalars_from_files(run, work)
                case: Case = case_from({"kernel": "kernel.pto", **run, **(options or {})}, work,
                                       f"{name} ({source})", name)
            except PtoError as err:
                result.stage, result.detail = "binding", err.detail
                return result
            outcome = run_case(case)
            if not outcome.ok:
                lines = (outcome.stderr or outcome.stdout).strip().splitlines()
                result.stage = "run"
                result.detail = next((t for t in lines if ": error: " in t or t.startswith(
                    "ptosim:")), lines[-1] if lines else f"exit {outcome.code}")
                return result
        if (work / "compare.py").is_file():
            ok, detail = _script(work, "compare.py", folder.resolve())
            result.status, result.stage = ("PASS", "") if ok else ("FAIL", "compare")
            result.detail = "" if ok else detail
        else:
            result.status, result.detail = "PASS", "ran (no compare.py)"
    result.seconds = time.perf_counter() - start
    return result
