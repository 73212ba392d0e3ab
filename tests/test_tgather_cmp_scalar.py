"""TGATHER's comparison form with one scalar k for every row (PTOAS's `.pto` spelling
``pto.tgather ins(%src, %k, %tmp : T, elem, T) outs(%dst, %cdst : T, T) {cmpMode, offset}``,
test/lit/pto/tgather_three_forms_emitc.pto): the same bytes as the k_value-tile form with
k in every row's word, an independent per-lane golden of a kernel run end to end, and the
rules (the Python face's k, the text form's types and attributes)."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoSyntaxError, PtoTypeError, PtoValueError
from ptosim.kernel import Kernel
from tile_helpers import NP, tile_buf, vec_kernel

NP = {**NP, "ui32": np.uint32}
U32 = 1 << 32


def _case(target, sdt, rows, cols, seed):
    rng = np.random.default_rng(seed)
    if sdt in ("f16", "f32"):
        return rng.integers(-4, 5, (rows, cols)).astype(NP[sdt]) * NP[sdt](0.5)
    return rng.integers(0, 6, (rows, cols)).astype(NP[sdt])


# (target, src type, k tile type the path reads, k, mode)
PAIRS = [("a5", "f32", "ui32", 1, "GT"), ("a5", "f32", "ui32", -1, "EQ"),
         ("a5", "f16", "ui32", 1, "GT"), ("a5", "f16", "ui16", -2, "EQ"),
         ("a5", "i32", "ui32", 3, "GT"), ("a5", "i16", "ui16", 2, "EQ"),
         ("a5", "ui8", "ui16", 4, "GT"),
         ("a2a3", "f32", "i32", 1, "GT"), ("a2a3", "f16", "i16", -1, "EQ"),
         ("a2a3", "f16", "i16", 0, "GT"), ("a2a3", "i32", "i32", 2, "EQ")]


def _machine(target, sdt, kdt, data, kwords):
    m = ptosim.Machine(target=target)
    rows, cols = data.shape
    src = m.tile("Vec", sdt, rows, cols)
    kv = m.tile("Vec", kdt, 1, 128)
    dst = m.tile("Vec", "i32", rows, cols)
    cdst = m.tile("Vec", "i32", 1, 8)
    tmp = m.tile("Vec", "ui8", rows, 32)
    m.write(src.ptr, data.ravel())
    m.write(kv.ptr, np.asarray(kwords, NP[kdt]))
    return m, src, kv, dst, cdst, tmp


@pytest.mark.parametrize("target,sdt,kdt,k,mode", PAIRS)
def test_scalar_k_is_the_tile_form_with_k_in_every_row(target, sdt, kdt, k, mode):
    """Every UB byte (dst streams, cdst, a2a3's staging area past tmp) equals the tile form's
    with each row's word = k (two's complement in the tile's word)."""
    rows, cols = 4, 128
    data = _case(target, sdt, rows, cols, 7)
    bits = 8 * np.dtype(NP[kdt]).itemsize
    words = np.full(128, k % (1 << bits) if kdt.startswith("ui") else k).astype(NP[kdt])
    runs = []
    for scalar in (True, False):
        m, src, kv, dst, cdst, tmp = _machine(target, sdt, kdt, data, words)
        kk = NP[sdt](k) if sdt in ("f16", "f32") else k
        m.TGATHER(dst, src, kk if scalar else kv, cdst, tmp, 5, cmp_mode=mode)
        runs.append(m.region(src.ptr, 1, access="R")[0].copy())     # the whole UB
    np.testing.assert_array_equal(runs[0], runs[1])
    assert (runs[0] != runs[1]).sum() == 0 and runs[0].any()


# --- end to end: a .pto kernel against a per-lane golden -------------------------------------
def _golden(target, data, k, mode, offset):
    """Per row (index list, cdst word): a5 indexes offset + r * L + c (L = the valid columns
    rounded up to 64 lanes) and counts bytes; a2a3 indexes offset + r * cols + c (its ramp
    over the tile) and counts elements. Floats compare as numbers (k integral)."""
    rows, cols = data.shape
    span = -(-cols // 64) * 64
    out = []
    for r in range(rows):
        hits = []
        for c in range(cols):
            v = float(data[r, c])
            if data.dtype == np.float32 and target == "a5":
                v = float(round(v))        # a5 rounds f32 scores to s32 (ties to even)
            if (v > k) if mode == "GT" else (v == k):
                step = span if target == "a5" else cols
                hits.append((offset + r * step + c) % U32)
        out.append((hits, 4 * len(hits) if target == "a5" else len(hits)))
    return out


def _kernel(target, sdt, k_text, rows, cols, attrs):
    src_t, tmp_t = tile_buf(sdt, rows, cols), tile_buf("ui8", rows, 32)
    dst_t, cdst_t = tile_buf("i32", rows, cols), tile_buf("i32", 1, 8)
    body = (f"%k = arith.constant {k_text} : {sdt}\n    "
            f"pto.tgather ins(%s, %k, %t : {src_t}, {sdt}, {tmp_t}) "
            f"outs(%d, %c : {dst_t}, {cdst_t}){attrs}")
    return vec_kernel(body, target=target,
                      params=f"%x: !pto.ptr<{sdt}, gm>, %o: !pto.ptr<i32, gm>, "
                             f"%n: !pto.ptr<i32, gm>",
                      views={"xs": ("x", sdt, rows, cols), "os": ("o", "i32", rows, cols),
                             "ns": ("n", "i32", 1, 8)},
                      tiles={"s": src_t, "t": tmp_t, "d": dst_t, "c": cdst_t},
                      loads=[("xs", "s")], stores=[("d", "os"), ("c", "ns")])


@pytest.mark.parametrize("target,sdt,k,mode,attrs,offset", [
    ("a5", "f16", 1, "GT", " {offset = 7 : i32, cmpMode = #pto<cmp gt>}", 7),
    ("a5", "f32", 0, "EQ", "", 0),
    ("a5", "i32", 2, "GT", " {cmpMode = #pto<cmp gt>}", 0),
    ("a2a3", "f32", -1, "GT", " {cmpMode = #pto<cmp gt>, offset = 100 : i32}", 100),
    ("a2a3", "f16", 1, "EQ", " {cmpMode = #pto<cmp eq>}", 0),
    ("a2a3", "i32", 3, "EQ", " {offset = -3 : i32}", -3)])
def test_pto_scalar_k_kernel_matches_the_golden(target, sdt, k, mode, attrs, offset):
    rows, cols = 4, 64
    data = _case(target, sdt, rows, cols, 11 + k)
    k_text = f"{float(k)}" if sdt.startswith("f") else f"{k}"
    res = Kernel.from_text(_kernel(target, sdt, k_text, rows, cols, attrs), "k.pto").run(
        {"x": data, "o": np.full((rows, cols), -7, np.int32), "n": np.zeros(8, np.int32)})
    assert res.findings == []
    got, counts = res.outputs["o"].view(np.uint32), res.outputs["n"]
    want = _golden(target, data, k, mode, offset)
    for r, (hits, count) in enumerate(want):
        assert list(got[r, :len(hits)]) == hits, r
        assert counts[r] == count, r
    assert sum(len(h) for h, _ in want) > 0


def test_pto_defaults_are_eq_and_offset_zero():
    """PTOAS's lowering: cmpMode absent -> CmpMode::EQ, offset absent -> 0."""
    text = _kernel("a5", "f32", "0.0", 2, 64, "")
    op = next(o for o in Kernel.from_text(text, "k.pto").module.walk()
              if o.name == "pto.tgather")
    pos, kw = op.tile_call()
    assert kw == {"cmp_mode": "EQ"} and pos[-1] == 0 and len(pos) == 6


# --- rules ------------------------------------------------------------------------------------
@pytest.mark.parametrize("target,sdt,k,err,msg", [
    ("a5", "f32", 1.5, PtoValueError, r"TGATHER: k = 1.5: the comparison form's thresholds "
                                      r"are integer words"),
    ("a5", "f16", 40000.0, PtoValueError, r"TGATHER: k = 40000 is outside \[-32768, 32768\), "
                                          r"the range a k_value word holds for f16 src"),
    ("a2a3", "f32", float("nan"), PtoValueError, r"TGATHER: k = nan"),
    ("a5", "i32", 1 << 31, PtoValueError, r"TGATHER: k = 2147483648 is outside"),
    ("a5", "f32", True, PtoTypeError, r"TGATHER: operands after dst must be"),
])
def test_python_scalar_k_rules(target, sdt, k, err, msg):
    m = ptosim.Machine(target=target)
    src, dst = m.tile("Vec", sdt, 2, 64), m.tile("Vec", "i32", 2, 64)
    cdst, tmp = m.tile("Vec", "i32", 1, 8), m.tile("Vec", "ui8", 2, 32)
    with pytest.raises(err, match=msg):
        m.TGATHER(dst, src, k, cdst, tmp, 0, cmp_mode="GT")


def test_ptoas_three_forms_lit_test_loads():
    """PTOAS's test/lit/pto/tgather_three_forms_emitc.pto spelling (index, mask, compare)."""
    text = _kernel("a2a3", "f16", "0.0", 1, 32, " {offset = 7 : i32}")
    Kernel.from_text(text, "k.pto")


D_T, C_T = tile_buf("i32", 2, 64), tile_buf("i32", 1, 8)


@pytest.mark.parametrize("old,new,msg", [
    ("1.0 : f32\n", "1.0 : f16\n", None),
    (", f32, !pto", ", f16, !pto", "pto.tgather: k must have src's element type f32, got f16"),
    ("#pto<cmp gt>", "#pto<cmp lt>", "pto.tgather: cmpMode must be eq or gt, got lt"),
    ("{cmpMode = #pto<cmp gt>}", "{offset = 7 : i64}", "pto.tgather: offset must be an i32 "
                                                       "integer, got 7 : i64"),
    (f"outs(%d, %c : {D_T}, {C_T})", f"outs(%d : {D_T})", r"pto.tgather: the compare form is "
     r"ins\(%src, %k, %tmp : T, elem, T\) outs\(%dst, %cdst : T, T\) \{cmpMode, offset\}, "
     r"got ins\(tile, scalar, tile\) and 1 outs"),
])
def test_text_rules(old, new, msg):
    text = _kernel("a5", "f32", "1.0", 2, 64, " {cmpMode = #pto<cmp gt>}")
    assert old in text
    text = text.replace(old, new)
    if msg is None:                    # k's constant f16 and the ins type f32: xDSL's check
        with pytest.raises(PtoSyntaxError, match="operand is used with type f32, but has "
                                                 "been previously used or defined with type "
                                                 "f16"):
            Kernel.from_text(text, "k.pto")
        return
    if "f16, !pto" in new:
        text = text.replace("1.0 : f32\n", "1.0 : f16\n")
    with pytest.raises(PtoSyntaxError, match=msg):
        Kernel.from_text(text, "k.pto")


def test_ptoas_invalid_src_type_is_refused_where_it_runs():
    """test/lit/pto/tgather_compare_invalid_src_type.pto: an i16 source is an a3 error
    (PTOAS's verifier at compile time, ptosim's static rule when the op runs on a2a3)."""
    text = _kernel("a2a3", "i16", "0", 1, 64, "")
    with pytest.raises(ptosim.DtypeError, match="TGATHER: src element type must be one of "
                                                "f16, f32, i32 on a2a3, got i16"):
        Kernel.from_text(text, "k.pto").run({"x": np.zeros((1, 64), np.int16),
                                             "o": np.zeros((1, 64), np.int32),
                                             "n": np.zeros(8, np.int32)})
