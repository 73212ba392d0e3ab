"""Run tile-level case folders in the public PTO-Gym layout::

    <op>/<op>.pto  cases.py  gen_data.py  compare.py  main.cpp  launch.cpp

``cases.py`` lists the sub-cases (``CASES``, each with a ``name``); ``gen_data.py`` writes
each sub-case's inputs and ``golden.bin`` into ``<name>/``; ``compare.py [NAME]`` compares
``<name>/output.bin`` with the golden. ptosim copies the folder to a scratch folder, runs
``gen_data.py`` once, then per sub-case runs the kernel function that sub-case launches and
``compare.py NAME``: one line per sub-case.

The binding comes from ``ptosim-case.json`` when the folder has one — a template applied
to every sub-case, ``{name}`` standing for the sub-case's name and file names relative to
its folder::

    {"entry": "TADD_{name}", "args": {"0": "input1.bin", "1": "input2.bin", "2": "output.bin"}}

otherwise it is read from the host program: the ``kCases`` row naming the sub-case gives
its launch wrapper, ``tc.launch(...)`` the device buffers passed, ``ReadFile`` /
``WriteFile`` + ``aclrtMemcpy`` which file each buffer holds, and ``launch.cpp`` the kernel
the wrapper calls, its argument order and the constants it passes. A device buffer no file
feeds (an output or a scratch buffer) is bound to a new file ``<name>/<buffer>.bin`` (the
output keeps the name ``WriteFile`` gives it); an output the kernel leaves shorter than the
sub-case's ``golden.bin`` is zero-extended to that size, as the host copies back the whole
device allocation.
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .batch import case_from, run_case
from .cases import (
    BINDING,
    SCRIPT_TIMEOUT,
    CaseError,
    CaseResult,
    c_int_expr,
    scalars_from_files,
)
from .errors import PtoError

_FILE = re.compile(r'"(?:\./|/)?([\w.-]+\.bin)"')
_HEX = re.compile(r"0[xX][0-9a-fA-F]+[uUlL]*")
_LEADING_CAST = re.compile(r"\(\s*[A-Za-z_][\w\s:]*\)\s*(.+)", re.S)
_CXX_CAST = re.compile(r"\w+_cast\s*<[^<>]*>\s*\((.*)\)", re.S)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[fFuUlL]*")


def is_tile_folder(p: Path) -> bool:
    """A tile case folder: cases.py, gen_data.py and one .pto kernel."""
    return ((p / "cases.py").is_file() and (p / "gen_data.py").is_file()
            and len(list(p.glob("*.pto"))) == 1)


def tile_folders(paths: list[Path]) -> list[Path]:
    """The tile case folders among ``paths`` and below them (any depth)."""
    found: list[Path] = []
    for p in paths:
        if is_tile_folder(p):
            found.append(p)
        elif p.is_dir():
            found += sorted(c.parent for c in p.rglob("cases.py") if is_tile_folder(c.parent))
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise CaseError(f"cannot read {path}: {err.strerror}") from None


def _ident(expr: str) -> str:
    """The buffer a C++ argument expression names: the last identifier after casts
    (``static_cast<float *>(dev)``, ``(float *)dev``), or the literal itself."""
    expr = expr.strip()
    while (cast := _LEADING_CAST.fullmatch(expr) or _CXX_CAST.fullmatch(expr)) is not None \
            and (_NUMBER.fullmatch(cast[1].strip()) or _HEX.fullmatch(cast[1].strip())):
        expr = cast[1].strip()      # (int32_t)3, (unsigned short)0x4200, static_cast<T>(2)
    if _NUMBER.fullmatch(expr) or _HEX.fullmatch(expr):
        return expr
    names = re.findall(r"[A-Za-z_]\w*", re.sub(r"<[^<>]*>", "", expr))
    return names[-1] if names else expr


def _number(text: str) -> int | float | str | None:
    """A C literal's value; a hexadecimal one stays text (``0x4200``), which ``ptosim
    run`` reads as an integer or, for a float parameter, as the float's bit pattern."""
    if _HEX.fullmatch(text.strip()):
        return text.strip().rstrip("uUlL")
    if not _NUMBER.fullmatch(text.strip()):
        return None
    t = text.strip().rstrip("fFuUlL")
    return float(t) if any(c in t for c in ".eE") else int(t)


def _constants(*sources: str) -> dict[str, int | float | str]:
    """Named numeric constants: ``[static] [constexpr|const] T NAME = 5.0f;`` and
    ``#define NAME 5``."""
    found: dict[str, int | float | str] = {}
    for text in sources:
        for m in re.finditer(r"\b(?:const|constexpr)\s+[\w:]+\s+(\w+)\s*=\s*([^;]+);", text):
            value = _number(m[2])
            if value is not None:
                found.setdefault(m[1], value)
        for m in re.finditer(r"^\s*#define\s+(\w+)\s+(\S+)\s*$", text, re.M):
            value = _number(m[2])
            if value is not None:
                found.setdefault(m[1], value)
    return found


def _split_args(text: str) -> list[str]:
    """Top-level comma split (casts may hold parentheses and angle brackets)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [a.strip() for a in out]


_SIZEOF = {"float": 4, "half": 2, "aclFloat16": 2, "bfloat16_t": 2, "double": 8,
           "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4,
           "uint32_t": 4, "int64_t": 8, "uint64_t": 8}


def _braced(text: str, head: str) -> str | None:
    """The body of the block that opens with the regex ``head`` (ending in ``{``), nested
    braces included; None if there is none."""
    start = re.search(head, text)
    if start is None:
        return None
    depth, i = 1, start.end()
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start.end():i - 1]


def _case_fields(main: str, case: str) -> dict[str, int]:
    """The kCases row of ``case`` as {TestCase field: integer value} (sizeof(T) counted)."""
    struct = _braced(main, r"struct\s+TestCase\s*\{")
    row = re.search(r'\{\s*("' + re.escape(case) + r'"\s*,.*?)\}\s*,?\s*(?=\{\s*"|\};)',
                    main, re.S)
    if struct is None or row is None:
        raise CaseError(f"main.cpp has no TestCase struct or kCases row for {case!r}; write "
                        f"{BINDING}")
    body = re.sub(r"union\s*\{[^{}]*\}", "union_member", re.sub(r"//[^\n]*", "", struct))
    fields = [re.split(r"[\s*&]+", d.strip())[-1] for d in body.split(";") if d.strip()]
    out: dict[str, int] = {}
    for name, text in zip(fields, _split_args(row[1])):
        size = re.fullmatch(r"sizeof\(\s*(\w+)\s*\)", text.strip())
        if size is not None and size[1] in _SIZEOF:
            out[name] = _SIZEOF[size[1]]
        elif re.fullmatch(r"\d+", text.strip()):
            out[name] = int(text)
    return out


def _row_padding(main: str, case: str) -> dict[str, int]:
    """rows, cols, the padded row length and the element size of a host program that pads
    each row to a whole number of 32-byte blocks (CalcAlignedCols(tc.cols, tc.elemSize))."""
    fields = _case_fields(main, case)
    if not re.search(r"CalcAlignedCols\s*\(\s*tc\.cols\s*,\s*tc\.elemSize\s*\)", main) or \
            not re.search(r"\+\s*31\s*\)\s*/\s*32\s*\)\s*\*\s*32", main) or \
            not {"rows", "cols", "elemSize"} <= set(fields):
        raise CaseError(f"main.cpp pads rows in a way ptosim does not read; write {BINDING}")
    rows, cols, es = fields["rows"], fields["cols"], fields["elemSize"]
    return {"rows": rows, "cols": cols, "stride": -(-cols * es // 32) * 32 // es, "elem": es}


def _host_bytes(main: str, case: str, expr: str, depth: int = 0) -> int | None:
    """The value of a host size expression (``dstFileSize``, ``tc.rows * tc.dstCols * 4``)
    from the kCases row, sizeof and the local constants it is built from; None if unknown."""
    try:
        fields = _case_fields(main, case)
    except CaseError:
        return None

    def term(m: re.Match[str]) -> str:
        word = m[0]
        if word.startswith("tc."):
            if word[3:] not in fields:
                raise KeyError(word)
            return str(fields[word[3:]])
        size = re.fullmatch(r"sizeof\(\s*(\w+)\s*\)", word)
        if size is not None:
            return str(_SIZEOF[size[1]])
        local = re.search(r"\b(?:const\s+)?(?:size_t|int|int32_t|int64_t|uint32_t|auto)\s+"
                          + re.escape(word) + r"\s*=\s*([^;]+);", main)
        if local is None or depth > 8:
            raise KeyError(word)
        value = _host_bytes(main, case, local[1], depth + 1)
        if value is None:
            raise KeyError(word)
        return str(value)
    try:
        text = re.sub(r"sizeof\(\s*\w+\s*\)|\btc\.\w+|\b[A-Za-z_]\w*\b", term, expr)
        return c_int_expr(text, {})
    except (KeyError, CaseError):
        return None


def _relayout(src: Path, dst: Path, spec: dict[str, int], pad: bool) -> None:
    """Rows of ``cols`` elements <-> rows ``stride`` elements apart (zeros between)."""
    import numpy as np
    rows, cols, stride, es = spec["rows"], spec["cols"], spec["stride"], spec["elem"]
    raw = np.fromfile(src, np.uint8)
    if pad:
        dense = np.zeros(rows * cols * es, np.uint8)
        dense[:min(raw.size, dense.size)] = raw[:dense.size]
        out = np.zeros((rows, stride * es), np.uint8)
        out[:, :cols * es] = dense.reshape(rows, cols * es)
    else:
        wide = np.zeros(rows * stride * es, np.uint8)
        wide[:min(raw.size, wide.size)] = raw[:wide.size]
        out = wide.reshape(rows, stride * es)[:, :cols * es]
    out.tofile(dst)


def _in_bin_statements(pattern: str, text: str) -> Iterator[re.Match[str]]:
    """``re.finditer(pattern, text)`` for a pattern whose matches never contain ';' and
    always a ".bin" file name, searched statement by statement: the same matches, without
    a lazy scan from every call in a large main.cpp (hundreds of cases: seconds each)."""
    for statement in text.split(";"):
        if '.bin"' in statement:
            yield from re.finditer(pattern, statement)


def infer_tile_binding(folder: Path, case: str) -> dict[str, Any]:
    """The binding of sub-case ``case`` implied by the host program (see module doc)."""
    main_cpp, launch_cpp = folder / "main.cpp", folder / "launch.cpp"
    if not main_cpp.is_file() or not launch_cpp.is_file():
        raise CaseError(f"no {BINDING} and no main.cpp + launch.cpp to infer the binding from")
    main, launch = _read(main_cpp), _read(launch_cpp)
    # the row: from `{"case",` to the next row (a row may hold a lambda with braces)
    row = re.search(r'\{\s*"' + re.escape(case) + r'"\s*,(.*?)(?=\{\s*"|\};)', main, re.S)
    # the row's Launch wrapper (a cast such as (LaunchFn) may name a type first)
    names = re.findall(r"\b(Launch\w+)", row[1]) if row is not None else []
    fn = next((n for n in names if re.search(r"\b" + n + r"\s*\([^)]*\)\s*\{", launch)),
              names[0] if names else None)
    direct = None
    if fn is None:          # a row without one: main.cpp calls Launch..._<case>(...) itself
        calls = list(re.finditer(r"\b(Launch\w*_" + re.escape(case) + r")\s*\(([^;]*)\)\s*;",
                                 main))
        named = calls[-1] if calls else None      # the call, after its declaration
        if named is not None:
            fn, direct = named[1], named
    if fn is None:
        raise CaseError(f"main.cpp has no kCases row for {case!r} naming its Launch function; "
                        f"write {BINDING}")
    call = direct or re.search(r"(?:\.|\b)launch\w*\s*\(([^;]*)\)\s*;", main)
    if call is None:
        raise CaseError(f"main.cpp has no tc.launch(...) call; write {BINDING}")
    actual = [_ident(a) for a in _split_args(call[2] if call is direct else call[1])]
    to_device = {m[2]: m[1] for m in re.finditer(
        r"aclrtMemcpy\(\s*(\w+)\s*,[^,]+,\s*(\w+)\s*,[^;]*HOST_TO_DEVICE", main)}
    from_device = {m[1]: m[2] for m in re.finditer(
        r"aclrtMemcpy\(\s*(\w+)\s*,[^,]+,\s*(\w+)\s*,[^;]*DEVICE_TO_HOST", main)}
    file_of_device: dict[str, str] = {}
    copies: dict[str, str] = {}                 # output file -> the input it starts as
    # PadDataWithStride(orig, padded, ...) / UnpadDataWithStride(padded, orig, ...):
    # orig -> (padded, whether orig is an input)
    rows_of: dict[str, tuple[str, bool]] = {}
    for m in re.finditer(r"\b(Pad|Unpad)DataWithStride\(\s*(\w+)\s*,\s*(\w+)\s*,", main):
        if m[1] == "Pad":
            rows_of[m[2]] = (m[3], True)
        else:
            rows_of[m[3]] = (m[2], False)
    transforms: dict[str, dict[str, Any]] = {}  # file -> how it is made from another
    hits = list(_FILE.finditer(main))
    for k, m in enumerate(hits):
        # the host buffer named after the file name, before the statement or next file ends
        end = min(main.find(";", m.end()) % (len(main) + 1),
                  hits[k + 1].start() if k + 1 < len(hits) else len(main))
        names = re.findall(r"\b\w+\b", main[m.end():end])
        host = next((n for n in names if n in to_device or n in from_device), None)
        staged = next((n for n in names if n in rows_of), None)
        if host is None and staged is not None:
            # a host buffer re-laid out with its rows padded to 32 bytes before the copy to
            # the device (PadDataWithStride), or after the copy back (UnpadDataWithStride)
            padded, is_input = rows_of[staged]
            device = to_device.get(padded) if is_input else from_device.get(padded)
            if device is not None:
                staged_file = f"{device}.rows.bin"
                file_of_device.setdefault(device, staged_file)
                transforms[m[1] if not is_input else staged_file] = {
                    "pad" if is_input else "unpad": staged_file if not is_input else m[1],
                    **_row_padding(main, case)}
            continue
        if host is not None:
            device = to_device.get(host) or from_device[host]
            before = main[max(0, m.start() - 80):m.start()].rsplit(";", 1)[-1]
            called = re.findall(r"(\w+)\s*\(", before)      # the call the file name is in
            if called and called[-1].lower().startswith("write") and \
                    device in file_of_device and file_of_device[device] != m[1]:
                # read from one file and written back to another (an in-place kernel):
                # the run works on a copy of the input under the output's name
                copies[m[1]] = file_of_device[device]
                file_of_device[device] = m[1]
            file_of_device.setdefault(device, m[1])
    # a host scalar read from a file: ReadFile(caseDir + "/v8.bin", size, &seqHost, size)
    scalar_file = {m[2]: m[1] for m in _in_bin_statements(
        r'\w+\([^;]*?"/?([\w.-]+\.bin)"\s*,[^,;]*,\s*&\s*(\w+)\s*,', main)}
    # ... or through a stream: std::ifstream f(caseDir + "/slope.bin"); f.read(..(&slope), 4)
    for m in re.finditer(r'ifstream\s+(\w+)\s*\([^;]*?"/?([\w.-]+\.bin)"', main):
        read = re.search(re.escape(m[1]) + r"\.read\([^;]*?&\s*(\w+)", main[m.end():])
        if read is not None:
            scalar_file.setdefault(read[1], m[2])
    body = re.search(re.escape(fn) + r"\s*\(([^)]*)\)\s*\{(.*?)\n\}", launch, re.S)
    if body is None:
        raise CaseError(f"launch.cpp does not define {fn}")
    formal = [re.split(r"[\s*&]+", p.strip())[-1] for p in body[1].split(",") if p.strip()]
    kernel = re.search(r"(\w+)\s*<<<\s*([^,>]+)\s*,.*?>>>\s*\((.*?)\)\s*;", body[2], re.S)
    if kernel is None:
        raise CaseError(f"{fn} in launch.cpp has no kernel<<<...>>>(...) launch")
    passed = dict(zip(formal, actual))
    consts = _constants(launch, main)
    args: dict[str, Any] = {}
    # a scalar the launcher copies out of a host pointer: memcpy(&scalar, scalar_ptr, n),
    # the pointer being a host buffer main.cpp read from a file
    deref = {m[1]: m[2] for m in re.finditer(r"memcpy\(\s*&\s*(\w+)\s*,\s*(\w+)\s*,",
                                                body[2])}
    host_file = {m[2]: m[1] for m in _in_bin_statements(
        r'\w+\([^;]*?"/?([\w.-]+\.bin)"[^;]*?,[^,;]*,\s*(\w+)\s*,', main)}
    args_by_device: dict[str, str] = {}
    for i, text in enumerate(_split_args(kernel[3])):
        name = _ident(text)
        value = passed.get(name, name)
        if value in file_of_device and isinstance(file_of_device[value], str):
            args_by_device[value] = file_of_device[value]
        if name in deref and passed.get(deref[name]) in host_file:
            args[str(i)] = {"file": host_file[passed[deref[name]]]}
            continue
        if value in file_of_device:
            args[str(i)] = file_of_device[value]
        elif value in scalar_file:
            args[str(i)] = {"file": scalar_file[value]}
        elif value in from_device.values() or value in to_device.values() or \
                value.endswith("Device"):
            args[str(i)] = f"{value}.bin"          # an output or scratch buffer: a new file
        elif _number(value) is not None:
            args[str(i)] = _number(value)
        elif value in consts:
            args[str(i)] = consts[value]
        else:
            raise CaseError(f"cannot tell what kernel argument {i} ({name}) is from the host "
                            f"program; write {BINDING}")
    binding: dict[str, Any] = {"entry": kernel[1], "args": args}
    if copies:
        binding["copies"] = copies
    # outputs the host allocates larger than the kernel writes (it copies the whole
    # allocation back): the output file starts at the allocation's size, zero-filled
    sizes: dict[str, int] = {}
    for m in re.finditer(r"aclrtMalloc\(\s*(?:\([^)]*\))?\s*&\s*(\w+)\s*,\s*([^,]+),", main):
        f = args_by_device.get(m[1])
        if f is not None and m[1] in from_device.values() and f not in copies:
            nbytes = _host_bytes(main, case, m[2].strip())
            if nbytes is not None:
                sizes[f] = nbytes
    if sizes:
        binding["sizes"] = sizes
    if transforms:
        binding["rows"] = transforms
    blocks = passed.get(kernel[2].strip(), kernel[2].strip())
    local = re.search(r"\b" + re.escape(blocks) + r"\s*=\s*([^;]+);", body[2])
    if isinstance(_number(blocks), int):
        binding["block_dim"] = _number(blocks)
    elif isinstance(consts.get(blocks), int):
        binding["block_dim"] = consts[blocks]
    elif local is not None:     # computed in the launcher: (v9 + blockRows - 1) / blockRows
        position = {_ident(t): i for i, t in enumerate(_split_args(kernel[3]))}
        local_consts = {**consts, **_constants(body[2])}

        def term(m: re.Match[str]) -> str:
            if m[0] in position:
                return "${" + str(position[m[0]]) + "}"
            if isinstance(local_consts.get(m[0]), int):
                return str(local_consts[m[0]])
            raise CaseError(f"cannot tell what {m[0]} in the block count {local[1].strip()!r} "
                            f"is; write {BINDING}")
        binding["block_dim"] = re.sub(r"\b[A-Za-z_]\w*\b", term,
                                      re.sub(r"\b\w+_t\b|\bint\b|static_cast<[^>]*>", "",
                                             local[1])).strip()
    return binding


def _template(obj: Any, case: str) -> Any:
    """Substitute ``{name}`` in every string of a binding template."""
    if isinstance(obj, str):
        return obj.replace("{name}", case)
    if isinstance(obj, dict):
        return {k: _template(v, case) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_template(v, case) for v in obj]
    return obj


def _script(work: Path, argv: list[str], origin: Path) -> tuple[bool, str]:
    """Run a case script in the scratch folder with the case's and its family's folders on
    the import path (the scripts import cases.py and the family's st_common.py)."""
    env = dict(os.environ)
    paths = [str(work), str(origin), str(origin.parent), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    try:
        done = subprocess.run([sys.executable, *argv], cwd=work, capture_output=True,
                              text=True, timeout=SCRIPT_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return False, f"{argv[0]} ran longer than {SCRIPT_TIMEOUT} s"
    text = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, (text[-1] if text else f"exit {done.returncode}")


def _case_names(work: Path, origin: Path) -> list[str]:
    ok, out = _script(work, ["-c", "import json, cases; print(json.dumps("
                                   "[c['name'] for c in cases.CASES]))"], origin)
    if not ok:
        raise CaseError(f"cases.py: {out}")
    names = json.loads(out)
    if not names:
        raise CaseError("cases.py lists no CASES")
    return [str(n) for n in names]


def run_tile_folder(folder: Path, name: str, options: dict[str, Any] | None = None,
                    keep: Path | None = None) -> list[CaseResult]:
    """Run every sub-case of one tile case folder (see module doc); one result each."""
    origin = folder.resolve()
    template: dict[str, Any] | None = None
    if (folder / BINDING).is_file():
        try:
            template = json.loads(_read(folder / BINDING))
        except json.JSONDecodeError as err:
            return [CaseResult(name, "ERROR", "binding", f"{BINDING}: not JSON: {err.msg}")]
        if not isinstance(template, dict):
            return [CaseResult(name, "ERROR", "binding", f"{BINDING}: a binding is a JSON "
                                                         "object")]
    kernel = next(folder.glob("*.pto")).name
    results: list[CaseResult] = []
    with tempfile.TemporaryDirectory(prefix="ptosim-tcase-") as tmp:
        work = keep / name.replace("/", "_") if keep is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for f in folder.iterdir():
            if f.is_file() and f.name != BINDING:
                shutil.copy2(f, work / f.name)
        try:
            cases = _case_names(work, origin)
        except CaseError as err:
            return [CaseResult(name, "ERROR", "cases", err.detail)]
        ok, detail = _script(work, ["gen_data.py"], origin)
        if not ok:
            return [CaseResult(name, "ERROR", "golden", detail)]
        for case in cases:
            results.append(_run_case(work, origin, kernel, f"{name}/{case}", case, template,
                                     options or {}))
    return results


def _run_case(work: Path, origin: Path, kernel: str, label: str, case: str,
              template: dict[str, Any] | None, options: dict[str, Any]) -> CaseResult:
    start = time.perf_counter()
    result = CaseResult(label, "ERROR")
    try:
        binding = _template(template, case) if template is not None else \
            infer_tile_binding(origin, case)
    except CaseError as err:
        result.stage, result.detail = "binding", err.detail
        return result
    sub = work / case
    args = {k: (f"{case}/{v}" if isinstance(v, str) and v.endswith(".bin") else
                {"file": f"{case}/{v['file']}"} if isinstance(v, dict) and "file" in v else v)
            for k, v in binding.get("args", {}).items()}
    result.binding = {**binding, "args": args}
    try:
        run_keys = {k: v for k, v in binding.items() if k not in ("copies", "rows", "sizes")}
        resolved = scalars_from_files({"kernel": kernel, **run_keys, "args": args}, work)
        run = case_from({**resolved, **options}, work,
                        f"{label} ({BINDING if template is not None else 'main.cpp'})", label)
    except PtoError as err:
        result.stage, result.detail = "binding", err.detail
        return result
    for out, spec in binding.get("rows", {}).items():
        if "pad" in spec:
            try:
                _relayout(sub / spec["pad"], sub / out, spec, pad=True)
            except (OSError, ValueError) as err:
                result.stage, result.detail = "binding", f"cannot pad {spec['pad']}: {err}"
                return result
    for name, nbytes in binding.get("sizes", {}).items():
        if not (sub / name).exists():
            (sub / name).write_bytes(bytes(nbytes))
    for out, src in binding.get("copies", {}).items():
        try:
            shutil.copyfile(sub / src, sub / out)
        except OSError as err:
            result.stage, result.detail = "binding", f"cannot copy {src} to {out}: {err}"
            return result
    fresh = [v for v in args.values() if isinstance(v, str) and not (work / v).exists()]
    outcome = run_case(run)
    if not outcome.ok:
        lines = (outcome.stderr or outcome.stdout).strip().splitlines()
        result.stage = "run"
        result.detail = next((t for t in lines if ": error: " in t or t.startswith("ptosim:")),
                             lines[-1] if lines else f"exit {outcome.code}")
        return result
    for out, spec in binding.get("rows", {}).items():
        if "unpad" in spec:
            _relayout(sub / spec["unpad"], sub / out, spec, pad=False)
    golden = sub / "golden.bin"
    for value in fresh:                   # the host copies back the whole allocation
        out = work / value
        if golden.is_file() and out.is_file() and out.stat().st_size < golden.stat().st_size:
            with out.open("ab") as fh:
                fh.write(bytes(golden.stat().st_size - out.stat().st_size))
    if (work / "compare.py").is_file():
        ok, detail = _script(work, ["compare.py", case], origin)
        result.status, result.stage = ("PASS", "") if ok else ("FAIL", "compare")
        result.detail = "" if ok else detail
    else:
        result.status, result.detail = "PASS", "ran (no compare.py)"
    result.seconds = time.perf_counter() - start
    return result
