"""The vector machine model and the non-arithmetic vector micro ops (rows of
`ptosim.isa.vector`): values, types, vecscopes, the generic text family and its verifier,
and each op's semantics against an independent numpy formulation."""

import numpy as np
import pytest

import ptosim
from ptosim.errors import PtoError, PtoSyntaxError, PtoTypeError, PtoValueError, SpaceError
from ptosim.frontend import parse_module, print_module
from ptosim.isa import REGISTRY, spec
from ptosim.kernel import Kernel
from ptosim.vector import Align, Mask, VReg

RNG = np.random.default_rng(7)


# --- values ------------------------------------------------------------------------------
@pytest.mark.parametrize("dt, n", [("f32", 64), ("f16", 128), ("bf16", 128), ("ui8", 256),
                                   ("si16", 128), ("i64", 32)])
def test_vreg_lanes_and_views_keep_the_bytes(dt, n):
    raw = RNG.integers(0, 256, 256, dtype=np.uint8)
    v = VReg(dt, raw)
    assert v.n == n and v.type_name == f"vreg<{n}x{dt}>"
    assert v.lanes.tobytes() == raw.tobytes()
    assert VReg.from_lanes(v.lanes, dt) == v
    assert v.view("ui8").lanes.tolist() == raw.tolist()
    with pytest.raises(PtoValueError, match=f"a vreg of {dt} has {n} lanes"):
        VReg.from_lanes(np.zeros(n + 1), dt)
    assert not v.lanes.flags.writeable           # values are immutable (SSA)


@pytest.mark.parametrize("g", [8, 16, 32])
def test_mask_lane_i_is_image_bit_i_times_g_over_8(g):
    n = 2048 // g
    act = RNG.random(n) < 0.5
    m = Mask.from_lanes(act, g)
    expect = np.zeros(256, bool)
    for i in range(n):                           # the layout rule, one lane at a time
        expect[i * g // 8] = act[i]
    assert m.bits.tolist() == expect.tolist()
    assert m.lanes.tolist() == act.tolist()
    img = m.to_bytes()                            # psts NORM image: little-endian bits
    for k in range(256):
        assert bool(img[k // 8] >> (k % 8) & 1) == expect[k]
    assert Mask.from_bytes(img, g) == m
    with pytest.raises(PtoTypeError, match="b4"):
        Mask.from_lanes(act, 4)


# --- helpers ---------------------------------------------------------------------------------
def kernel(body: str, kind: str = "vector", dt: str = "f32") -> str:
    kind_attr = "" if kind == "mixed" else f", pto.kernel_kind = #pto.kernel_kind<{kind}>"
    return (f"module attributes {{pto.target_arch = \"a5\"{kind_attr}}} {{\n"
            f"  func.func @k(%x: !pto.ptr<{dt}, gm>, %y: !pto.ptr<{dt}, gm>) attributes "
            "{pto.aicore} {\n"
            "    %c0 = arith.constant 0 : index\n    %c64 = arith.constant 64 : index\n"
            "    %c0_i64 = arith.constant 0 : i64\n    %c4096 = arith.constant 4096 : i64\n"
            f"    %in = pto.castptr %c0_i64 : i64 -> !pto.ptr<{dt}, ub>\n"
            f"    %out = pto.castptr %c4096 : i64 -> !pto.ptr<{dt}, ub>\n"
            f"{body}    return\n  }}\n}}\n")


def run_copy(body: str, x: np.ndarray, dt: str = "f32", kind: str = "vector") -> np.ndarray:
    """Copy x (1 KiB) GM -> UB in, run ``body``, copy UB out -> GM y."""
    n = x.size
    nb = x.nbytes
    text = kernel(
        f"    %nb = arith.constant {nb} : i64\n    %one = arith.constant 1 : i64\n"
        "    pto.mte_gm_ub %x, %in, %c0_i64, %nb nburst(%one, %nb, %nb)"
        f" : !pto.ptr<{dt}, gm>, !pto.ptr<{dt}, ub>, i64, i64, i64, i64, i64\n"
        + body +
        f"    pto.mte_ub_gm %out, %y, %nb nburst(%one, %nb, %nb) : !pto.ptr<{dt}, ub>, "
        f"!pto.ptr<{dt}, gm>, i64, i64, i64, i64\n", kind, dt)
    res = Kernel.from_text(text, "k.pto").run({"x": x, "y": np.zeros(n, x.dtype)})
    return res.outputs["y"]


def syntax_error(body: str, match: str) -> PtoSyntaxError:
    with pytest.raises(PtoSyntaxError, match=match) as err:
        parse_module(kernel(body), "k.pto")
    return err.value


# --- text: types, scopes, round trips ------------------------------------------------------
ROUND_TRIP = """    pto.vecscope {
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %k, %r = pto.plt_b32 %n : i32 -> !pto.mask<b32>, i32
      %v = pto.vlds %in[%c0] {dist = "BRC_B16"} : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      %w, %p = pto.vlds %in[%c64] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>, !pto.ptr<f32, ub>
      pto.vsts %v, %out[%c0], %m {dist = "NORM_B32"} : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
      %lo, %hi = pto.vldsx2 %in[%c0], "DINTLV_B32" : !pto.ptr<f32, ub>, index -> !pto.vreg<64xf32>, !pto.vreg<64xf32>
      pto.psts %m, %b[%c0], "PK" : !pto.mask<b32>, !pto.ptr<ui8, ub>, index
      %a = pto.init_align : !pto.align
      pto.sprclr "AR"
      %d = pto.vdup %v, %m {position = "HIGHEST"} : !pto.vreg<64xf32>, !pto.mask<b32> -> !pto.vreg<64xf32>
      %s = pto.load_scalar %in[%c0] : !pto.ptr<f32, ub> -> f32
      pto.store_scalar %s, %out[%c64] : !pto.ptr<f32, ub>, f32
    }
"""


def test_text_round_trips():
    body = ("    %n = arith.constant 70 : i32\n"
            "    %b = pto.castptr %c0_i64 : i64 -> !pto.ptr<ui8, ub>\n" + ROUND_TRIP)
    printed = print_module(parse_module(kernel(body), "k.pto"))
    for line in ROUND_TRIP.splitlines()[1:-1]:
        assert line.strip() in printed
    assert print_module(parse_module(printed, "k.pto")) == printed


def test_strict_vecscope_round_trips_and_runs():
    body = ("    pto.strict_vecscope(%in, %out) {\n"
            "    ^bb0(%i: !pto.ptr<f32, ub>, %o: !pto.ptr<f32, ub>):\n"
            "      %c0_0 = arith.constant 0 : index\n"
            "      %m = pto.pset_b32 \"PAT_VL8\" : !pto.mask<b32>\n"
            "      %v = pto.vlds %i[%c0_0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
            "      pto.vsts %v, %o[%c0_0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, "
            "!pto.mask<b32>\n"
            "    } : (!pto.ptr<f32, ub>, !pto.ptr<f32, ub>) -> ()\n")
    printed = print_module(parse_module(kernel(body), "k.pto"))
    assert "pto.strict_vecscope(%in, %out) {" in printed
    assert print_module(parse_module(printed, "k.pto")) == printed
    x = np.arange(64, dtype=np.float32) + 1
    y = run_copy(body, x)
    assert y[:8].tolist() == x[:8].tolist() and not y[8:].any()


@pytest.mark.parametrize("body, needle, match", [
    ("%a = pto.init_align : !pto.vreg<128xf32>", "128xf32",
     r"128 lanes of f32 are 512 bytes; a vector register is 256 bytes \(64xf32\)"),
    ("%a = pto.init_align : !pto.mask<b64>", "b64", "unknown mask width 'b64'"),
    ("%a = pto.init_align : !pto.vreg<64xf64>", "f64", "f64"),
])
def test_bad_types_are_located(body, needle, match):
    text = kernel(f"    pto.vecscope {{\n      {body}\n    }}\n")
    with pytest.raises(PtoSyntaxError, match=match) as err:
        parse_module(text, "k.pto")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)
    assert err.value.loc.startswith(f"k.pto:{line}:")


@pytest.mark.parametrize("body, match", [
    # vector values outside a vecscope
    ("    %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n",
     "pto.pset_b32 takes or yields vector registers, masks or align state: it must be "
     "inside a pto.vecscope"),
    # nesting
    ("    pto.vecscope {\n      pto.vecscope {\n      }\n    }\n",
     "pto.vecscope: vector scopes do not nest"),
    # mask width vs element width
    ("    pto.vecscope {\n      %m = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n"
     "      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
     "      pto.vsts %v, %out[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b16>\n"
     "    }\n",
     r"pto.vsts: mask is !pto.mask<b16> but value has f32 elements; it takes !pto.mask<b32>"),
    # dist vs width
    ("    pto.vecscope {\n      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
     "      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
     "      pto.vsts %v, %out[%c0], %m {dist = \"NORM_B16\"} : !pto.vreg<64xf32>, "
     "!pto.ptr<f32, ub>, !pto.mask<b32>\n    }\n",
     "pto.vsts: dist NORM_B16 does not match the 32-bit elements of value"),
    # unknown mode words, attributes
    ("    pto.vecscope {\n      %v = pto.vlds %in[%c0] {dist = \"BRC_B64\"} : "
     "!pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n    }\n",
     "pto.vlds: dist must be one of NORM, BRC_B8"),
    ("    pto.vecscope {\n      %v = pto.vlds %in[%c0] {mode = \"NORM\"} : "
     "!pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n    }\n",
     r"pto.vlds: unknown attribute 'mode' \(known: dist\)"),
    ("    pto.vecscope {\n      %m = pto.pset_b32 \"PAT_H2\" : !pto.mask<b32>\n    }\n",
     "pto.pset_b32: pattern must be one of PAT_ALL"),
    ("    pto.vecscope {\n      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b8>\n    }\n",
     r"pto.pset_b32: the result is a b32 mask, got !pto.mask<b8>"),
    # UB only
    ("    pto.vecscope {\n      %v = pto.vlds %x[%c0] : !pto.ptr<f32, gm> -> !pto.vreg<64xf32>\n"
     "    }\n", "pto.vlds: source must point into ub, got a gm pointer"),
    # operand kinds
    ("    pto.vecscope {\n      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> i32\n    }\n",
     r"pto.vlds: result result must be a !pto.vreg<NxT>, got i32"),
    ("    %n = arith.constant 3 : i64\n    pto.vecscope {\n"
     "      %k, %r = pto.plt_b32 %n : i64 -> !pto.mask<b32>, i64\n    }\n",
     r"pto.plt_b32: the form is i32 -> !pto.mask<b32>, i32"),
    ("    pto.vecscope {\n      %m = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
     "      %n = pto.pset_b16 \"PAT_ALL\" : !pto.mask<b16>\n"
     "      %r = pto.pand %m, %n, %m : !pto.mask<b32>, !pto.mask<b16>, !pto.mask<b32> "
     "-> !pto.mask<b32>\n    }\n",
     r"pto.pand: src1 is !pto.mask<b16> but src0 is !pto.mask<b32>; they must match"),
    ("    pto.vecscope {\n      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> "
     "!pto.vreg<64xf32>, !pto.ptr<f16, ub>\n    }\n",
     "pto.vlds: the updated base must have the type of source"),
    ("    pto.vecscope {\n      pto.sprclr \"SQZN\"\n    }\n",
     r"pto.sprclr: spr must be one of AR \(quoted\), got \"SQZN\""),
])
def test_verifier_rules(body, match):
    syntax_error(body, match)


def test_vector_values_do_not_live_outside_a_vecscope():
    text = kernel("").replace("func.func @k(%x: !pto.ptr<f32, gm>,",
                              "func.func @k(%q: !pto.mask<b32>, %x: !pto.ptr<f32, gm>,")
    with pytest.raises(PtoSyntaxError, match=r"func\.func takes, yields or binds vector "
                       r"registers, masks or align state outside a pto\.vecscope"):
        parse_module(text, "k.pto")


def test_vector_ops_run_only_on_vector_cores():
    body = ("    pto.section.cube {\n      pto.vecscope {\n      }\n    }\n")
    text = kernel(body, kind="mixed")
    with pytest.raises(PtoError, match=r"pto\.vecscope runs on the vector cores"):
        Kernel.from_text(text, "k.pto").run({"x": np.zeros(64, np.float32),
                                             "y": np.zeros(64, np.float32)})


def test_vregs_flow_through_scf_for_iter_args():
    body = ("    %c4 = arith.constant 4 : index\n    %c1 = arith.constant 1 : index\n"
            "    pto.vecscope {\n"
            "      %z = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
            "      %m0 = pto.pset_b32 \"PAT_ALLF\" : !pto.mask<b32>\n"
            "      %v, %m = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %z, %k = %m0) "
            "-> (!pto.vreg<64xf32>, !pto.mask<b32>) {\n"
            "        %off = arith.muli %i, %c64 : index\n"
            "        %n = pto.vlds %in[%off] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
            "        %all = pto.pset_b32 \"PAT_ALL\" : !pto.mask<b32>\n"
            "        %k2 = pto.pnot %k, %all : !pto.mask<b32>, !pto.mask<b32> -> !pto.mask<b32>\n"
            "        scf.yield %n, %k2 : !pto.vreg<64xf32>, !pto.mask<b32>\n      }\n"
            "      pto.vsts %v, %out[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, "
            "!pto.mask<b32>\n    }\n")
    x = RNG.standard_normal(256).astype(np.float32)
    y = run_copy(body, x)
    assert y[:64].tolist() == [0.0] * 64            # pnot toggled 4 times: all off again
    body2 = body.replace("%c4 = arith.constant 4", "%c4 = arith.constant 3")
    y = run_copy(body2, x)
    assert y[:64].tolist() == x[128:192].tolist()   # the last loaded vreg, all lanes


# --- loads ----------------------------------------------------------------------------------
def machine_with(x: np.ndarray, addr: int = 0):
    m = ptosim.Machine()
    p = m.ptr("ub", ptosim.dtype(x.dtype.name if x.dtype.name != "bfloat16" else "bf16"),
              addr)
    m.write(p, x)
    return m, p


def expect_load(src: np.ndarray, dist: str) -> np.ndarray:
    """Independent formulation of each load distribution on the byte image."""
    if dist == "NORM":
        return src[:256]
    if dist.startswith("BRC_B") and dist != "BRC_BLK":
        k = int(dist[5:]) // 8
        return np.array([src[i % k] for i in range(256)], np.uint8)
    if dist == "BRC_BLK":
        return np.array([src[i % 32] for i in range(256)], np.uint8)
    k = int(dist.split("_B")[1]) // 8
    units = [src[j * k:(j + 1) * k] for j in range(len(src) // k)]
    if dist.startswith("US"):
        return np.concatenate([units[i // 2] for i in range(256 // k)])
    if dist.startswith("DS"):
        return np.concatenate([units[2 * i] for i in range(256 // k)])
    out = []                                        # UNPK
    for i in range(128 // k):
        out += list(units[i]) + [0] * k
    return np.array(out, np.uint8)


@pytest.mark.parametrize("dist", ptosim.vector.ops.VLDS_DISTS)
@pytest.mark.parametrize("dt", ["f32", "f16", "ui8"])
def test_vlds_every_dist(dist, dt):
    src = RNG.integers(0, 256, 512, dtype=np.uint8)
    m, p = machine_with(src)
    v = m.vlds(p.cast(dt), 0, dist=dist, dtype=dt)
    assert v.dtype.name == dt
    assert v.raw.tolist() == expect_load(src, dist).tolist()


def test_vlds_offset_is_in_elements_and_post_update_loads_at_the_base():
    x = np.arange(256, dtype=np.float32)
    m, p = machine_with(x)
    assert m.vlds(p, 64).lanes.tolist() == x[64:128].tolist()
    v, nxt = m.vlds(p, 64, post_update=True)
    assert v.lanes.tolist() == x[:64].tolist() and nxt == p + 64


def test_vlds_reads_through_region_and_bounds():
    m = ptosim.Machine()
    top = m.ptr("ub", "f32", m.target.capacity["ub"] - 128)
    with pytest.raises(ptosim.OutOfBoundsError, match="vlds: source touches ub bytes"):
        m.vlds(top, 0)
    assert m.vlds(top, 0, dist="BRC_B32").n == 64       # 4 bytes: inside
    with pytest.raises(SpaceError, match="vlds: source must point into ub"):
        m.vlds(m.gm(np.zeros(64, np.float32)), 0)


@pytest.mark.parametrize("unit", [8, 16, 32])
def test_vldsx2_and_vstsx2_deinterleave_and_interleave(unit):
    src = RNG.integers(0, 256, 512, dtype=np.uint8)
    m, p = machine_with(src)
    dt = {8: "ui8", 16: "ui16", 32: "ui32"}[unit]
    lo, hi = m.vldsx2(p.cast(dt), 0, f"DINTLV_B{unit}")
    elems = src.view(f"u{unit // 8}")
    assert lo.lanes.tolist() == elems[0::2].tolist()
    assert hi.lanes.tolist() == elems[1::2].tolist()
    out = m.ptr("ub", dt, 4096)
    m.vstsx2(lo, hi, out, 0, f"INTLV_B{unit}", Mask(min(unit, 32), np.zeros(256, bool)))
    assert m.read(out.cast("ui8"), 512).tolist() == src.tolist()   # predicate does not gate
    with pytest.raises(PtoValueError, match="BDINTLV"):
        m.vldsx2(p, 0, "BDINTLV")


# --- stores ---------------------------------------------------------------------------------
def test_vsts_norm_writes_only_active_lanes():
    m = ptosim.Machine()
    out = m.ptr("ub", "f32", 0)
    m.write(out, np.full(64, -1, np.float32))
    v = VReg.from_lanes(np.arange(64, dtype=np.float32), "f32")
    act = RNG.random(64) < 0.5
    m.vsts(v, out, 0, Mask.from_lanes(act, 32))
    assert m.read(out, 64).tolist() == np.where(act, np.arange(64), -1).tolist()


def test_vsts_post_update_stores_at_the_base():
    m = ptosim.Machine()
    out = m.ptr("ub", "f32", 0)
    v = VReg.full(2.0, "f32")
    nxt = m.vsts(v, out, 64, Mask.from_lanes(np.ones(64, bool), 32), post_update=True)
    assert nxt == out + 64 and m.read(out, 64).tolist() == [2.0] * 64


@pytest.mark.parametrize("dist, dt", [("1PT_B8", "ui8"), ("1PT_B16", "f16"),
                                      ("1PT_B32", "f32")])
def test_vsts_1pt_writes_element_0_whatever_the_mask(dist, dt):
    m = ptosim.Machine()
    out = m.ptr("ub", "ui8", 0)
    m.write(out, np.full(256, 0xEE, np.uint8))
    v = VReg("ui8", RNG.integers(0, 256, 256, dtype=np.uint8)).view(dt)
    m.vsts(v, out.cast(dt), 0, Mask(min(v.dtype.size * 8, 32), np.zeros(256, bool)),
           dist=dist)
    k = v.dtype.size
    got = m.read(out, 256)
    assert got[:k].tolist() == v.raw[:k].tolist() and (got[k:] == 0xEE).all()


@pytest.mark.parametrize("dist, dt, slot, part", [
    ("PK_B16", "ui16", 2, 1), ("PK_B32", "f32", 4, 2), ("PK_B64", "f32", 8, 4),
    ("PK4_B32", "ui32", 4, 1)])
def test_vsts_pack_modes(dist, dt, slot, part):
    m = ptosim.Machine()
    out = m.ptr("ub", "ui8", 0)
    m.write(out, np.full(256, 0xEE, np.uint8))
    raw = RNG.integers(0, 256, 256, dtype=np.uint8)
    v = VReg("ui8", raw).view(dt)
    g = 16 if dist == "PK_B16" else 32
    act = RNG.random(Mask.lanes_for(g)) < 0.6
    mask = Mask.from_lanes(act, g)
    m.vsts(v, out.cast(dt), 0, mask, dist=dist)
    expect = np.full(256, 0xEE, np.uint8)
    for i in range(256 // slot):                    # slot i: its low `part` bytes, if active
        if mask.bits[i * slot]:
            expect[i * part:(i + 1) * part] = raw[i * slot:i * slot + part]
    assert m.read(out, 256).tolist() == expect.tolist()


# --- predicate loads / stores -----------------------------------------------------------------
def test_plds_and_psts_modes():
    img = RNG.integers(0, 256, 64, dtype=np.uint8)
    m, p = machine_with(img)
    bits = np.unpackbits(img, bitorder="little")
    norm = m.plds(p, 0, "NORM", g=32)
    assert norm.bits.tolist() == bits[:256].astype(bool).tolist()
    us = m.pldi(p, 0, "US", g=16)
    assert us.bits.tolist() == [bool(bits[k // 2]) for k in range(256)]
    ds = m.plds(p, 0, "DS", g=8)
    assert ds.bits.tolist() == [bool(bits[2 * k]) for k in range(256)]
    out = m.ptr("ub", "ui8", 1024)
    m.psts(norm, out, 0, "NORM")
    assert m.read(out, 32).tolist() == img[:32].tolist()
    m.write(out, np.zeros(32, np.uint8))
    m.psti(norm, out, 0, "PK")
    assert m.read(out, 32).tolist() == np.packbits(bits[:256:2], bitorder="little").tolist() \
        + [0] * 16


# --- predicate generation and logic ----------------------------------------------------------
@pytest.mark.parametrize("g", [8, 16, 32])
@pytest.mark.parametrize("pat", ptosim.vector.ops.PATTERNS)
def test_pset_and_pge_patterns(g, pat):
    n = 2048 // g
    want = {"PAT_ALL": [True] * n, "PAT_ALLF": [False] * n,
            "PAT_H": [i < n // 2 for i in range(n)], "PAT_Q": [i < n // 4 for i in range(n)],
            "PAT_M3": [i % 3 == 0 for i in range(n)], "PAT_M4": [i % 4 == 0 for i in range(n)]}
    if pat.startswith("PAT_VL"):
        want[pat] = [i < int(pat[6:]) for i in range(n)]
    m = ptosim.Machine()
    for op in ("pset", "pge"):
        mask = getattr(m, f"{op}_b{g}")(pat)
        assert mask.g == g and mask.lanes.tolist() == want[pat]


@pytest.mark.parametrize("g", [8, 16, 32])
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 128, 300, -1])
def test_plt_mask_and_post_decrement(g, n):
    vl = 2048 // g
    mask, left = ptosim.Machine().__getattribute__(f"plt_b{g}")(n)
    u = n % 2**32
    assert mask.lanes.tolist() == [i < u for i in range(vl)]
    expect = u - vl if u >= vl else 0
    assert left == (expect - 2**32 if expect >= 2**31 else expect)


def test_predicate_logic_is_gated_lane_by_lane():
    m = ptosim.Machine()
    a, b, gate = (RNG.random(128) < 0.5 for _ in range(3))
    A, B, G = (Mask.from_lanes(x, 16) for x in (a, b, gate))
    assert m.pand(A, B, G).lanes.tolist() == (a & b & gate).tolist()
    assert m.por(A, B, G).lanes.tolist() == ((a | b) & gate).tolist()
    assert m.pxor(A, B, G).lanes.tolist() == ((a ^ b) & gate).tolist()
    pn = m.pnot(A, G)
    assert pn.lanes.tolist() == (~a & gate).tolist()
    assert not pn.bits[1::2].any()                  # only lane bits are ever set
    assert m.psel(A, B, G).lanes.tolist() == np.where(gate, a, b).tolist()
    with pytest.raises(PtoTypeError, match="pand: src1 is a b32 mask but src0 is b16"):
        m.pand(A, B.view(32), G)


@pytest.mark.parametrize("g", [8, 16, 32])
def test_pintlv_and_pdintlv(g):
    n = 2048 // g
    a, b = RNG.random(n) < 0.5, RNG.random(n) < 0.5
    m = ptosim.Machine()
    lo, hi = getattr(m, f"pintlv_b{g}")(Mask.from_lanes(a, g), Mask.from_lanes(b, g))
    inter = [x for pair in zip(a, b) for x in pair]
    assert lo.lanes.tolist() == inter[:n] and hi.lanes.tolist() == inter[n:]
    lo, hi = getattr(m, f"pdintlv_b{g}")(Mask.from_lanes(a, g), Mask.from_lanes(b, g))
    cat = list(a) + list(b)
    assert lo.lanes.tolist() == cat[0::2] and hi.lanes.tolist() == cat[1::2]


def test_ppack_punpack_work_on_raw_bits_and_pbitcast_reinterprets():
    bits = RNG.random(256) < 0.5
    m = ptosim.Machine()
    x = Mask(32, bits)
    lo = m.ppack(x, "LOWER")
    assert lo.bits.tolist() == [bool(bits[2 * i]) for i in range(128)] + [False] * 128
    assert m.ppack(x, "HIGHER").bits.tolist() == [False] * 128 + lo.bits[:128].tolist()
    up = m.punpack(x, "LOWER")
    assert up.bits.tolist() == [bool(bits[k // 2]) if k % 2 == 0 else False for k in range(256)]
    uh = m.punpack(x, "HIGHER")
    assert uh.bits.tolist() == [bool(bits[128 + k // 2]) if k % 2 == 0 else False
                                for k in range(256)]
    b16 = Mask.from_lanes(RNG.random(128) < 0.5, 16)
    as32 = m.pbitcast(b16, g=32)
    assert as32.g == 32 and as32.lanes.tolist() == b16.bits[::4].tolist()


# --- materialisation -----------------------------------------------------------------------
def test_vbr_vdup_vci():
    m = ptosim.Machine()
    assert m.vbr(0x1234, dtype="ui8").lanes.tolist() == [0x34] * 256   # low 8 bits
    assert m.vbr(-1.5, dtype="f16").lanes.tolist() == [-1.5] * 128
    v = VReg.from_lanes(np.arange(64, dtype=np.int32) * 3, "i32")
    act = RNG.random(64) < 0.5
    k = Mask.from_lanes(act, 32)
    assert m.vdup(v, k).lanes.tolist() == np.where(act, 0, 0).tolist()
    assert m.vdup(v, k, position="HIGHEST").lanes.tolist() == np.where(act, 189, 0).tolist()
    assert m.vdup(7, k, dtype="i32").lanes.tolist() == np.where(act, 7, 0).tolist()
    assert m.vci(10, dtype="i16").lanes.tolist() == list(range(10, 138))
    assert m.vci(3, order="DESC", dtype="i8").lanes.tolist() == \
        [((3 - i + 128) % 256) - 128 for i in range(256)]
    assert m.vci(0.5, dtype="f32").lanes.tolist() == [0.5 + i for i in range(64)]


def test_scalar_load_store_and_special_registers():
    m = ptosim.Machine()
    p = m.ptr("ub", "i16", 64)
    m.store_scalar(-7, p, 3)
    assert m.load_scalar(p, 3) == -7 and m.read(p, 4).tolist() == [0, 0, 0, -7]
    g = m.gm(np.zeros(4, np.float32))
    m.store_scalar(2.5, g, 1)
    assert m.load_scalar(g, 1) == 2.5
    m.sprclr("AR")
    assert m.regs["AR"] == (0,)
    assert isinstance(m.init_align(), Align)


def test_runtime_queries_of_a_vector_only_launch():
    # a vector-only launch has one sub-block per block; a mixed one two
    for kind, want in (("vector", 1), ("mixed", 2)):
        t = kernel("    pto.section.vector {\n      %n = pto.get_subblock_num\n"
                   "      %p = pto.castptr %c0_i64 : i64 -> !pto.ptr<i64, ub>\n"
                   "      %o = arith.constant 0 : index\n"
                   "      pto.store_scalar %n, %y[%o] : !pto.ptr<i64, gm>, i64\n    }\n",
                   kind=kind, dt="i64")
        out = Kernel.from_text(t, "k.pto").run({"x": np.zeros(4, np.int64),
                                                "y": np.zeros(4, np.int64)})
        assert out.outputs["y"][0] == want


def test_rows_define_the_ops():
    """Each vector op is one registry row: op class, parser and Machine method from it."""
    from ptosim.isa import vector
    for row in vector.ROWS:
        assert REGISTRY[row.name] is row and row.syntax == "vector" and row.impl is not None
        assert callable(getattr(ptosim.Machine, row.method))
    assert spec("vlds").pipe == "V" and spec("vlds").core == "vector"
    assert spec("vecscope").kind == "structure"


# --- hazards: vector loads and stores of one vecscope need mem_bar on aliasing UB ----------
SCOPE = """    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.vecscope {
      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>
      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
      pto.vsts %v, %out[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
BAR1      %w = pto.vlds %out[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>
BAR2      pto.vsts %w, %in[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, !pto.mask<b32>
    }
    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]
"""


def run_scope(bar1: str, bar2: str):
    body = (SCOPE.replace("BAR1", f'      pto.mem_bar "{bar1}"\n' if bar1 else "")
            .replace("BAR2", f'      pto.mem_bar "{bar2}"\n' if bar2 else ""))
    text = kernel(
        "    %nb = arith.constant 256 : i64\n    %one = arith.constant 1 : i64\n"
        "    pto.mte_gm_ub %x, %in, %c0_i64, %nb nburst(%one, %nb, %nb)"
        " : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64\n" + body +
        "    pto.mte_ub_gm %out, %y, %nb nburst(%one, %nb, %nb) : !pto.ptr<f32, ub>, "
        "!pto.ptr<f32, gm>, i64, i64, i64, i64\n")
    x = np.arange(64, dtype=np.float32)
    res = Kernel.from_text(text, "k.pto").run({"x": x, "y": np.zeros(64, np.float32)})
    return text, res.findings


@pytest.mark.parametrize("bar1, bar2", [("VST_VLD", "VLD_VST"), ("VV_ALL", "VV_ALL")])
def test_mem_bars_order_aliasing_vector_loads_and_stores(bar1, bar2):
    assert run_scope(bar1, bar2)[1] == []


def test_missing_mem_bars_are_reported():
    text, found = run_scope("", "")
    by_kind = {f.kind: f for f in found}
    assert set(by_kind) == {"RAW", "WAR"}
    raw, war = by_kind["RAW"], by_kind["WAR"]
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "%w = pto.vlds" in ln)
    assert raw.loc == f"k.pto:{line}:7"
    assert "RAW hazard on block0 aiv0 ub bytes [4096, 4352): pto.vlds reads what pto.vsts" \
           in raw.message
    assert 'add pto.mem_bar "VST_VLD" (or "VV_ALL") between them' in raw.message
    assert "WAR hazard on block0 aiv0 ub bytes [0, 256): pto.vsts overwrites what pto.vlds" \
           in war.message and 'pto.mem_bar "VLD_VST"' in war.message
    # a barrier of the other kind does not order the store before the load; the VLD_VST
    # before the second load still fences the first load against the last store
    _, found = run_scope("VLD_VST", "VST_VLD")
    assert [f.kind for f in found] == ["RAW"]


# --- the elementwise row shape (lane functions come from ptosim.isa.alu) ---------------------
def test_elementwise_row_zeroes_inactive_lanes_and_checks_types():
    from ptosim.isa.vector import elementwise_row
    from ptosim.vector.ops import elementwise
    lanes = {"add": lambda a, b, dt: (a + b).astype(dt.np),
             "neg": lambda a, dt: (-a).astype(dt.np)}
    m = ptosim.Machine()
    a = VReg.from_lanes(RNG.standard_normal(64).astype(np.float32), "f32")
    b = VReg.from_lanes(RNG.standard_normal(64).astype(np.float32), "f32")
    act = RNG.random(64) < 0.5
    k = Mask.from_lanes(act, 32)
    add = elementwise("vadd", "add", 2, lanes=lanes)
    assert add(m, a, b, k).lanes.tolist() == np.where(act, a.lanes + b.lanes, 0).tolist()
    adds = elementwise("vadds", "add", 1, scalar=True, lanes=lanes)
    assert adds(m, a, np.float32(2), k).lanes.tolist() == \
        np.where(act, a.lanes + np.float32(2), 0).tolist()
    h = VReg.from_lanes(np.arange(128, dtype=np.int16), "i16")
    neg = elementwise("vneg", "neg", 1, lanes=lanes)
    k16 = Mask.from_lanes(np.arange(128) < 5, 16)
    assert neg(m, h, k16).lanes.tolist() == [0, -1, -2, -3, -4] + [0] * 123
    with pytest.raises(PtoTypeError, match="vadd: src1 has i16 elements but src0 has f32"):
        add(m, a, h, k)
    with pytest.raises(PtoTypeError, match="vneg: mask is b32 but the registers hold i16"):
        neg(m, h, k)
    row = elementwise_row("vadd", 2)
    assert row.lane == "add" and [o.name for o in row.operands] == ["src0", "src1", "mask"]
    assert row.check({"src0": "f32", "src1": "f32", "result": "f32", "mask": 16}) == \
        "mask is !pto.mask<b16> but src0 has f32 elements; it takes !pto.mask<b32>"
    assert row.check({"src0": "f32", "src1": "f16", "result": "f32", "mask": 32}) == \
        "src1 has f16 elements but src0 has f32; they must match"


def test_in_place_updates_need_no_barrier():
    """A store of data computed from the load it overwrites is ordered by the register
    dependency (also through scf.for iter_args); an unrelated store over loaded bytes is
    not."""
    def run(body):
        text = kernel(
            "    %nb = arith.constant 256 : i64\n    %one = arith.constant 1 : i64\n"
            "    %c1 = arith.constant 1 : index\n"
            "    pto.mte_gm_ub %x, %in, %c0_i64, %nb nburst(%one, %nb, %nb)"
            " : !pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64\n"
            '    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]\n'
            '    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]\n'
            "    pto.vecscope {\n"
            '      %m = pto.pset_b32 "PAT_ALL" : !pto.mask<b32>\n' + body + "    }\n")
        return Kernel.from_text(text, "k.pto").run(
            {"x": np.arange(64, dtype=np.float32), "y": np.zeros(64, np.float32)}).findings
    in_place = ("      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
                "      %w = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %v) "
                "-> (!pto.vreg<64xf32>) {\n"
                "        %d = pto.vdup %a, %m : !pto.vreg<64xf32>, !pto.mask<b32> -> "
                "!pto.vreg<64xf32>\n        scf.yield %d : !pto.vreg<64xf32>\n      }\n"
                "      pto.vsts %w, %in[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, "
                "!pto.mask<b32>\n")
    assert run(in_place) == []
    unrelated = ("      %v = pto.vlds %in[%c0] : !pto.ptr<f32, ub> -> !pto.vreg<64xf32>\n"
                 "      %u = pto.vbr %c0_i64 : i64 -> !pto.vreg<64xf32>\n"
                 "      pto.vsts %u, %in[%c0], %m : !pto.vreg<64xf32>, !pto.ptr<f32, ub>, "
                 "!pto.mask<b32>\n")
    assert [f.kind for f in run(unrelated)] == ["WAR"]
