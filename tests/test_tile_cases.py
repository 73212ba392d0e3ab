"""`ptosim case` on tile-level case folders (cases.py + gen_data.py + compare.py + one .pto),
written here in the public PTO-Gym shape: one line per cases.py entry."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptosim.cases import CaseError
from ptosim.cli import main
from ptosim.tile_cases import infer_tile_binding

SHAPES = {"f32_8x64": (8, 64), "f32_16x32": (16, 32)}


def tadd_func(name: str, rows: int, cols: int) -> str:
    t = f"!pto.tile_buf<vec, {rows}x{cols}xf32>"
    v = f"!pto.tensor_view<{rows}x{cols}xf32>"
    return f"""
  func.func @TADDX_{name}(%a: !pto.ptr<f32, gm>, %b: !pto.ptr<f32, gm>, %c: !pto.ptr<f32, gm>)
      attributes {{pto.aicore}} {{
    %c1 = arith.constant 1 : index
    %r = arith.constant {rows} : index
    %n = arith.constant {cols} : index
    %av = pto.make_tensor_view %a, shape = [%r, %n], strides = [%n, %c1] : {v}
    %bv = pto.make_tensor_view %b, shape = [%r, %n], strides = [%n, %c1] : {v}
    %cv = pto.make_tensor_view %c, shape = [%r, %n], strides = [%n, %c1] : {v}
    %x = pto.alloc_tile : {t}
    %y = pto.alloc_tile : {t}
    %z = pto.alloc_tile : {t}
    pto.tload ins(%av : {v}) outs(%x : {t})
    pto.tload ins(%bv : {v}) outs(%y : {t})
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.tsub ins(%x, %y : {t}, {t}) outs(%z : {t})
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.tstore ins(%z : {t}) outs(%cv : {v})
    return
  }}"""


KERNEL = ('module attributes {pto.target_arch = "a5", pto.kernel_kind = '
          '#pto.kernel_kind<vector>} {' + "".join(tadd_func(n, *s) for n, s in SHAPES.items())
          + "\n}\n")
CASES = "import numpy as np\nCASES = [" + ", ".join(
    f'{{"name": "{n}", "shape": {s}}}' for n, s in SHAPES.items()) + "]\n"
# the kernel computes first - second; the golden says input1 - input2, and the host passes
# input2's buffer as the kernel's first argument (so file order is not parameter order)
GEN = """import os
import numpy as np
from cases import CASES
for i, case in enumerate(CASES):
    rng = np.random.default_rng(i)
    a = rng.integers(0, 9, case["shape"]).astype(np.float32)
    b = rng.integers(0, 9, case["shape"]).astype(np.float32)
    os.makedirs(case["name"], exist_ok=True)
    a.tofile(os.path.join(case["name"], "input1.bin"))
    b.tofile(os.path.join(case["name"], "input2.bin"))
    (b - a).tofile(os.path.join(case["name"], "golden.bin"))
"""
COMPARE = """import sys
import numpy as np
from cases import CASES
ok = True
for case in CASES:
    if len(sys.argv) > 1 and case["name"] != sys.argv[1]:
        continue
    g = np.fromfile(case["name"] + "/golden.bin", np.float32)
    o = np.fromfile(case["name"] + "/output.bin", np.float32)
    if g.shape != o.shape or not np.array_equal(g, o):
        print(f"[ERROR] {case['name']}: compare failed")
        ok = False
sys.exit(0 if ok else 2)
"""
MAIN = """static const TestCase kCases[] = {
    {"f32_8x64",  LaunchTADDX_f32_8x64,  8, 64},
    {"f32_16x32", LaunchTADDX_f32_16x32, 16, 32},
};
static int RunCase(const TestCase &tc, aclrtStream stream) {
    ReadFile((caseDir + "/input1.bin").c_str(), n, aHost, n);
    ReadFile((caseDir + "/input2.bin").c_str(), n, bHost, n);
    aclrtMemcpy(aDevice, n, aHost, n, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(bDevice, n, bHost, n, ACL_MEMCPY_HOST_TO_DEVICE);
    tc.launch(static_cast<float *>(aDevice), (float *)bDevice, cDevice, stream);
    aclrtMemcpy(cHost, n, cDevice, n, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile((caseDir + "/output.bin").c_str(), cHost, n);
}
"""
LAUNCH = "".join(f"""
void LaunchTADDX_{n}(float *a, float *b, float *c, void *stream) {{
    TADDX_{n}<<<1, nullptr, stream>>>((__gm__ float *)b, (__gm__ float *)a, (__gm__ float *)c);
}}
""" for n in SHAPES)


def make_tile_case(folder: Path, host: bool = True) -> Path:
    folder.mkdir(parents=True)
    (folder / "taddx.pto").write_text(KERNEL)
    (folder / "cases.py").write_text(CASES)
    (folder / "gen_data.py").write_text(GEN)
    (folder / "compare.py").write_text(COMPARE)
    if host:
        (folder / "main.cpp").write_text(MAIN)
        (folder / "launch.cpp").write_text(LAUNCH)
    return folder


def test_binding_from_the_host_program(tmp_path):
    folder = make_tile_case(tmp_path / "taddx")
    assert infer_tile_binding(folder, "f32_16x32") == {
        "entry": "TADDX_f32_16x32", "block_dim": 1,
        "args": {"0": "input2.bin", "1": "input1.bin", "2": "output.bin"}}


def test_scalar_constant_from_launch_cpp(tmp_path):
    folder = make_tile_case(tmp_path / "t")
    (folder / "launch.cpp").write_text(LAUNCH.replace(
        "(__gm__ float *)c);", "(__gm__ float *)c, SCALE);") +
        "static constexpr float SCALE = 2.5f;\n#define BLOCKS 1\n")
    assert infer_tile_binding(folder, "f32_8x64")["args"]["3"] == 2.5


@pytest.mark.parametrize("literal, value", [
    ("(int32_t)3", 3), ("(unsigned short)0x4200", "0x4200"), ("static_cast<float>(1.5f)", 1.5),
    ("0x10u", "0x10")])
def test_scalar_literals_through_c_casts(tmp_path, literal, value):
    """Host programs pass scalars as cast literals; a hexadecimal one stays text, which
    `ptosim run` reads as an integer or as a float parameter's bit pattern."""
    folder = make_tile_case(tmp_path / "t")
    (folder / "launch.cpp").write_text(LAUNCH.replace(
        "(__gm__ float *)c);", f"(__gm__ float *)c, {literal});"))
    assert infer_tile_binding(folder, "f32_8x64")["args"]["3"] == value


def test_scalars_read_from_files_and_computed_block_counts(tmp_path):
    """The Gym softmax host reads its scalars from v8.bin / v9.bin and its launcher
    computes the block count from one of them."""
    folder = make_tile_case(tmp_path / "t")
    (folder / "main.cpp").write_text(MAIN.replace(
        "    tc.launch(static_cast<float *>(aDevice), (float *)bDevice, cDevice, stream);",
        '    ReadFile(caseDir + "/rows.bin", fileSize, &rowsHost, 4);\n'
        "    tc.launch(static_cast<float *>(aDevice), (float *)bDevice, cDevice, rowsHost, "
        "stream);"))
    (folder / "launch.cpp").write_text(LAUNCH.replace(
        "(float *a, float *b, float *c, void *stream) {",
        "(float *a, float *b, float *c, int32_t rows, void *stream) {\n"
        "    const int32_t per = 8;\n    const int32_t blocks = (rows + per - 1) / per;").replace(
        "<<<1, nullptr, stream>>>", "<<<blocks, nullptr, stream>>>").replace(
        "(__gm__ float *)c);", "(__gm__ float *)c, rows);"))
    binding = infer_tile_binding(folder, "f32_8x64")
    assert binding["args"]["3"] == {"file": "rows.bin"}
    assert binding["block_dim"] == "(${3} + 8 - 1) / 8"


def test_rows_with_lambdas_and_scalars_read_through_streams_or_pointers(tmp_path):
    """Gym host shapes: a kCases row holding a lambda (texpands), a scalar read with an
    ifstream (tlrelu), one the launcher copies out of a host pointer (tsels)."""
    folder = make_tile_case(tmp_path / "t")
    main = MAIN.replace('{"f32_8x64",  LaunchTADDX_f32_8x64,  8, 64},',
                        '{"f32_8x64", [](void *a) { wrap(a, LaunchTADDX_f32_8x64); }, 8, 64},')
    (folder / "main.cpp").write_text(main.replace(
        "    tc.launch(static_cast<float *>(aDevice), (float *)bDevice, cDevice, stream);",
        '    std::ifstream sf(caseDir + "/slope.bin", std::ios::binary);\n'
        "    sf.read(reinterpret_cast<char *>(&slope), sizeof(float));\n"
        '    ReadFile(caseDir + "/s2.bin", n2, scalarHost, n2);\n'
        "    tc.launch(static_cast<float *>(aDevice), (float *)bDevice, cDevice, slope, "
        "scalarHost, stream);"))
    (folder / "launch.cpp").write_text(LAUNCH.replace(
        "(float *a, float *b, float *c, void *stream) {",
        "(float *a, float *b, float *c, float slope, void *sp, void *stream) {\n"
        "    uint8_t s2;\n    std::memcpy(&s2, sp, 1);").replace(
        "(__gm__ float *)c);", "(__gm__ float *)c, slope, s2);"))
    binding = infer_tile_binding(folder, "f32_8x64")
    assert binding["args"]["3"] == {"file": "slope.bin"}
    assert binding["args"]["4"] == {"file": "s2.bin"}


def test_an_in_place_kernel_works_on_a_copy_named_as_the_output(tmp_path):
    """tfillpad_inplace: no Launch in the row (main.cpp calls it), one device buffer read
    from input.bin and written back to output.bin."""
    folder = make_tile_case(tmp_path / "t")
    (folder / "main.cpp").write_text("""static const TestCase kCases[] = {
    {"f32_8x64", 8, 64},
};
void LaunchTADDX_f32_8x64(float *a, float *b, float *c, void *stream);
static int RunCase(const TestCase &tc, aclrtStream stream) {
    ReadFile((caseDir + "/input.bin").c_str(), n, bufHost, n);
    aclrtMemcpy(bufDevice, n, bufHost, n, ACL_MEMCPY_HOST_TO_DEVICE);
    LaunchTADDX_f32_8x64((float *)bufDevice, (float *)bufDevice, (float *)bufDevice, stream);
    aclrtMemcpy(bufHost, n, bufDevice, n, ACL_MEMCPY_DEVICE_TO_HOST);
    WriteFile((caseDir + "/output.bin").c_str(), bufHost, n);
}
""")
    binding = infer_tile_binding(folder, "f32_8x64")
    assert binding["args"] == {"0": "output.bin", "1": "output.bin", "2": "output.bin"}
    assert binding["copies"] == {"output.bin": "input.bin"}


@pytest.mark.parametrize("edit, message", [
    (lambda m, lc: (m.replace('{"f32_8x64",', '{"other",'), lc),
     "main.cpp has no kCases row for 'f32_8x64' naming its Launch function; write "
     "ptosim-case.json"),
    (lambda m, lc: (m.replace("tc.launch(", "tc.go("), lc),
     "main.cpp has no tc.launch(...) call; write ptosim-case.json"),
    (lambda m, lc: (m, lc.replace("LaunchTADDX_f32_8x64", "LaunchOther")),
     "launch.cpp does not define LaunchTADDX_f32_8x64"),
    (lambda m, lc: (m, lc.replace("(__gm__ float *)c);", "(__gm__ float *)c, mystery);")),
     "cannot tell what kernel argument 3 (mystery) is from the host program; write "
     "ptosim-case.json"),
])
def test_binding_errors(tmp_path, edit, message):
    folder = make_tile_case(tmp_path / "t")
    m, lc = edit(MAIN, LAUNCH)
    (folder / "main.cpp").write_text(m)
    (folder / "launch.cpp").write_text(lc)
    with pytest.raises(CaseError) as err:
        infer_tile_binding(folder, "f32_8x64")
    assert err.value.detail == message


def test_one_line_per_sub_case_through_the_cli(tmp_path):
    root = tmp_path / "ops"
    make_tile_case(root / "taddx")
    before = sorted(p.name for p in (root / "taddx").iterdir())
    done = subprocess.run([sys.executable, "-m", "ptosim", "case", str(root)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["PASS  taddx/f32_8x64", "PASS  taddx/f32_16x32"]
    assert lines[2].startswith("2 case(s): 2 PASS in ")
    assert sorted(p.name for p in (root / "taddx").iterdir()) == before   # left as it was


def test_explicit_binding_and_a_failing_sub_case(tmp_path, capsys):
    folder = make_tile_case(tmp_path / "taddx", host=False)
    # the wrong order: the kernel computes input1 - input2, the golden the reverse
    (folder / "ptosim-case.json").write_text(json.dumps(
        {"entry": "TADDX_{name}", "args": {"a": "input1.bin", "b": "input2.bin",
                                          "c": "output.bin"}}))
    keep = tmp_path / "keep"
    assert main(["case", str(folder), "--keep", str(keep), "--show-binding"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "FAIL  taddx/f32_8x64 (compare): [ERROR] f32_8x64: compare failed"
    assert json.loads(out[1].split("binding: ")[1])["entry"] == "TADDX_f32_8x64"
    assert out[2] == "FAIL  taddx/f32_16x32 (compare): [ERROR] f32_16x32: compare failed"
    assert (keep / "taddx" / "f32_16x32" / "output.bin").stat().st_size == 16 * 32 * 4


def test_no_binding_is_one_error_line_per_sub_case(tmp_path, capsys):
    folder = make_tile_case(tmp_path / "taddx", host=False)
    assert main(["case", str(folder)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("ERROR taddx/f32_8x64 (binding): no ptosim-case.json and no main.cpp + "
                      "launch.cpp to infer the binding from")


def test_a_failing_gen_data_is_one_error(tmp_path, capsys):
    folder = make_tile_case(tmp_path / "taddx")
    (folder / "gen_data.py").write_text("raise SystemExit('no data today')\n")
    assert main(["case", str(folder)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "ERROR taddx (golden): no data today"


def test_rows_padded_by_the_host_are_padded_and_unpadded_around_the_run(tmp_path):
    """tpartmax/tpartmin hosts pad each row to 32 bytes before the copy to the device
    (PadDataWithStride) and unpad the result: the binding says so, _relayout does it."""
    from ptosim.tile_cases import _relayout
    folder = make_tile_case(tmp_path / "t")
    (folder / "main.cpp").write_text("""struct TestCase {
    const char *name;
    LaunchFn    launch;
    size_t      rows;
    size_t      cols;
    size_t      elemSize;
};
static const TestCase kCases[] = {
    {"f32_8x64", (LaunchFn)LaunchTADDX_f32_8x64, 3, 5, sizeof(float)},
};
static size_t CalcAlignedCols(size_t cols, size_t elemSize) {
    return ((cols * elemSize + 31) / 32) * 32 / elemSize;
}
static int RunCase(const TestCase &tc, aclrtStream stream) {
    const size_t alignedCols = CalcAlignedCols(tc.cols, tc.elemSize);
    ReadFile((caseDir + "/input1.bin").c_str(), n, aOrig, n);
    ReadFile((caseDir + "/input2.bin").c_str(), n, bOrig, n);
    PadDataWithStride(aOrig, aHost, tc.rows, tc.cols, alignedCols, tc.elemSize);
    PadDataWithStride(bOrig, bHost, tc.rows, tc.cols, alignedCols, tc.elemSize);
    aclrtMemcpy(aDevice, n, aHost, n, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(bDevice, n, bHost, n, ACL_MEMCPY_HOST_TO_DEVICE);
    tc.launch(aDevice, bDevice, cDevice, stream);
    aclrtMemcpy(cHost, n, cDevice, n, ACL_MEMCPY_DEVICE_TO_HOST);
    UnpadDataWithStride(cHost, cOrig, tc.rows, tc.cols, alignedCols, tc.elemSize);
    WriteFile((caseDir + "/output.bin").c_str(), cOrig, n);
}
""")
    binding = infer_tile_binding(folder, "f32_8x64")
    shape = {"rows": 3, "cols": 5, "stride": 8, "elem": 4}
    assert binding["rows"] == {"aDevice.rows.bin": {"pad": "input1.bin", **shape},
                               "bDevice.rows.bin": {"pad": "input2.bin", **shape},
                               "output.bin": {"unpad": "cDevice.rows.bin", **shape}}
    dense = np.arange(15, dtype=np.float32)
    dense.tofile(tmp_path / "d.bin")
    _relayout(tmp_path / "d.bin", tmp_path / "p.bin", shape, pad=True)
    padded = np.fromfile(tmp_path / "p.bin", np.float32).reshape(3, 8)
    np.testing.assert_array_equal(padded[:, :5], dense.reshape(3, 5))
    assert not padded[:, 5:].any()
    _relayout(tmp_path / "p.bin", tmp_path / "u.bin", shape, pad=False)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "u.bin", np.float32), dense)


def test_outputs_start_at_the_host_allocation_size(tmp_path):
    """trowargmax hosts allocate rows x dstCols indices and copy the whole allocation back,
    the kernel writes one column: the output file starts at the allocation's size (the
    TestCase struct may hold a union of launch pointers: one initializer)."""
    folder = make_tile_case(tmp_path / "t")
    (folder / "main.cpp").write_text(MAIN.replace("static const TestCase kCases[] = {", """struct TestCase {
    const char *name;
    union {
        LaunchA launchA;
        LaunchB launchB;
    };
    size_t      rows;
    size_t      cols;
    size_t      dstCols;   // the index tile's row length
};
static const TestCase kCases[] = {""").replace(
        '{"f32_8x64",  LaunchTADDX_f32_8x64,  8, 64},',
        '{"f32_8x64", .launchA = LaunchTADDX_f32_8x64, 8, 64, 16},').replace(
        "static int RunCase(const TestCase &tc, aclrtStream stream) {",
        "static int RunCase(const TestCase &tc, aclrtStream stream) {\\n"
        "    const size_t dstCount = tc.rows * tc.dstCols;\\n"
        "    const size_t dstBytes = dstCount * sizeof(uint32_t);\\n"
        "    aclrtMalloc(&cDevice, dstBytes, ACL_MEM_MALLOC_HUGE_FIRST);"))
    binding = infer_tile_binding(folder, "f32_8x64")
    assert binding["sizes"] == {"output.bin": 8 * 16 * 4}
