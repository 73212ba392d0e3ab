"""PTOAS's static rules that ptosim enforces on `.pto` text (issue 14 item 3): entry
functions return void, TSTORE element counts, TMRGSORT's list-form tmp, the a5
trowexpandmax / min / expdif without tmp, `pto.tassign` modules place every tile, and the
frontend pipe init rules. Each rule: a negative kernel (error type and message) and a
positive twin that passes."""

from __future__ import annotations

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, StructureError, TargetError, VerifyError
from ptosim.interp.static import check_kernel
from ptosim.kernel import Kernel


def _check(text: str, target: str = "a5", entry: str | None = None) -> list[Exception]:
    k = Kernel.from_text(text, "t.pto", entry)
    return list(check_kernel(k.module, k.func, target, k.locate).errors)


def _vec(rows: int, cols: int, vr: int, vc: int, dtype: str = "f32",
         blayout: str = "row_major") -> str:
    return (f"!pto.tile_buf<loc=vec, dtype={dtype}, rows={rows}, cols={cols}, v_row={vr}, "
            f"v_col={vc}, blayout={blayout}, slayout=none_box, fractal=512, pad=0>")


# --- entry functions return void ---------------------------------------------------------
ENTRY = """module {
  func.func @k(%x: i32) -> i32 attributes {pto.entry} {
    %r = func.call @helper(%x) : (i32) -> i32
    return %r : i32
  }
  func.func private @helper(%x: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %y = arith.addi %x, %c1 : i32
    return %y : i32
  }
}
"""


def test_entry_with_a_result_is_refused() -> None:
    with pytest.raises(StructureError, match=r"t\.pto:2:3: error: PTO entry functions must "
                                             r"return void: @k returns i32"):
        Kernel.from_text(ENTRY, "t.pto")
    lone = "func.func @f(%x: i64) -> (i64, i64) {\n  return %x, %x : i64, i64\n}"
    with pytest.raises(StructureError, match=r"must return void: @f returns i64, i64"):
        Kernel.from_text(lone, "t.pto")


def test_void_entry_calling_a_helper_with_a_result_runs() -> None:
    text = ENTRY.replace("-> i32 attributes {pto.entry}", "attributes {pto.entry}") \
        .replace("    return %r : i32\n", "    return\n")
    k = Kernel.from_text(text, "t.pto")
    assert k.entry == "k"
    k.run({"x": 3})
    # without the entry marker the helper (it returns a value) is no candidate either
    assert Kernel.from_text(text.replace(" attributes {pto.entry}", ""), "t.pto").entry == "k"


# --- TSTORE: view elements = src valid elements ------------------------------------------
def _tstore(view: str, vr: int = 32, vc: int = 32) -> str:
    t = _vec(64, 64, vr, vc)
    return f"""func.func @k(%v: !pto.partition_tensor_view<{view}xf32>) {{
  %t = pto.alloc_tile : {t}
  pto.tstore ins(%t : {t}) outs(%v : !pto.partition_tensor_view<{view}xf32>)
  return
}}"""


def test_tstore_element_count_mismatch_is_refused() -> None:
    with pytest.raises(PtoSyntaxError, match=r"t\.pto:3:3: error: pto\.tstore: expects dst "
                                             r"static element count \(4096\) to match src "
                                             r"valid_shape static element count \(1024\)"):
        Kernel.from_text(_tstore("64x64"), "t.pto")
    with pytest.raises(PtoSyntaxError, match=r"\(512\) to match .* count \(1024\)"):
        Kernel.from_text(_tstore("1x512"), "t.pto")


@pytest.mark.parametrize("view", ["32x32", "1x1024", "2x16x32", "?x32"])
def test_tstore_same_element_count_or_dynamic_loads(view: str) -> None:
    Kernel.from_text(_tstore(view), "t.pto")       # reshapes keep the count (PTOAS)


# --- TMRGSORT list form: tmp.cols >= dst.cols --------------------------------------------
def _mrgsort(tmp_cols: int) -> str:
    # two lists of 128 f32 (64 records of value, index) merged into 256 columns
    src, row, tmp = _vec(1, 128, 1, 128), _vec(1, 256, 1, 256), _vec(1, tmp_cols, 1, tmp_cols)
    return f"""func.func @k() {{
  %s0 = pto.alloc_tile : {src}
  %s1 = pto.alloc_tile : {src}
  %d = pto.alloc_tile : {row}
  %t = pto.alloc_tile : {tmp}
  %ex = arith.constant dense<0> : vector<4xi16>
  pto.tmrgsort ins(%s0, %s1, %t {{exhausted = false}} : {src}, {src}, {tmp}) outs(%d, %ex : {row}, vector<4xi16>)
  return
}}"""


def test_tmrgsort_list_form_tmp_narrower_than_dst_is_refused() -> None:
    with pytest.raises(PtoSyntaxError, match=r"t\.pto:7:3: error: pto\.tmrgsort: format2 "
                                             r"expects tmp\.cols >= dst\.cols \(tmp has 128, "
                                             r"dst 256\)"):
        Kernel.from_text(_mrgsort(128), "t.pto")


@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_tmrgsort_list_form_tmp_as_wide_as_dst_checks(target: str) -> None:
    assert _check(_mrgsort(256), target) == []


# --- a5 trowexpandmax / min / expdif: no tmp (PTOAS) -------------------------------------
def _rowexpand(op: str, tmp: bool, valid: int = 16) -> str:
    full, col = _vec(16, 16, valid, valid), _vec(16, 1, valid, 1 if valid else 0,
                                                 blayout="col_major")
    ins, types = ("%a, %b, %t", f"{full}, {col}, {full}") if tmp else ("%a, %b",
                                                                        f"{full}, {col}")
    return f"""func.func @k() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  %a = pto.alloc_tile : {full}
  %b = pto.alloc_tile : {col}
  %t = pto.alloc_tile : {full}
  %d = pto.alloc_tile : {full}
  pto.{op} ins({ins} : {types}) outs(%d : {full})
  return
}}"""


@pytest.mark.parametrize("op", ["trowexpandmax", "trowexpandmin", "trowexpandexpdif"])
@pytest.mark.parametrize("valid", [16, 0])
def test_a5_rowexpand_reduce_like_with_tmp_is_refused(op: str, valid: int) -> None:
    errors = _check(_rowexpand(op, True, valid), "a5")
    assert [type(e) for e in errors] == [TargetError]
    assert f"t.pto:6:3: error: {op.upper()}: expects A5 form to omit tmp" in str(errors[0])


@pytest.mark.parametrize("op", ["trowexpandmax", "trowexpandmin", "trowexpandexpdif"])
def test_rowexpand_reduce_like_tmp_on_a2a3_or_without_tmp_on_a5_checks(op: str) -> None:
    assert _check(_rowexpand(op, True), "a2a3") == []
    assert _check(_rowexpand(op, False), "a5") == []
    assert _check(_rowexpand("trowexpandmul", True), "a5") == []   # not this rule's op


def test_python_face_keeps_the_a5_tmp_overload() -> None:
    """pto-isa's a5 TROWEXPANDMAX(dst, src0, src1, tmp) forwards to the 3-operand code."""
    m = ptosim.Machine("a5")
    a = np.arange(256, dtype=np.float32).reshape(16, 16) - 100
    b = np.linspace(-50, 50, 16, dtype=np.float32).reshape(16, 1)
    ta, td, tt = (m.tile("Vec", "f32", 16, 16) for _ in range(3))
    tb = m.tile("Vec", "f32", 16, 1, blayout="ColMajor")
    m.write(ta.ptr, a.ravel())
    m.write(tb.ptr, b.ravel())                  # one column: element r at r
    m.TROWEXPANDMAX(td, ta, tb, tt)
    np.testing.assert_array_equal(m.read_tile(td), np.where(a > b, a, np.broadcast_to(b, a.shape)))


# --- pto.tassign: every tile placed by the kernel ----------------------------------------
TASSIGN = """func.func @k() attributes {pto.entry} {
  %a0 = arith.constant 0 : i64
  %a1 = arith.constant 4096 : i64
  %t = pto.alloc_tile ADDR: !pto.tile_buf<vec, 32x32xf16>
  %u = pto.tassign %t, %a1 : !pto.tile_buf<vec, 32x32xf16> -> !pto.tile_buf<vec, 32x32xf16>
  return
}"""


def test_tassign_module_with_an_unplaced_tile_is_refused() -> None:
    with pytest.raises(StructureError, match=r"t\.pto:4:3: error: pto\.alloc_tile: requires "
                                             r"'addr' operand when --pto-level=level3"):
        Kernel.from_text(TASSIGN.replace("ADDR", ""), "t.pto")


def test_tassign_module_with_placed_tiles_runs() -> None:
    Kernel.from_text(TASSIGN.replace("ADDR", "addr = %a0 "), "t.pto").run({})
    # without pto.tassign, ptosim places tiles as PTOAS's level 1 / 2 does
    no_tassign = TASSIGN.replace("ADDR", "").splitlines()
    Kernel.from_text("\n".join(no_tassign[:4] + no_tassign[5:]), "t.pto").run({})


# --- frontend pipe inits -----------------------------------------------------------------
ACC = ("!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
       "blayout=col_major, slayout=row_major, fractal=1024, pad=0>")
VEC = _vec(16, 16, 16, 16)


def _pipes(cube_init: str = "", vec_init: str = "", push_split: int = 0,
           pop_split: int = 0, extra_cube: str = "") -> str:
    cube_init = cube_init or "pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024}"
    vec_init = vec_init or "pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024}"
    return f"""module {{
  func.func @k() attributes {{pto.entry}} {{
    func.call @cube() : () -> ()
    func.call @vec() : () -> ()
    return
  }}
  func.func private @cube() attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %imp = pto.import_reserved_buffer {{name = "c2v", peer_func = @vec}} -> i32
    {cube_init} (c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %imp : i32)
    {extra_cube}
    %acc = pto.alloc_tile : {ACC}
    pto.tpush_to_aiv(%acc : {ACC}) {{id = 0, split = {push_split}}}
    return
  }}
  func.func private @vec() attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %buf = pto.reserve_buffer {{name = "c2v", size = 8192, location = #pto.address_space<vec>, auto = true}} -> i32
    {vec_init} (c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %buf : i32)
    %t = pto.tpop_from_aic {{id = 0, split = {pop_split}}} -> {VEC}
    pto.tfree_from_aic {{id = 0, split = {pop_split}}}
    return
  }}
}}"""


def _pipe_error(text: str, target: str = "a5") -> str:
    errors = _check(text, target)
    assert [type(e) for e in errors] == [VerifyError], errors
    return str(errors[0])


@pytest.mark.parametrize("split", [0, 1, 2])
def test_compatible_pipe_pair_checks(split: int) -> None:
    assert _check(_pipes(push_split=split, pop_split=split)) == []
    explicit = "pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024, nosplit = " \
        f"{'true' if split == 0 else 'false'}}}"
    assert _check(_pipes(vec_init=explicit, push_split=split, pop_split=split)) == []


def test_local_slot_num_on_a5_is_refused_by_check_and_run() -> None:
    init = "pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024, local_slot_num = 2}"
    vinit = init.replace("aic", "aiv")
    text = _pipes(cube_init=init, vec_init=vinit)
    errors = _check(text, "a5")
    assert [type(e) for e in errors] == [VerifyError] * 2      # each init
    msg = str(errors[0])
    assert "t.pto:9:5: error: pto.aic_initialize_pipe: 'local_slot_num' is only supported " \
        "for a2/a3 frontend pipe lowering" in msg
    with pytest.raises(VerifyError, match=r"'local_slot_num' is only supported"):
        Kernel.from_text(text, "t.pto").run({})
    assert _check(text, "a2a3") == []                   # a2/a3 lowering takes it


def test_peer_inits_with_different_split_usage_are_refused() -> None:
    msg = _pipe_error(_pipes(push_split=1, pop_split=0))
    assert "pto.aic_initialize_pipe: conflicting pipe split usage across peer pipe init " \
        "ops" in msg or "pto.aiv_initialize_pipe: conflicting pipe split usage" in msg
    with pytest.raises(VerifyError, match=r"conflicting pipe split usage"):
        Kernel.from_text(_pipes(push_split=1, pop_split=0), "t.pto").run({})


def test_explicit_nosplit_against_the_users_is_refused() -> None:
    init = "pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024, nosplit = false}"
    msg = _pipe_error(_pipes(vec_init=init))
    assert "t.pto:17:5: error: pto.aiv_initialize_pipe: explicit 'nosplit = false' conflicts " \
        "with downstream users that require split = 0" in msg
    init = init.replace("false", "true")
    msg = _pipe_error(_pipes(vec_init=init, push_split=2, pop_split=2))
    assert "explicit 'nosplit = true' conflicts with downstream users that require split = " \
        "1 or split = 2" in msg


def test_one_function_with_both_peer_inits_is_refused() -> None:
    second = "pto.aic_initialize_pipe {id = 1, dir_mask = 1, slot_size = 1024} " \
        "(c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %imp : i32)"
    msg = _pipe_error(_pipes(extra_cube=second))        # three inits share the buffer
    assert "requires a complete compatible peer init pair when local_addr comes from " \
        "pto.reserve_buffer or pto.import_reserved_buffer" in msg
    text = _pipes(extra_cube=second)
    text = text.replace("    pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024} "
                        "(c2v_consumer_buf = %buf : i32, v2c_consumer_buf = %buf : i32)\n",
                        "")                              # two inits, both on the cube
    assert "requires a complete compatible peer init pair" in _pipe_error(text)


def test_peer_inits_with_different_shapes_are_refused() -> None:
    init = "pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 512}"
    assert "requires peer pipe init ops to agree on direction and pipe shape" in \
        _pipe_error(_pipes(vec_init=init))
