"""The indexed UB loads and stores (rows of `ptosim.isa.vector_gather`): each op against an
independent loop formulation, partial masks, duplicate indices, the located bounds errors,
the exact bytes each op hands to the hazard checker, and every verifier rule."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import OutOfBoundsError, PtoSyntaxError, PtoTypeError, PtoValueError
from ptosim.frontend import parse_module, print_module
from ptosim.isa import REGISTRY
from ptosim.vector import Mask, VReg
from test_vector import kernel, run_copy

RNG = np.random.default_rng(17)
UB = 256 * 1024                     # a5 UB bytes


def machine_with(x: np.ndarray, addr: int = 0):
    m = ptosim.Machine()
    p = m.ptr("ub", ptosim.dtype(x.dtype.name), addr)
    m.write(p, x)
    return m, p


def record(m):
    seen = []
    m.access_hook = lambda data, start, n, access, operand, op, runs: seen.append((start, n, access))
    return seen


# --- vgather2 / vgather2_bc ---------------------------------------------------------------------
@pytest.mark.parametrize("op, dt, idt, g", [
    ("vgather2", "f32", "i32", 32), ("vgather2", "i32", "ui32", 32),
    ("vgather2", "f16", "i16", 16), ("vgather2", "ui8", "ui8", 8),
    ("vgather2_bc", "f32", "i32", 32), ("vgather2_bc", "i32", "ui32", 32)])   # 32-bit only
def test_gather_picks_elements_and_zeroes_inactive_lanes(op, dt, idt, g):
    n = 256 // ptosim.dtype(dt).size
    table = RNG.integers(0, 256, 3000, dtype=np.uint8)
    m, p = machine_with(table, 64)
    base = p.cast(dt)
    limit = min(3000 // ptosim.dtype(dt).size, 1 << (8 * ptosim.dtype(idt).size))
    idx = RNG.integers(0, limit, n)
    idx[3] = idx[5]                                         # a duplicate index
    act = RNG.random(n) < 0.6
    act[3] = act[5] = True
    offsets = VReg.from_lanes(idx.astype(ptosim.dtype(idt).np), idt)
    out = getattr(m, op)(base, offsets, Mask.from_lanes(act, g), dtype=dt)
    size = ptosim.dtype(dt).size
    expect = b""
    for i in range(n):                                      # one element per active lane
        expect += table[idx[i] * size:(idx[i] + 1) * size].tobytes() if act[i] \
            else bytes(size)
    assert out.dtype.name == dt and out.raw.tobytes() == expect


def test_gather_touches_only_the_addressed_elements():
    m, p = machine_with(np.arange(1024, dtype=np.float32))
    seen = record(m)
    idx = np.zeros(64, np.int32)
    idx[:3] = [7, 500, 7]
    m.vgather2(p, VReg.from_lanes(idx, "i32"), Mask.from_lanes(np.arange(64) < 3, 32))
    assert seen == [(28, 4, "R"), (2000, 4, "R"), (28, 4, "R")]


@pytest.mark.parametrize("op", ["vgather2", "vgather2_bc"])
def test_gather_index_out_of_ub_is_located(op):
    m, p = machine_with(np.zeros(64, np.float32), 1024)
    idx = np.arange(64, dtype=np.int64)
    idx[9] = (UB - 1024) // 4                               # first element past UB
    idx[20] = -1                                            # read unsigned: far past UB
    act = np.ones(64, bool)
    with pytest.raises(OutOfBoundsError, match=rf"{op}: lane 9: index {idx[9]} addresses ub "
                       rf"bytes \[{UB}, {UB + 4}\) outside the ub range \[0, {UB}\)"):
        getattr(m, op)(p, VReg.from_lanes(idx.astype(np.int32), "i32"),
                       Mask.from_lanes(act, 32))
    act[9] = act[20] = False                                # inactive lanes issue no request
    out = getattr(m, op)(p, VReg.from_lanes(idx.astype(np.int32), "i32"),
                         Mask.from_lanes(act, 32))
    assert out.lanes[9] == 0 and out.lanes[20] == 0


def test_gather_runtime_rules():
    m, p = machine_with(np.zeros(64, np.float32))
    full = Mask.from_lanes(np.ones(64, bool), 32)
    with pytest.raises(PtoTypeError, match="vgather2_bc: offsets has i16 elements; "
                                           "vgather2_bc takes 32-bit indices"):
        m.vgather2_bc(p.cast("f16"), VReg.zeros("i16"),
                      Mask.from_lanes(np.ones(128, bool), 16))
    with pytest.raises(PtoTypeError, match="vgather2: offsets has f32 elements; indices are "
                                           "integers"):
        m.vgather2(p, VReg.zeros("f32"), full)
    with pytest.raises(PtoTypeError, match="vgather2: offsets has 128 lanes but the data "
                                           "register has 64"):
        m.vgather2(p, VReg.zeros("i16"), full)
    with pytest.raises(PtoTypeError, match="vgather2: mask is b16 but the result holds f32"):
        m.vgather2(p, VReg.zeros("i32"), Mask.from_lanes(np.ones(128, bool), 16))


# --- vgatherb -----------------------------------------------------------------------------------
def test_vgatherb_reads_32_byte_blocks():
    table = RNG.integers(0, 256, 4096, dtype=np.uint8)
    m, p = machine_with(table, 512)
    seen = record(m)
    offs = np.zeros(64, np.int32)
    offs[:8] = [0, 32, 480, 4064, 96, 0, 2048, 64]
    offs[8:] = 7                                            # ignored: only 8 blocks
    act = np.array([1, 1, 0, 1, 1, 1, 0, 1] + [0] * 56, bool)
    out = m.vgatherb(p.cast("f32"), VReg.from_lanes(offs, "i32"), Mask.from_lanes(act, 32))
    expect = b""
    for b in range(8):
        expect += table[offs[b]:offs[b] + 32].tobytes() if act[b] else bytes(32)
    assert out.raw.tobytes() == expect
    assert seen == [(512 + int(offs[b]), 32, "R") for b in range(8) if act[b]]


def test_vgatherb_rules():
    m, p = machine_with(np.zeros(64, np.float32), 64)
    full = Mask.from_lanes(np.ones(64, bool), 32)
    offs = np.zeros(64, np.int32)
    offs[2] = 40
    with pytest.raises(PtoValueError, match="vgatherb: lane 2: byte offset 40 is not a "
                                            "multiple of 32"):
        m.vgatherb(p, VReg.from_lanes(offs, "i32"), full)
    offs[2] = UB - 64
    with pytest.raises(OutOfBoundsError, match=rf"vgatherb: lane 2: byte offset {UB - 64} "
                       rf"addresses ub bytes \[{UB}, {UB + 32}\) outside the ub range"):
        m.vgatherb(p, VReg.from_lanes(offs, "i32"), full)
    with pytest.raises(PtoValueError, match="vgatherb: source is at ub byte 68, not 32-byte"):
        m.vgatherb(p + 1, VReg.zeros("i32"), full)
    with pytest.raises(PtoTypeError, match="vgatherb: mask is b16; vgatherb takes a b32"):
        m.vgatherb(p, VReg.zeros("i32"), Mask.from_lanes(np.ones(128, bool), 16))
    with pytest.raises(PtoTypeError, match="vgatherb: offsets has i16 elements"):
        m.vgatherb(p, VReg.zeros("i16"), full)


# --- vscatter -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["f32", "i32", "ui32"])
def test_vscatter_writes_active_lanes_last_duplicate_wins(dt):
    m, p = machine_with(np.full(512, 9, np.uint8))
    base = p.cast(dt)
    seen = record(m)
    v = VReg(dt, RNG.integers(0, 256, 256, dtype=np.uint8))
    idx = RNG.permutation(128)[:64]
    idx[10] = idx[40]                                       # lanes 10 and 40 collide
    act = RNG.random(64) < 0.5
    act[10] = act[40] = True
    m.vscatter(v, base, VReg.from_lanes(idx.astype(np.int32), "i32"), Mask.from_lanes(act, 32))
    touched = list(seen)
    expect = np.full(512, 9, np.uint8)
    for i in range(64):                                     # ascending lanes: the last wins
        if act[i]:
            expect[idx[i] * 4:idx[i] * 4 + 4] = v.raw[i * 4:i * 4 + 4]
    assert m.read(p, 512).tolist() == expect.tolist()
    assert touched == [(int(idx[i]) * 4, 4, "W") for i in range(64) if act[i]]


def test_vscatter_checks_every_index_before_writing():
    m, p = machine_with(np.zeros(64, np.float32))
    idx = np.arange(64, dtype=np.int32)
    idx[63] = UB // 4
    with pytest.raises(OutOfBoundsError, match=rf"vscatter: lane 63: index {UB // 4} addresses"
                       rf" ub bytes \[{UB}, {UB + 4}\) outside the ub range \[0, {UB}\)"):
        m.vscatter(VReg.full(1.0, "f32"), p, VReg.from_lanes(idx, "i32"),
                   Mask.from_lanes(np.ones(64, bool), 32))
    assert not m.read(p, 64).any()                          # nothing was written
    with pytest.raises(PtoTypeError, match="vscatter: value has i64 elements"):
        m.vscatter(VReg.zeros("i64"), p.cast("i64"), VReg.zeros("i32"),
                   Mask.from_lanes(np.ones(64, bool), 32))
    with pytest.raises(PtoTypeError, match="vscatter: offsets has i16 elements; vscatter "
                                           "takes 32-bit indices"):
        m.vscatter(VReg.zeros("f16"), p.cast("f16"), VReg.zeros("i16"),
                   Mask.from_lanes(np.ones(128, bool), 16))


# --- text ---------------------------------------------------------------------------------------
TEXT = """    %c8 = arith.constant 8 : index
    pto.vecscope {
      %m = pto.pset_b32 "PAT_VL8" : !pto.mask<b32>
      %o = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xi32>
      %ob = pto.vlds %in[%c8] : !pto.ptr<f32, ub> -> !pto.vreg<64xi32>
      %g = pto.vgather2 %in, %o, %m : !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %h = pto.vgather2_bc %in, %o, %m : !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %b = pto.vgatherb %in, %ob, %m : !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      pto.vscatter %g, %out, %o, %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32>
      %all = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      pto.vsts %h, %out[%c64], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      %c128 = arith.constant 128 : index
      pto.vsts %b, %out[%c128], %all : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
"""


def test_text_round_trips_and_runs():
    printed = print_module(parse_module(kernel(TEXT), "k.pto"))
    for line in TEXT.splitlines()[5:9]:
        assert line.strip() in printed
    assert print_module(parse_module(printed, "k.pto")) == printed
    x = np.zeros(256, np.float32)
    x.view(np.int32)[:8] = [56, 0, 8, 48, 16, 40, 24, 32]   # element indices
    x.view(np.int32)[8:16] = [96, 0, 224, 32, 64, 192, 160, 128]  # 32-byte block offsets
    x[16:] = np.arange(16, 256)
    y = run_copy(TEXT, x)
    xi = x.view(np.int32)
    g = [x[xi[i]] for i in range(8)]
    assert [y[xi[i]] for i in range(8)] == g                # scattered back to the indices
    assert y[64:72].tolist() == g and not y[72:128].any()
    blocks = [x[xi[8 + b] // 4:xi[8 + b] // 4 + 8] for b in range(8)]
    assert y[128:192].tolist() == np.concatenate(blocks).tolist()


@pytest.mark.parametrize("line, match", [
    ("%r = pto.vgather2 %x, %o, %m : !pto.ptr<f32, gm>, !pto.vreg<64xi32>, !pto.mask<b32> "
     "-> !pto.vreg<64xf32>", "pto.vgather2: source must point into ub, got a gm pointer"),
    ("%r = pto.vgather2 %in, %a, %m : !pto.ptr<f32, ub>, !pto.vreg<64xf32>, !pto.mask<b32> "
     "-> !pto.vreg<64xf32>", "pto.vgather2: offsets has f32 elements; indices are integers"),
    ("%r = pto.vgather2 %in, %o, %m : !pto.ptr<f32, ub>, !pto.vreg<64xi32>, !pto.mask<b32> "
     "-> !pto.vreg<64xi32>", "pto.vgather2: source points to f32 but the result holds i32"),
    ("%r = pto.vgather2 %h, %s, %m : !pto.ptr<f16, ub>, !pto.vreg<128xi16>, !pto.mask<b32> "
     "-> !pto.vreg<128xf16>",
     r"pto.vgather2: mask is !pto.mask<b32> but result has f16 elements; it takes "
     r"!pto.mask<b16>"),
    ("%r = pto.vgather2 %h, %o, %m16 : !pto.ptr<f16, ub>, !pto.vreg<64xi32>, !pto.mask<b16> "
     "-> !pto.vreg<128xf16>",
     r"pto.vgather2: offsets \(i32\) must have as many lanes as result \(f16\)"),
    ("%r = pto.vgather2_bc %h, %s, %m16 : !pto.ptr<f16, ub>, !pto.vreg<128xi16>, "
     "!pto.mask<b16> -> !pto.vreg<128xf16>",
     "pto.vgather2_bc: offsets has i16 elements; this op takes 32-bit offsets"),
    ("%r = pto.vgatherb %h, %s, %m16 : !pto.ptr<f16, ub>, !pto.vreg<128xi16>, "
     "!pto.mask<b16> -> !pto.vreg<128xf16>",
     "pto.vgatherb: offsets has i16 elements; this op takes 32-bit offsets"),
    ("%r = pto.vgatherb %in, %o, %m16 : !pto.ptr<f32, ub>, !pto.vreg<64xi32>, "
     "!pto.mask<b16> -> !pto.vreg<64xf32>",
     r"pto.vgatherb: mask is !pto.mask<b16> but result has f32 elements; it takes "
     r"!pto.mask<b32>"),
    ("pto.vscatter %a, %out, %a, %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, "
     "!pto.vreg<64xf32>, !pto.mask<b32>",
     "pto.vscatter: offsets has f32 elements; indices are integers"),
    ("pto.vscatter %o, %out, %o, %m : !pto.vreg<64xi32>, !pto.ptr<f32, ub>, "
     "!pto.vreg<64xi32>, !pto.mask<b32>",
     "pto.vscatter: destination points to f32 but value holds i32"),
    ("pto.vscatter %a, %y, %o, %m : !pto.vreg<64xf32>, !pto.ptr<f32, gm>, "
     "!pto.vreg<64xi32>, !pto.mask<b32>",
     "pto.vscatter: destination must point into ub, got a gm pointer"),
    ("pto.vscatter %a, %out, %o, %m16 : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, "
     "!pto.vreg<64xi32>, !pto.mask<b16>",
     r"pto.vscatter: mask is !pto.mask<b16> but value has f32 elements"),
])
def test_verifier_rules(line, match):
    body = ("    %h = pto.castptr %c0_i64 : i64 -> !pto.ptr<f16, ub>\n"
            "    pto.vecscope {\n"
            "      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
            "      %m16 = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n"
            "      %a = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
            "      %o = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xi32>\n"
            "      %s = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<128xi16>\n"
            f"      {line}\n    }}\n")
    text = kernel(body)
    with pytest.raises(PtoSyntaxError, match=match) as err:
        parse_module(text, "k.pto")
    row = next(i for i, ln in enumerate(text.splitlines(), 1) if line[:24] in ln)
    assert err.value.loc.startswith(f"k.pto:{row}:")


def test_rows_are_registered():
    from ptosim.isa import vector_gather
    assert [r.name for r in vector_gather.ROWS] == ["vgather2", "vgather2_bc", "vgatherb",
                                                    "vscatter"]
    for r in vector_gather.ROWS:
        assert REGISTRY[r.name] is r and r.pipe == "V" and r.core == "vector"
        assert callable(getattr(ptosim.Machine, r.method))


def test_vgather2_bc_sparse_gate_like_the_gym_case():
    """Gym gather-scatter/vgather2_bc-sparse-mask, with its vcmps "lt 64" gate computed
    here: 1024 offsets (17 k + 3) mod 1024 in 16 chunks; only offsets < 64 are gathered. The
    64 source floats sit at the top of UB, so every other offset would be out of bounds:
    those lanes issue no request."""
    table = RNG.uniform(-8, 8, 64).astype(np.float32)
    m, p = machine_with(table, UB - 256)
    offsets = (np.arange(1024, dtype=np.int32) * 17 + 3) % 1024
    got = []
    for chunk in offsets.reshape(16, 64):
        gate = Mask.from_lanes(chunk < 64, 32)
        got.append(m.vgather2_bc(p, VReg.from_lanes(chunk, "i32"), gate).lanes)
    expect = np.where(offsets < 64, table[np.minimum(offsets, 63)], 0).astype(np.float32)
    assert np.concatenate(got).tolist() == expect.tolist()
