"""`ptosim run --initcheck`: outputs that depend on on-chip bytes nothing wrote."""

import numpy as np

from ptosim.cli import main

KERNEL = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%x: !pto.ptr<f32, gm>, %y: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %in = arith.constant 64 : i64
    %out = arith.constant {out} : i64
    %ub = pto.castptr %z : i64 -> !pto.ptr<f32, ub>
    pto.mte_gm_ub %x, %ub, %z, %in nburst(%one, %in, %in)
      : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    pto.set_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_MTE3", "EVENT_ID0"]
    pto.mte_ub_gm %ub, %y, %out nburst(%one, %out, %out)
      : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    return
  }}
}}
"""


def run(tmp_path, out_bytes: int, capsys):
    (tmp_path / "k.pto").write_text(KERNEL.format(out=out_bytes))
    np.arange(16, dtype=np.float32).tofile(tmp_path / "x.bin")
    np.zeros(32, np.float32).tofile(tmp_path / "y.bin")
    code = main(["run", str(tmp_path / "k.pto"), f"--arg=x={tmp_path / 'x.bin'}",
                 f"--arg=y={tmp_path / 'y.bin'}", "--initcheck"])
    return code, capsys.readouterr()


def test_clean_kernel_passes(tmp_path, capsys):
    code, out = run(tmp_path, 64, capsys)
    assert code == 0 and "initcheck: no output depends on on-chip bytes nothing wrote" in out.out


def test_reading_unwritten_ub_is_reported(tmp_path, capsys):
    code, out = run(tmp_path, 128, capsys)             # 64 B in, 128 B out
    assert code == 1
    first, op = out.err.strip().splitlines()
    assert first == ("initcheck: output y depends on on-chip bytes nothing wrote: "
                     "16 of 32 elements change when on-chip memory starts as 0xFF "
                     "instead of 0x00; first at [16]")
    # and the op that read them (per-op initcheck)
    assert op.startswith("initcheck: first op that used bytes nothing wrote: ")
    assert op.endswith("k.pto:12:5 pto.mte_ub_gm (block0.aiv0): ub_src reads block0 aiv0 ub "
                       "[0, 128), byte 64 never written")
    y = np.fromfile(tmp_path / "y.bin", np.float32)    # the first run's outputs are written
    np.testing.assert_array_equal(y, np.concatenate([np.arange(16), np.zeros(16)]))
