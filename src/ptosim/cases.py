"""Run case folders in the public PTO-Gym layout: ``kernel.pto``, ``golden.py`` (writes the
inputs and ``golden_*.bin``), ``compare.py`` (exit 0 when the outputs match), and the host
program (``main.cpp`` + ``launch.cpp``) that says which file feeds which kernel parameter.

For each case: copy the folder's files to a scratch folder (the case folder is left as it
was), run ``golden.py`` there, bind the files to the kernel's parameters, run the kernel as
``ptosim run`` would, then run ``compare.py``. The binding comes from ``ptosim-case.json`` in
the case folder when there is one::

    {"args": {"0": "v1.bin", "1": "v2.bin", "2": "v3.bin"}, "block_dim": 1}

(parameters by position or name; any other key is a ``ptosim run`` option, as in a batch
case), otherwise it is inferred from the host program: the files it reads into each device
buffer and the order the launch passes them to the kernel. An output file the golden script
does not write is created at the size of its ``golden_`` counterpart.
"""

from __future__ import annotations

import json
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
    # host buffer -> file: ReadFile("./v1.bin", size, v1Host, ...) or a `case N: hostBuf = X`
    # table that reads vN.bin into X
    file_of_host = {m[2]: m[1] for m in
                    re.finditer(r'ReadFile\(\s*"\./([\w.-]+\.bin)"\s*,\s*\w+\s*,\s*(\w+)', main)}
    for m in re.finditer(r"case\s+(\d+)\s*:\s*hostBuf\s*=\s*(\w+)\s*;", main):
        file_of_host.setdefault(m[2], f"v{m[1]}.bin")
    file_of_device: dict[str, str] = {}
    for m in re.finditer(r"aclrtMemcpy\(\s*(\w+)\s*,[^,]+,\s*(\w+)\s*,[^;]*HOST_TO_DEVICE", main):
        if m[2] in file_of_host:
            file_of_device[m[1]] = file_of_host[m[2]]
    written = {m[2]: m[1] for m in
               re.finditer(r'WriteFile\(\s*"\./([\w.-]+\.bin)"\s*,\s*(\w+)', main)}
    for m in re.finditer(r"aclrtMemcpy\(\s*(\w+)\s*,[^,]+,\s*(\w+)\s*,[^;]*DEVICE_TO_HOST", main):
        if m[1] in written:
            file_of_device.setdefault(m[2], written[m[1]])
    call = re.search(r"\n\s*(Launch\w*)\s*\((.*?)\)\s*;", main, re.S)
    if call is None:
        raise CaseError("main.cpp has no Launch...(...) call to infer the binding from")
    actual = [a.strip() for a in call[2].split(",")]
    body = re.search(re.escape(call[1]) + r"\s*\((.*?)\)\s*\{(.*?)\n\}", launch, re.S)
    if body is None:
        raise CaseError(f"launch.cpp does not define {call[1]}")
    formal = [re.split(r"[\s*&]+", p.strip())[-1] for p in body[1].split(",") if p.strip()]
    kernel_call = re.search(r"<<<\s*([^,>]+)\s*,.*?>>>\s*\((.*?)\)\s*;", body[2], re.S)
    if kernel_call is None:
        raise CaseError(f"{call[1]} in launch.cpp has no kernel<<<...>>>(...) launch")
    passed = dict(zip(formal, actual))
    args: dict[str, Any] = {}
    for i, text in enumerate(a for a in kernel_call[2].split(",") if a.strip()):
        name = re.sub(r"\([^)]*\)", "", text).strip()      # drop casts
        value = passed.get(name, name)
        if value in file_of_device:
            args[str(i)] = file_of_device[value]
        elif re.fullmatch(r"-?\d+", value):
            args[str(i)] = int(value)
        else:
            raise CaseError(f"cannot tell what kernel argument {i} ({name}) is from the host "
                            f"program; write {BINDING}")
    binding: dict[str, Any] = {"args": args}
    block_dim = kernel_call[1].strip()
    block_dim = passed.get(block_dim, block_dim)
    if re.fullmatch(r"\d+", block_dim):
        binding["block_dim"] = int(block_dim)
    return binding


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


def _script(work: Path, name: str) -> tuple[bool, str]:
    try:
        done = subprocess.run([sys.executable, name], cwd=work, capture_output=True,
                              text=True, timeout=SCRIPT_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"{name} ran longer than {SCRIPT_TIMEOUT} s"
    text = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, (text[-1] if text else f"exit {done.returncode}")


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
            ok, detail = _script(work, "golden.py")
            if not ok:
                result.stage, result.detail = "golden", detail
                return result
        for value in binding.get("args", {}).values():
            if isinstance(value, str) and value.endswith(".bin") and not (work / value).exists():
                golden = work / f"golden_{value}"
                if golden.is_file():                 # an output the golden script sized
                    (work / value).write_bytes(bytes(golden.stat().st_size))
        try:
            case: Case = case_from({"kernel": "kernel.pto", **binding, **(options or {})}, work,
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
            ok, detail = _script(work, "compare.py")
            result.status, result.stage = ("PASS", "") if ok else ("FAIL", "compare")
            result.detail = "" if ok else detail
        else:
            result.status, result.detail = "PASS", "ran (no compare.py)"
    result.seconds = time.perf_counter() - start
    return result
