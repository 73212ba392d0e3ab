"""`ptosim case`: case folders in the PTO-Gym layout run as one command per folder."""

import json
from pathlib import Path

import pytest

from ptosim.cases import CaseError, infer_binding
from ptosim.cli import main

KERNEL = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @copy(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 256 : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %src, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %dst, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"""
GOLDEN = """import numpy as np
x = np.arange(64, dtype=np.float32) * {scale}
x.tofile("v1.bin")
(np.arange(64, dtype=np.float32)).tofile("golden_v2.bin")
"""
COMPARE = """import sys
import numpy as np
ok = np.array_equal(np.fromfile("v2.bin", np.float32), np.fromfile("golden_v2.bin", np.float32))
print("[INFO] compare passed" if ok else "[ERROR] compare failed")
sys.exit(0 if ok else 2)
"""
# A host program in the shape PTO-Gym's cases use (written here, not copied): the launch
# passes the input buffer second, so the binding must follow the launch, not file order.
MAIN = """int main() {
  ReadFile("./v1.bin", fileSize_v1, v1Host, fileSize_v1);
  ReadFile("./v2.bin", fileSize_v2, v2Host, fileSize_v2);
  ACL_CHECK(aclrtMemcpy(v1Device, fileSize_v1, v1Host, fileSize_v1,
                        ACL_MEMCPY_HOST_TO_DEVICE));
  ACL_CHECK(aclrtMemcpy(v2Device, fileSize_v2, v2Host, fileSize_v2,
                        ACL_MEMCPY_HOST_TO_DEVICE));
  LaunchCopy(v2Device, v1Device, stream);
  ACL_CHECK(aclrtMemcpy(v2Host, fileSize_v2, v2Device, fileSize_v2,
                        ACL_MEMCPY_DEVICE_TO_HOST));
  WriteFile("./v2.bin", v2Host, fileSize_v2);
}
"""
LAUNCH = """void LaunchCopy(float *out, float *in, void *stream) {
    copy<<<1, nullptr, stream>>>((__gm__ float *)in, (__gm__ float *)out);
}
"""


def make_case(folder: Path, scale: int = 1, host: bool = True) -> Path:
    folder.mkdir(parents=True)
    (folder / "kernel.pto").write_text(KERNEL)
    (folder / "golden.py").write_text(GOLDEN.format(scale=scale))
    (folder / "compare.py").write_text(COMPARE)
    if host:
        (folder / "main.cpp").write_text(MAIN)
        (folder / "launch.cpp").write_text(LAUNCH)
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("main_cpp, launch_cpp, message", [
    (None, None, "no ptosim-case.json and no main.cpp + launch.cpp to infer the binding from"),
    (MAIN.replace("LaunchCopy(v2Device, v1Device, stream);", ""), LAUNCH,
     "main.cpp has no Launch...(...) call to infer the binding from"),
    (MAIN, LAUNCH.replace("LaunchCopy", "LaunchOther"), "launch.cpp does not define LaunchCopy"),
    (MAIN, LAUNCH.replace("(__gm__ float *)in,", "(__gm__ float *)mystery,"),
     "cannot tell what kernel argument 0 (mystery) is from the host program; write "
     "ptosim-case.json"),
])
def test_binding_inference_refusals(tmp_path, main_cpp, launch_cpp, message):
    if main_cpp is not None:
        (tmp_path / "main.cpp").write_text(main_cpp)
        (tmp_path / "launch.cpp").write_text(launch_cpp)
    with pytest.raises(CaseError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.").replace("+", r"\+")):
        infer_binding(tmp_path)


def test_inferred_binding(tmp_path):
    folder = make_case(tmp_path / "c")
    assert infer_binding(folder) == {"entry": "copy", "args": {"0": "v1.bin", "1": "v2.bin"},
                                     "block_dim": 1}


@pytest.mark.parametrize("call", ["LaunchCopy(reinterpret_cast<float *>(v2Device), "
                                  "static_cast<float *>( v1Device ), stream);",
                                  "LaunchCopy((float *)v2Device, (float*) v1Device, stream);"])
def test_inferred_binding_through_casts_at_the_call(tmp_path, call):
    """A host program may cast the device buffers it passes (PTO-Gym's vcmp-i16 cases
    hand short buffers to a float * parameter): the buffer is what binds."""
    folder = make_case(tmp_path / "c")
    (folder / "main.cpp").write_text(MAIN.replace("LaunchCopy(v2Device, v1Device, stream);",
                                                  call))
    assert infer_binding(folder)["args"] == {"0": "v1.bin", "1": "v2.bin"}


def test_inferred_binding_of_two_launches_with_constants(tmp_path):
    """Each Launch is a run (in order, on the same files); named constants resolve."""
    main_cpp = MAIN.replace("  LaunchCopy(v2Device, v1Device, stream);\n",
                            "  const int64_t nBlocks = 2;\n"
                            "  LaunchCopy(v2Device, v1Device, stream);\n"
                            "  LaunchTwice(v1Device, nBlocks, stream);\n")
    launch_cpp = LAUNCH + """void LaunchTwice(float *x, int64_t n, void *stream) {
    twice<<<n, nullptr, stream>>>((__gm__ float *)x, n);
}
"""
    (tmp_path / "main.cpp").write_text(main_cpp)
    (tmp_path / "launch.cpp").write_text(launch_cpp)
    assert infer_binding(tmp_path) == {"runs": [
        {"entry": "copy", "args": {"0": "v1.bin", "1": "v2.bin"}, "block_dim": 1},
        {"entry": "twice", "args": {"0": "v1.bin", "1": 2}, "block_dim": 2}]}


def test_a_folder_of_cases_one_line_each(tmp_path, capsys):
    make_case(tmp_path / "fam" / "good")
    make_case(tmp_path / "fam" / "wrong", scale=2)        # its golden disagrees
    bound = make_case(tmp_path / "fam" / "bound", host=False)
    (bound / "ptosim-case.json").write_text(json.dumps({"args": {"src": "v1.bin",
                                                                 "dst": "v2.bin"}}))
    make_case(tmp_path / "fam" / "unbound", host=False)
    before = snapshot(tmp_path)
    assert main(["case", str(tmp_path / "fam"), "--show-binding"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "PASS  bound"
    assert out[1] == '      binding: {"args": {"src": "v1.bin", "dst": "v2.bin"}}'
    assert out[2] == "PASS  good"
    assert out[4] == ("ERROR unbound (binding): no ptosim-case.json and no main.cpp + "
                      "launch.cpp to infer the binding from")
    assert out[6] == "FAIL  wrong (compare): [ERROR] compare failed"
    assert out[8].startswith("4 case(s): 1 ERROR, 1 FAIL, 2 PASS in ")
    assert snapshot(tmp_path) == before                  # the case folders are untouched


def test_keep_leaves_the_files_and_run_errors_are_reported(tmp_path, capsys):
    folder = make_case(tmp_path / "c")
    (folder / "kernel.pto").write_text(KERNEL.replace("%len nburst(%one, %len, %len)\n"
                                                      "      : !pto.ptr<f32, ub>",
                                                      "%len nburst(%one, %len)\n"
                                                      "      : !pto.ptr<f32, ub>"))
    assert main(["case", str(folder), "--keep", str(tmp_path / "keep")]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("ERROR c (run): kernel.pto:11:")
    assert "expected ','" in line
    assert (tmp_path / "keep" / "c" / "v1.bin").is_file()


def test_usage_errors(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["case", str(tmp_path / "empty")]) == 2
    assert "no kernel.pto or tile case folder (cases.py, gen_data.py, one .pto) under" in capsys.readouterr().err
    (tmp_path / "f.txt").write_text("x")
    assert main(["case", str(tmp_path / "f.txt")]) == 2
    assert "is not a folder" in capsys.readouterr().err


# A host program that reads the row count from a file, passes it by value, and derives the
# launch's block count from it (the shape of PTO-Gym's whole-kernel cases).
SCALAR_MAIN = """int main() {
  int32_t rowsHost = 0;
  ReadFile("./v3.bin", scalarSize, &rowsHost, scalarSize);
  ReadFile("./v1.bin", fileSize_v1, v1Host, fileSize_v1);
  ACL_CHECK(aclrtMemcpy(v1Device, fileSize_v1, v1Host, fileSize_v1,
                        ACL_MEMCPY_HOST_TO_DEVICE));
  LaunchRows(v1Device, v2Device, rowsHost, stream);
  ACL_CHECK(aclrtMemcpy(v2Host, fileSize_v2, v2Device, fileSize_v2,
                        ACL_MEMCPY_DEVICE_TO_HOST));
  WriteFile("./v2.bin", v2Host, fileSize_v2);
}
"""
SCALAR_LAUNCH = """void LaunchRows(float *in, float *out, int32_t rows, void *stream) {
  const int32_t perBlock = 16;
  const int32_t blocks = (rows + perBlock - 1) / perBlock;
  copy_rows<<<blocks, nullptr, stream>>>((__gm__ float *)in, (__gm__ float *)out, rows);
}
"""
ROWS_KERNEL = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @copy_rows(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>, %rows: i32)
      attributes {pto.aicore} {
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %len = arith.constant 64 : i64
    %per = arith.constant 16 : i64
    %b = pto.get_block_idx
    %off = arith.muli %b, %per : i64
    %s = pto.addptr %src, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    %d = pto.addptr %dst, %off : !pto.ptr<f32, gm> -> !pto.ptr<f32, gm>
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %s, %ub, %z, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %d, %len nburst(%one, %len, %len)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }
}
"""
ROWS_GOLDEN = """import numpy as np
np.array([{rows}], np.int32).tofile("v3.bin")
x = np.arange(64, dtype=np.float32)
x.tofile("v1.bin")
g = x.copy(); g[16 * ((({rows}) + 15) // 16):] = 0       # one 16-float block per 16 rows
g.tofile("golden_v2.bin")
"""


def test_inferred_binding_of_a_scalar_read_from_a_file_and_a_computed_block_count(tmp_path):
    (tmp_path / "main.cpp").write_text(SCALAR_MAIN)
    (tmp_path / "launch.cpp").write_text(SCALAR_LAUNCH)
    assert infer_binding(tmp_path) == {
        "entry": "copy_rows", "args": {"0": "v1.bin", "1": "v2.bin", "2": {"file": "v3.bin"}},
        "block_dim": "(${2} + (16) - 1) / (16)"}


@pytest.mark.parametrize("rows, blocks", [(33, 3), (48, 3), (1, 1)])
def test_case_reads_the_scalar_and_launches_the_computed_blocks(tmp_path, capsys, rows,
                                                                blocks):
    folder = tmp_path / "rows"
    folder.mkdir()
    (folder / "kernel.pto").write_text(ROWS_KERNEL)
    (folder / "golden.py").write_text(ROWS_GOLDEN.format(rows=rows))
    (folder / "compare.py").write_text(COMPARE)
    (folder / "main.cpp").write_text(SCALAR_MAIN)
    (folder / "launch.cpp").write_text(SCALAR_LAUNCH)
    assert main(["case", str(folder)]) == 0, capsys.readouterr().out
    assert "PASS  rows" in capsys.readouterr().out


def test_c_integer_block_expressions():
    from ptosim.cases import c_int_expr
    assert c_int_expr("(${0} + 7) / 8", {0: 9}) == 2
    assert c_int_expr("-7 / 2", {}) == -3 and c_int_expr("7 % -2", {}) == 1
    assert c_int_expr("${1} * 2 - ${0}", {0: 1, 1: 5}) == 9
    with pytest.raises(CaseError, match=r"block_dim '\$\{0\} / 0' is not an integer "
                                        r"expression ptosim can evaluate"):
        c_int_expr("${0} / 0", {0: 4})
    with pytest.raises(CaseError, match=r"is not an integer expression ptosim can evaluate"):
        c_int_expr("2 ** 3", {})


def test_block_count_from_an_unknown_name_is_refused(tmp_path):
    (tmp_path / "main.cpp").write_text(SCALAR_MAIN)
    (tmp_path / "launch.cpp").write_text(SCALAR_LAUNCH.replace("perBlock - 1", "mystery - 1"))
    with pytest.raises(CaseError, match=r"cannot evaluate the block count .*: mystery is not "
                                        r"a kernel argument or constant; write "
                                        r"ptosim-case\.json"):
        infer_binding(tmp_path)


def test_a_file_argument_for_a_pointer_is_refused(tmp_path, capsys):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "kernel.pto").write_text(ROWS_KERNEL)
    (folder / "golden.py").write_text(ROWS_GOLDEN.format(rows=4))
    (folder / "ptosim-case.json").write_text(json.dumps(
        {"args": {"0": {"file": "v1.bin"}, "1": "v2.bin", "2": 4}}))
    assert main(["case", str(folder)]) == 1
    out = capsys.readouterr().out
    assert 'ERROR bad (binding): argument 0: {"file": ...} is for scalar parameters; ' \
           '%src is a pointer (give the file name itself)' in out
