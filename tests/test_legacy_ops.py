"""Register-level ("legacy") DMA and cube-load ops (`ptosim.ops.legacy`, rows in
`ptosim.isa.legacy`): each is checked against the ``mte_*`` op it lowers from (same bytes on a
poisoned machine) and against an explicit-loop golden, and each rule has a negative test."""

import ml_dtypes
import numpy as np
import pytest

import ptosim
from ptosim.frontend import parse_module, print_module
from ptosim.isa import REGISTRY
from ptosim.isa.legacy import ROWS
from ptosim.kernel import Kernel


def fresh(target: str = "a5") -> ptosim.Machine:
    return ptosim.Machine(target=target, poison=0xCD)


def same_buffers(a: ptosim.Machine, b: ptosim.Machine, ptrs: list) -> None:
    for p, n in ptrs:
        np.testing.assert_array_equal(a.read(p.cast("ui8"), n), b.read(p.cast("ui8"), n))


# --- GM <-> UB ------------------------------------------------------------------------------
def test_copy_gm_to_ubuf_is_mte_gm_ub_with_the_loop_registers():
    data = np.arange(4096, dtype=np.int16)
    out = []
    for legacy in (True, False):
        m = fresh()
        g, ub = m.gm(data), m.ptr("ub", "i16", 0)
        if legacy:
            m.set_loop_size_outtoub(2, 3)            # LOOP2 count (wraps the bursts), LOOP1
            m.set_loop2_stride_outtoub(64, 256)      # (GM src, UB dst) bytes
            m.set_loop1_stride_outtoub(1024, 1024)
            m.copy_gm_to_ubuf(g, ub, 0, 4, 24, 0, 0, False, 0, 16, 64)
        else:
            m.mte_gm_ub(g, ub, 0, 24, nburst=(4, 16, 64),
                        loop=[(2, 64, 256), (3, 1024, 1024)])
        out.append(m.read(ub.cast("ui8"), 3072))
    np.testing.assert_array_equal(out[0], out[1])
    # explicit loops: LOOP1 outermost, then LOOP2, then the bursts
    want = np.full(3072, 0xCD, np.uint8)
    src = data.view(np.uint8)
    for l1 in range(3):
        for l2 in range(2):
            for r in range(4):
                s, d = l1 * 1024 + l2 * 64 + r * 16, l1 * 1024 + l2 * 256 + r * 64
                want[d:d + 24] = src[s:s + 24]
    np.testing.assert_array_equal(out[0], want)


def test_copy_ubuf_to_gm_takes_the_gm_stride_first():
    m, ref = fresh(), fresh()
    for mm in (m, ref):
        mm.write(mm.ptr("ub", "f32", 0), np.arange(512, dtype=np.float32))
    o, o_ref = m.gm_empty(512, "f32"), ref.gm_empty(512, "f32")
    m.set_loop_size_ubtoout(2, 1)
    m.set_loop2_stride_ubtoout(512, 1024)      # (UB src, GM dst)
    m.copy_ubuf_to_gm(m.ptr("ub", "f32", 0), o, 0, 3, 40, 0, 160, 64)
    ref.mte_ub_gm(ref.ptr("ub", "f32", 0), o_ref, 40, nburst=(3, 64, 160),
                  loop=[(2, 512, 1024)])
    np.testing.assert_array_equal(m.read(o, 512).view(np.uint32),
                                  ref.read(o_ref, 512).view(np.uint32))


def test_registers_are_per_core_state_of_a_kernel():
    text = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%a: !pto.ptr<i16, gm>, %b: !pto.ptr<i16, gm>) attributes {pto.aicore} {
    %false = arith.constant false
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c64 = arith.constant 64 : i64
    %c128 = arith.constant 128 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<i16, ub>
    pto.set_loop_size_outtoub %c2, %c1 : i64, i64
    pto.set_loop2_stride_outtoub %c64, %c128 : i64, i64
    pto.copy_gm_to_ubuf %a, %ub, %c0, %c1, %c64, %c0, %c0, %false, %c0, %c64, %c64
      : !pto.ptr<i16, gm>, !pto.ptr<i16, ub>, i64, i64, i64, i64, i64, i1, i64, i64, i64
    pto.set_loop_size_ubtoout %c1, %c1 : i64, i64
    pto.copy_ubuf_to_gm %ub, %b, %c0, %c2, %c64, %c0, %c64, %c128
      : !pto.ptr<i16, ub>, !pto.ptr<i16, gm>, i64, i64, i64, i64, i64, i64
    return
  }
}
"""
    a = np.arange(64, dtype=np.int16)
    out = Kernel.from_text(text, "k.pto").run({"a": a, "b": np.zeros(64, np.int16)})
    np.testing.assert_array_equal(out.outputs["b"], a)   # two 64 B rows, 128 B apart in UB
    assert print_module(parse_module(print_module(parse_module(text)))) == \
        print_module(parse_module(text))


def test_a_loop_above_one_needs_its_stride_register():
    m = fresh()
    m.set_loop_size_outtoub(1, 4)
    with pytest.raises(ptosim.VerifyError, match=r"^copy_gm_to_ubuf: set_loop_size_outtoub "
                       r"gives a loop of 4 but set_loop1_stride_outtoub was never issued"):
        m.copy_gm_to_ubuf(m.gm(np.zeros(64, np.int16)), m.ptr("ub", "i16", 0), 0, 1, 32, 0, 0,
                          False, 0, 32, 32)
    m.set_loop_size_ubtoout(0, 1)
    with pytest.raises(ptosim.FieldRangeError, match=r"set_loop_size_ubtoout first count = 0"):
        m.copy_ubuf_to_gm(m.ptr("ub", "i16", 0), m.gm_empty(16, "i16"), 0, 1, 32, 0, 32, 32)


def test_copy_gm_to_ubuf_rules():
    m = fresh()
    g, ub = m.gm(np.zeros(64, np.int16)), m.ptr("ub", "i16", 0)
    with pytest.raises(ptosim.VerifyError, match=r"right_padding = 2 without data_select_bit"):
        m.copy_gm_to_ubuf(g, ub, 0, 1, 32, 0, 2, False, 0, 32, 32)
    with pytest.raises(ptosim.FieldRangeError, match=r"^copy_gm_to_ubuf: sid = 16 is out of"):
        m.copy_gm_to_ubuf(g, ub, 16, 1, 32, 0, 0, False, 0, 32, 32)
    with pytest.raises(ptosim.AlignmentError, match=r"^copy_gm_to_ubuf: ub_dst"):
        m.copy_gm_to_ubuf(g, ub + 1, 0, 1, 32, 0, 0, False, 0, 32, 32)
    with pytest.raises(ptosim.VerifyError, match=r"^copy_ubuf_to_gm: reserved must be 0"):
        m.copy_ubuf_to_gm(ub, g, 0, 1, 32, 1, 32, 32)


# --- gap-model and GM -> L1 -------------------------------------------------------------------
def test_copy_cbuf_to_ubuf_sid_picks_the_sub_block():
    m = fresh()
    m.write(m.ptr("l1", "i16", 0), np.arange(64, dtype=np.int16))
    for sid in (0, 1):
        m.copy_cbuf_to_ubuf(m.ptr("l1", "i16", 0), m.ptr("ub", "i16", 64 * sid), sid, 2, 1,
                            1, 0)
    np.testing.assert_array_equal(m.read(m.ptr("ub", "i16", 0), 32),
                                  np.r_[np.arange(16), np.arange(32, 48)])
    np.testing.assert_array_equal(m.read(m.ptr("ub", "i16", 64, subblock=1), 32),
                                  np.r_[np.arange(16), np.arange(32, 48)])
    assert (m.read(m.ptr("ub", "i16", 64, subblock=0).cast("ui8"), 64) == 0xCD).all()
    with pytest.raises(ptosim.VerifyError, match=r"sid selects the vector sub-block .0 or 1., "
                       "got 2"):
        m.copy_cbuf_to_ubuf(m.ptr("l1", "i16", 0), m.ptr("ub", "i16", 0), 2, 1, 1, 0, 0)


@pytest.mark.parametrize("legacy, micro", [
    ("copy_ubuf_to_cbuf", "mte_ub_l1"), ("copy_ubuf_to_ubuf", "mte_ub_ub")])
def test_gap_copies_are_their_micro_ops(legacy, micro):
    out = []
    for name in (legacy, micro):
        m = fresh()
        m.write(m.ptr("ub", "f16", 0), np.arange(2048, dtype=np.float16))
        dst = m.ptr("l1" if "cbuf" in legacy else "ub", "f16", 8192)
        if name == legacy:
            getattr(m, name)(m.ptr("ub", "f16", 0), dst, 0, 5, 2, 1, 3)
        else:
            getattr(m, name)(m.ptr("ub", "f16", 0), dst, 2, nburst=(5, 1, 3))
        out.append(m.read(dst.cast("ui8"), 2048))
    np.testing.assert_array_equal(out[0], out[1])
    b = np.full(2048, 0xCD, np.uint8)               # bursts of 64 B every 96 / 160 B
    src = np.arange(2048, dtype=np.float16).view(np.uint8)
    for i in range(5):
        b[i * 160:i * 160 + 64] = src[i * 96:i * 96 + 64]
    np.testing.assert_array_equal(out[0], b)


def test_copy_gm_to_cbuf_is_mte_gm_l1():
    a = np.arange(1024, dtype=np.float16)
    m, ref = fresh(), fresh()
    m.copy_gm_to_cbuf(m.gm(a), m.ptr("l1", "f16", 0), 8, 40, 100, 64)
    ref.mte_gm_l1(ref.gm(a), ref.ptr("l1", "f16", 0), 40, nburst=(8, 100, 64))
    same_buffers(m, ref, [(m.ptr("l1", "ui8", 0), 1024)])
    with pytest.warns(ptosim.PtoWarning, match=r"^copy_gm_to_cbuf: destination bursts may"):
        m.copy_gm_to_cbuf(m.gm(a), m.ptr("l1", "f16", 0), 16, 16, 0, 0)
    with pytest.raises(ptosim.SpaceError, match=r"^copy_gm_to_cbuf: dst must point into l1"):
        m.copy_gm_to_cbuf(m.gm(a), m.ptr("ub", "f16", 0), 1, 16, 0, 0)


# --- L1 -> L0A / L0B in fractals ----------------------------------------------------------
def fractal_golden(l1: np.ndarray, dst: np.ndarray, fields: tuple[int, ...]) -> np.ndarray:
    ms, ks, mstep, kstep, ss, ds = fields
    out = dst.copy()
    for kb in range(kstep):
        for mb in range(mstep):
            s = ((ks + kb) * ss + ms + mb) * 512
            d = (kb * ds + mb) * 512
            out[d:d + 512] = l1[s:s + 512]
    return out


@pytest.mark.parametrize("op, space", [("load_cbuf_to_ca", "l0a"), ("load_cbuf_to_cb", "l0b")])
@pytest.mark.parametrize("fields", [(0, 0, 1, 1, 1, 1), (1, 2, 2, 3, 5, 4), (0, 1, 3, 2, 3, 3)])
def test_loads_move_whole_fractals(op, space, fields):
    m = fresh()
    l1 = (np.arange(32768) * 7 % 251).astype(np.uint8)
    m.write(m.ptr("l1", "ui8", 0), l1)
    getattr(m, op)(m.ptr("l1", "f16", 0), m.ptr(space, "f16", 0), *fields)
    got = m.read(m.ptr(space, "ui8", 0), 8192)
    np.testing.assert_array_equal(got, fractal_golden(l1, np.full(8192, 0xCD, np.uint8),
                                                      fields)[:8192])


@pytest.mark.parametrize("dt, m_, k", [("f16", 40, 50), ("f32", 33, 20), ("i8", 16, 96)])
def test_lowered_fields_reproduce_mte_l1_l0a_and_l0b(dt, m_, k):
    es = ptosim.dtype(dt).size
    a16 = -(-m_ // 16)
    fields = (0, 0, a16, -(-k * es // 32), a16, a16)   # deriveLoadCbufToCaControl
    for op, micro, space, dims in (("load_cbuf_to_ca", "mte_l1_l0a", "l0a", (m_, k)),
                                   ("load_cbuf_to_cb", "mte_l1_l0b", "l0b", (k, m_))):
        a, b = fresh(), fresh()
        for mm in (a, b):
            mm.write(mm.ptr("l1", "ui8", 0), (np.arange(16384) % 253).astype(np.uint8))
        getattr(a, op)(a.ptr("l1", dt, 0), a.ptr(space, dt, 0), *fields)
        getattr(b, micro)(b.ptr("l1", dt, 0), b.ptr(space, dt, 0), *dims)
        same_buffers(a, b, [(a.ptr(space, "ui8", 0), 16384)])


def test_transposed_loads_with_lowered_fields_are_the_micro_ops():
    for op, micro, space in (("load_cbuf_to_ca", "mte_l1_l0a", "l0a"),
                             ("load_cbuf_to_cb", "mte_l1_l0b", "l0b")):
        a, b = fresh(), fresh()
        for mm in (a, b):
            mm.write(mm.ptr("l1", "ui8", 0), (np.arange(16384) % 241).astype(np.uint8))
        # M (or N) = 48, K = 64, f16: m_step = 64/16, k_step = 48*2/32, dst_stride = 48/16
        getattr(a, op)(a.ptr("l1", "f16", 0), a.ptr(space, "f16", 0), 0, 0, 4, 3, 4, 3,
                       transpose=True)
        getattr(b, micro)(b.ptr("l1", "f16", 0), b.ptr(space, "f16", 0),
                          *((48, 64) if space == "l0a" else (64, 48)), transpose=True)
        same_buffers(a, b, [(a.ptr(space, "ui8", 0), 16384)])
    with pytest.raises(ptosim.NotImplementedOpError, match=r"^load_cbuf_to_ca: a transposed load "
                       "is modelled only with the fields"):
        a.load_cbuf_to_ca(a.ptr("l1", "f16", 0), a.ptr("l0a", "f16", 0), 0, 0, 4, 3, 5, 3,
                          transpose=True)


def test_load_rules():
    m = fresh()
    l1, l0a = m.ptr("l1", "f16", 0), m.ptr("l0a", "f16", 0)
    with pytest.raises(ptosim.VerifyError, match=r"dst_stride = 1 fractals is less than m_step "
                       "= 2"):
        m.load_cbuf_to_ca(l1, l0a, 0, 0, 2, 2, 2, 1)
    with pytest.raises(ptosim.FieldRangeError, match=r"^load_cbuf_to_ca: m_step = 0 is out of "
                       r"range \[1, 255\]"):
        m.load_cbuf_to_ca(l1, l0a, 0, 0, 0, 1, 1, 1)
    with pytest.raises(ptosim.DtypeError, match=r"src and dst element types differ"):
        m.load_cbuf_to_cb(l1, m.ptr("l0b", "f32", 0), 0, 0, 1, 1, 1, 1)
    with pytest.raises(ptosim.OutOfBoundsError, match=r"^load_cbuf_to_ca: src"):
        m.load_cbuf_to_ca(l1, l0a, 0, 1024, 1, 1, 1, 1)
    a2 = fresh("a2a3")
    with pytest.raises(ptosim.NotImplementedOpError, match=r"ZZ L0A .target a2a3."):
        a2.load_cbuf_to_ca(a2.ptr("l1", "f16", 0), a2.ptr("l0a", "f16", 0), 0, 0, 1, 1, 1, 1)


# --- text and registry --------------------------------------------------------------------
def _kernel(line: str, types: str) -> str:
    return ("module attributes {pto.target_arch = \"a5\"} {\n"
            "  func.func @k(%g: !pto.ptr<f16, gm>) attributes {pto.aicore} {\n"
            "    %c0 = arith.constant 0 : i64\n    %false = arith.constant false\n"
            "    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>\n"
            "    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0a>\n"
            f"    {line}\n      : {types}\n    return\n  }}\n}}\n")


def test_text_round_trip_with_attribute_and_located_errors():
    text = _kernel("pto.load_cbuf_to_ca %l1, %l0a, %c0, %c0, %c0, %c0, %c0, %c0 "
                   "{transpose = true}", "!pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64, "
                   "i64, i64, i64, i64")
    printed = print_module(parse_module(text, "k.pto"))
    assert "{transpose = true} : !pto.ptr<f16, l1>" in printed
    assert print_module(parse_module(printed, "k.pto")) == printed
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:7:\d+: .*unexpected attribute "
                       r"'flip' \(allowed: 'transpose = true\|false'\)"):
        parse_module(text.replace("transpose", "flip"), "k.pto")
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:7:\d+: .*unexpected attribute "
                       r"'transpose' \(the op takes none\)"):
        parse_module(_kernel("pto.copy_gm_to_cbuf %g, %l1, %c0, %c0, %c0, %c0 "
                             "{transpose = true}", "!pto.ptr<f16, gm>, !pto.ptr<f16, l1>, i64, "
                             "i64, i64, i64"), "k.pto")
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:8:7: error: pto.copy_gm_to_cbuf: "
                       r"expected ',' before dst_stride"):
        parse_module(_kernel("pto.copy_gm_to_cbuf %g, %l1, %c0, %c0, %c0",
                             "!pto.ptr<f16, gm>, !pto.ptr<f16, l1>, i64, i64, i64"), "k.pto")
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:8:\d+: .*dst must be a !pto.ptr"):
        parse_module(_kernel("pto.copy_gm_to_cbuf %g, %c0, %c0, %c0, %c0, %c0",
                             "!pto.ptr<f16, gm>, i64, i64, i64, i64, i64"), "k.pto")


def test_each_row_is_a_machine_method_and_a_text_op():
    from ptosim.frontend.dialect import MICRO_OPS
    names = {cls.name for cls in MICRO_OPS}
    for row in ROWS:
        assert REGISTRY[row.name] is row and row.syntax == "operands"
        assert callable(getattr(ptosim.Machine, row.name)) and row.mnemonic in names


# --- the 6-operand mte_l1_l0a / mte_l1_l0b -----------------------------------------------------
@pytest.mark.parametrize("micro, load, space, dims", [
    ("mte_l1_l0a", "load_cbuf_to_ca", "l0a", (40, 50)),
    ("mte_l1_l0b", "load_cbuf_to_cb", "l0b", (50, 40))])
def test_start_offsets_are_the_register_level_starts(micro, load, space, dims):
    """start_row / start_col go into m_start / k_start unchanged (PTOAS ExpandLeftLoad /
    ExpandRightLoad), steps and strides derived from the shape; zero starts are the
    4-operand op."""
    k = dims[1] if space == "l0a" else dims[0]
    fields = (1, 2, 3, -(-k * 2 // 32), 3, 3)     # rows 40 -> 3 fractals of 16
    l1 = (np.arange(65536) % 249).astype(np.uint8)
    a, b, c, d = fresh(), fresh(), fresh(), fresh()
    for mm in (a, b, c, d):
        mm.write(mm.ptr("l1", "ui8", 0), l1)
    getattr(a, micro)(a.ptr("l1", "f16", 0), a.ptr(space, "f16", 0), *dims, 1, 2)
    getattr(b, load)(b.ptr("l1", "f16", 0), b.ptr(space, "f16", 0), *fields)
    same_buffers(a, b, [(a.ptr(space, "ui8", 0), 16384)])
    np.testing.assert_array_equal(
        a.read(a.ptr(space, "ui8", 0), 16384),
        fractal_golden(l1, np.full(16384, 0xCD, np.uint8), fields)[:16384])
    getattr(c, micro)(c.ptr("l1", "f16", 0), c.ptr(space, "f16", 0), *dims, 0, 0)
    getattr(d, micro)(d.ptr("l1", "f16", 0), d.ptr(space, "f16", 0), *dims)
    same_buffers(c, d, [(c.ptr(space, "ui8", 0), 16384)])


def test_start_offsets_rules_and_text():
    m = fresh()
    with pytest.raises(ptosim.NotImplementedOpError, match=r"^mte_l1_l0b: start_row / "
                       r"start_col with transpose"):
        m.mte_l1_l0b(m.ptr("l1", "f16", 0), m.ptr("l0b", "f16", 0), 32, 32, 1, 0,
                     transpose=True)
    with pytest.raises(ptosim.FieldRangeError, match=r"^mte_l1_l0a: start_col = -1"):
        m.mte_l1_l0a(m.ptr("l1", "f16", 0), m.ptr("l0a", "f16", 0), 32, 32, 0, -1)
    text = _kernel("pto.mte_l1_l0a %l1, %l0a, %c0, %c0, %c0, %c0",
                   "!pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64, i64, i64")
    printed = print_module(parse_module(text, "k.pto"))
    assert "pto.mte_l1_l0a %l1, %l0a, %c0, %c0, %c0, %c0 : " in printed
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:8:\d+: .*4 operands but 6 types|"
                       r"more types than operands"):
        parse_module(_kernel("pto.mte_l1_l0a_mx %l1, %l0a, %c0, %c0",
                             "!pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64, i64, i64"),
                     "k.pto")
    with pytest.raises(ptosim.PtoSyntaxError, match=r"k\.pto:7:\d+: .*Expected ':' before the "
                       r"type list of pto.mte_l1_l0a_mx"):
        parse_module(_kernel("pto.mte_l1_l0a_mx %l1, %l0a, %c0, %c0, %c0, %c0",
                             "!pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64, i64, i64"),
                     "k.pto")


def test_copy_gm_to_cbuf_reads_the_packed_l1_loop_registers():
    """set_loop*_outtol1 take one packed value (PTOAS ExpandCubeLoadPattern: size =
    LOOP2 << 21 | LOOP1, strides = dst << 40 | src); LOOP2 wraps the bursts."""
    a = np.arange(4096, dtype=np.float16)
    m, ref = fresh(), fresh()
    m.set_loop_size_outtol1(2 << 21 | 3)
    m.set_loop2_stride_outtol1(1024 << 40 | 96)
    m.set_loop1_stride_outtol1(2048 << 40 | 256)
    m.copy_gm_to_cbuf(m.gm(a), m.ptr("l1", "f16", 0), 4, 32, 48, 64)
    ref.mte_gm_l1(ref.gm(a), ref.ptr("l1", "f16", 0), 32, nburst=(4, 48, 64),
                  loop=[(2, 96, 1024), (3, 256, 2048)])
    same_buffers(m, ref, [(m.ptr("l1", "ui8", 0), 8192)])
    assert m.regs["loop_size_outtol1"] == (2 << 21 | 3,)
    with pytest.raises(ptosim.PtoTypeError, match=r"^set_loop_size_outtol1: takes 1 operands "
                       r"\(value\), got 2$"):
        m.set_loop_size_outtol1(1, 1)


def test_bias_fixpipe_and_scale_copies_are_their_micro_ops():
    def both(setup, legacy, micro):
        a, b = fresh(), fresh()
        for mm, call in ((a, legacy), (b, micro)):
            setup(mm)
            call(mm)
        return a, b

    def bt(mm):
        mm.write(mm.ptr("l1", "f16", 0), np.arange(64, dtype=np.float16))
    a, b = both(bt, lambda m: m.copy_cbuf_to_bt(m.ptr("l1", "f16", 0), m.ptr("bt", "f32", 0),
                                                True, 1, 4, 0, 0),
                lambda m: m.mte_l1_bt(m.ptr("l1", "f16", 0), m.ptr("bt", "f32", 0), 4,
                                      nburst=(1, 0, 0)))
    same_buffers(a, b, [(a.ptr("bt", "ui8", 0), 512)])
    np.testing.assert_array_equal(a.read(a.ptr("bt", "f32", 0), 64), np.arange(64))
    with pytest.raises(ptosim.VerifyError, match=r"^copy_cbuf_to_bt: conv_control = 0 but the "
                       r"source is f16"):
        a.copy_cbuf_to_bt(a.ptr("l1", "f16", 0), a.ptr("bt", "f32", 0), False, 1, 4, 0, 0)
    a, b = both(lambda m: m.write(m.ptr("l1", "ui8", 0), np.arange(256, dtype=np.uint8)),
                lambda m: m.copy_cbuf_to_fbuf(m.ptr("l1", "ui8", 0), m.ptr("fb", "ui8", 0),
                                              2, 2, 0, 1),
                lambda m: m.mte_l1_fb(m.ptr("l1", "ui8", 0), m.ptr("fb", "ui8", 0), 2,
                                      nburst=(2, 0, 1)))
    same_buffers(a, b, [(a.ptr("fb", "ui8", 0), 1024)])
    a, b = both(lambda m: m.write(m.ptr("l1", "ui8", 0), np.arange(256, dtype=np.uint8)),
                lambda m: m.load_cbuf_to_ca_mx(m.ptr("l1", "f8E4M3FN", 0),
                                               m.ptr("l0a", "f8E4M3FN", 512), 32, 128),
                lambda m: m.mte_l1_l0a_mx(m.ptr("l1", "f8E4M3FN", 0),
                                          m.ptr("l0a", "f8E4M3FN", 512), 32, 128))
    same_buffers(a, b, [(a.ptr("l0a_mx", "ui8", 0), 256)])
    with pytest.raises(ptosim.VerifyError, match=r"^load_cbuf_to_ca_mx: k = 32 must be"):
        a.load_cbuf_to_ca_mx(a.ptr("l1", "f8E4M3FN", 0), a.ptr("l0a", "f8E4M3FN", 0), 16, 32)


def test_data_select_bit_pads_with_the_set_mov_pad_val_register():
    """copy_gm_to_ubuf with data_select_bit = mte_gm_ub with pad=(register value, left,
    right): [left x v][data][right x v], then v up to the next 32 B."""
    data = np.arange(30, dtype=np.float16)
    m, ref = fresh(), fresh()
    m.set_mov_pad_val(np.float16(-1.5))
    m.copy_gm_to_ubuf(m.gm(data), m.ptr("ub", "f16", 0), 0, 3, 20, 2, 1, True, 0, 20, 64)
    ref.mte_gm_ub(ref.gm(data), ref.ptr("ub", "f16", 0), 0, 20, nburst=(3, 20, 64),
                  pad=(np.float16(-1.5), 2, 1))
    same_buffers(m, ref, [(m.ptr("ub", "ui8", 0), 256)])
    row = m.read(m.ptr("ub", "f16", 64), 32)
    np.testing.assert_array_equal(row[:16], np.r_[[-1.5] * 2, np.arange(10, 20), [-1.5] * 4])
    assert m.regs["mov_pad_val"] == (0xBE00, 2)
    m.set_mov_pad_val(-2, value_type="i16")                  # the text form passes the type
    assert m.regs["mov_pad_val"] == (0xFFFE, 2)
    with pytest.raises(ptosim.VerifyError, match=r"^copy_gm_to_ubuf: the pad value was set as "
                       r"a 2-byte scalar but ub_dst holds 4-byte f32 elements"):
        m.copy_gm_to_ubuf(m.gm(data), m.ptr("ub", "f32", 0), 0, 1, 20, 0, 0, True, 0, 20, 64)
    with pytest.raises(ptosim.VerifyError, match=r"^copy_gm_to_ubuf: data_select_bit = 1 pads "
                       r"with the set_mov_pad_val register, which was never set"):
        fresh().copy_gm_to_ubuf(m.gm(data), m.ptr("ub", "f16", 0), 0, 1, 20, 0, 0, True, 0,
                                20, 64)
    with pytest.raises(ptosim.VerifyError, match=r"^set_mov_pad_val: the pad value must be an "
                       r"i8, i16, i32, f16, bf16 or f32 scalar, got 1.0 of type f64"):
        m.set_mov_pad_val(1.0, value_type="f64")
    with pytest.raises(ptosim.FieldRangeError, match=r"^set_mov_pad_val: value = "):
        m.set_mov_pad_val(200, value_type="i8")


def test_set_mov_pad_val_from_text():
    text = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%a: !pto.ptr<bf16, gm>, %b: !pto.ptr<bf16, gm>) attributes {pto.aicore} {
    %true = arith.constant true
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c20 = arith.constant 20 : i64
    %c32 = arith.constant 32 : i64
    %pv = arith.constant 2.5 : bf16
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<bf16, ub>
    pto.set_mov_pad_val %pv : bf16
    pto.copy_gm_to_ubuf %a, %ub, %c0, %c1, %c20, %c0, %c0, %true, %c0, %c20, %c32
      : !pto.ptr<bf16, gm>, !pto.ptr<bf16, ub>, i64, i64, i64, i64, i64, i1, i64, i64, i64
    pto.copy_ubuf_to_gm %ub, %b, %c0, %c1, %c32, %c0, %c32, %c32
      : !pto.ptr<bf16, ub>, !pto.ptr<bf16, gm>, i64, i64, i64, i64, i64, i64
    return
  }
}
"""
    a = np.arange(10).astype(ml_dtypes.bfloat16)
    out = Kernel.from_text(text, "k.pto").run({"a": a, "b": np.zeros(16, ml_dtypes.bfloat16)})
    np.testing.assert_array_equal(out.outputs["b"].astype(np.float32),
                                  np.r_[np.arange(10), [2.5] * 6])
    assert "pto.set_mov_pad_val %pv : bf16" in print_module(parse_module(text))
