"""Access roles: every buffer access carries the role (read / write / read-write / atomic)
its op declares, and the hazard checker uses exactly that role. Each tile op that writes a
tile is followed by a reader on another pipe with no flag between them: a RAW must name
the writer (regression: TFILLPAD, TINSERT, TEXTRACT and the a2a3 Mat TSTORE wrote through
operands that the old name-based guess recorded as reads)."""

import numpy as np
import pytest

import ptosim
from ptosim.interp.executor import Core
from ptosim.interp.hazards import HazardChecker, buffer_namer
from ptosim.isa import BY_METHOD
from ptosim.kernel import Kernel


class FakeOp:
    """Stands in for a parsed op: the checker only needs a name and a location."""

    def __init__(self, name):
        self.name = name


def observe(m, calls):
    """Run (method, args, kwargs[, core]) calls under the hazard checker, each tile op on
    the pipe and core the interpreter gives it; returns the findings."""
    chk = HazardChecker(lambda op: op.name, buffer_namer(m))
    m.access_hook = chk.access
    try:
        for method, args, kw, *core in calls:
            spec = BY_METHOD[method]
            where = core[0] if core else Core(spec.core_of(args), 0, 0)
            chk.begin_op(where, FakeOp(method), spec, args, spec.pipe_of(args))
            getattr(m, method)(*args, **kw)
            chk.end_op()
    finally:
        m.access_hook = None
    return chk.finish()


def nz(m, dtype, rows, cols, **kw):
    return m.tile("Mat", dtype, rows, cols, blayout="ColMajor", slayout="RowMajor", **kw)


def view(m, ptr, rows, cols):
    return m.global_tensor(ptr, (1, 1, 1, rows, cols), (rows * cols,) * 3 + (cols, 1))


def cube_tiles(m):
    left, right = m.tile("Left", "f16", 16, 16), m.tile("Right", "f16", 16, 16)
    return left, right, m.tile("Acc", "f32", 16, 16)


def scenario(name):
    """(machine, calls, writer, reader) for one writing tile op."""
    m = ptosim.Machine(target="a2a3" if name == "TSTORE Mat (a2a3)" else "a5")
    g16 = view(m, m.gm(np.ones((16, 16), np.float16)), 16, 16)
    g32 = view(m, m.gm(np.ones((16, 16), np.float32)), 16, 16)
    vec, vec2 = m.tile("Vec", "f32", 16, 16, pad="Zero"), m.tile("Vec", "f32", 16, 16)
    mat = nz(m, "f16", 16, 16)
    left, right, acc = cube_tiles(m)
    read_vec = ("TSTORE", [g32, vec], {})
    mm = ("TMATMUL", [acc, left, right], {})
    store_acc = ("TSTORE", [g32, acc], {})
    to_left = ("TMOV", [left, mat], {})
    table = {
        "TLOAD Vec": [("TLOAD", [vec, g32], {}), read_vec],
        "TLOAD Mat": [("TLOAD", [mat, g16], {}), to_left],
        "TLOAD cpu_sim_compat": [("TLOAD", [vec, g32], {"cpu_sim_compat": True}), read_vec],
        "TMOV Mat->Left": [to_left, mm],
        "TMOV Mat->Bias": [("TMOV", [m.tile("Bias", "f32", 1, 16), nz(m, "f32", 16, 16)], {}),
                           ("TMATMUL_BIAS", [acc, left, right, m.tile("Bias", "f32", 1, 16,
                                                                      addr=0)], {})],
        "TEXTRACT Mat->Left": [("TEXTRACT", [left, mat, 0, 0], {}), mm],
        "TMATMUL": [mm, store_acc],
        "TMATMUL_ACC": [("TMATMUL_ACC", [acc, left, right], {}), store_acc],
        "TMATMUL_BIAS": [("TMATMUL_BIAS", [acc, left, right, m.tile("Bias", "f32", 1, 16)], {}),
                         store_acc],
        "TMOV Acc->Mat": [("TMOV", [mat, acc], {}), to_left],
        "TINSERT Acc->Mat": [("TINSERT", [mat, acc, 0, 0], {}), to_left],
        "TEXTRACT Acc->Vec": [("TEXTRACT", [vec2, acc, 0, 0], {}), ("TMOV", [vec, vec2], {})],
        "TMOV Vec->Vec": [("TMOV", [vec, vec2], {}), read_vec],
        "TFILLPAD": [("TFILLPAD", [vec, vec2], {}), read_vec],
        "TINSERT Vec->Vec": [("TINSERT", [vec, vec2, 0, 0], {}), read_vec],
        "TEXTRACT Vec->Vec": [("TEXTRACT", [vec, vec2, 0, 0], {}), read_vec],
        "TSTORE Vec": [read_vec, ("TLOAD", [vec2, g32], {})],
        "TSTORE Mat (a2a3)": [("TSTORE", [g16, m.tile("Mat", "f16", 16, 16)], {}),
                              ("TLOAD", [nz(m, "f16", 16, 16), g16], {})],
        "TSTORE Acc": [store_acc, ("TLOAD", [vec2, g32], {})],
    }
    calls = table[name]
    return m, calls, calls[0][0], calls[1][0]


@pytest.mark.parametrize("name", [
    "TLOAD Vec", "TLOAD Mat", "TLOAD cpu_sim_compat", "TMOV Mat->Left", "TMOV Mat->Bias",
    "TEXTRACT Mat->Left", "TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TMOV Acc->Mat",
    "TINSERT Acc->Mat", "TEXTRACT Acc->Vec", "TMOV Vec->Vec", "TFILLPAD", "TINSERT Vec->Vec",
    "TEXTRACT Vec->Vec", "TSTORE Vec", "TSTORE Mat (a2a3)", "TSTORE Acc"])
def test_every_tile_write_is_a_write(name):
    m, calls, writer, reader = scenario(name)
    found = observe(m, calls)
    raw = [f for f in found if f.kind == "RAW"]
    assert len(raw) == 1, [f.message for f in found]
    assert f": {reader} (" in raw[0].message and f"reads what {writer} (" in raw[0].message
    assert f"at {writer} wrote" in raw[0].message


def roles(m, call):
    """The (operand, role) pairs an op declares, in order."""
    seen = []
    m.access_hook = lambda buf, start, n, access, operand, op, runs: seen.append((operand, access))
    try:
        call()
    finally:
        m.access_hook = None
    return seen


def test_micro_ops_declare_their_roles():
    m = ptosim.Machine(target="a5")
    a, b, c = m.ptr("l0a", "f16", 0), m.ptr("l0b", "f16", 0), m.ptr("l0c", "f32", 0)
    out = m.gm_empty(256, "f32")
    assert roles(m, lambda: m.mad(a, b, c, 16, 16, 16)) == [("lhs", "R"), ("rhs", "R"),
                                                            ("dst", "W")]
    assert roles(m, lambda: m.mad_acc(a, b, c, 16, 16, 16))[-1] == ("dst", "RW")
    assert roles(m, lambda: m.mte_l0c_gm(c, out, 16, 16, 16, 16, 0, 0)) == [("src", "R"),
                                                                           ("dst", "W")]
    assert roles(m, lambda: m.mte_l0c_gm(c, out, 16, 16, 16, 16, 0, 0,
                                         atomic=("f32", "add")))[-1] == ("dst", "A")
    ub = m.ptr("ub", "f32", 0)
    assert roles(m, lambda: m.mte_gm_ub(out, ub, 0, 64, nburst=(1, 64, 64))) == [
        ("gm_src", "R"), ("ub_dst", "W")]


def test_tmatmul_acc_after_a_read_of_its_accumulator_is_a_war():
    m = ptosim.Machine(target="a5")
    left, right, acc = cube_tiles(m)
    g = view(m, m.gm_empty(256, "f32"), 16, 16)
    found = observe(m, [("TSTORE", [g, acc], {}), ("TMATMUL_ACC", [acc, left, right], {})])
    assert [f.kind for f in found] == ["WAR"]


def test_gm_atomics_conflict_only_with_plain_accesses():
    """Role "A": two blocks' atomic adds into one GM buffer are fine, plain stores are not."""
    m = ptosim.Machine(target="a5", block_dim=2)
    out = m.gm_empty(256, "f32")
    srcs = [m.ptr("l0c", "f32", 0, block=b) for b in (0, 1)]

    def store(b, **kw):
        return ("mte_l0c_gm", [srcs[b], out, 16, 16, 16, 16, 0, 0], kw, Core("cube", 0, b))
    assert observe(m, [store(0, atomic=("f32", "add")), store(1, atomic=("f32", "add"))]) == []
    assert [f.kind for f in observe(m, [store(0, atomic=("f32", "add")), store(1)])] == ["WAW"]
    assert [f.kind for f in observe(m, [store(0), store(1)])] == ["WAW"]


def test_region_requires_a_known_role():
    m = ptosim.Machine()
    with pytest.raises(ptosim.PtoError, match="region: access must be one of R, W, RW, A, "
                                              "got 'X'"):
        m.region(m.ptr("ub", "f32", 0), 4, access="X", op="probe")
    with pytest.raises(TypeError):
        m.region(m.ptr("ub", "f32", 0), 4)          # no role: refused, never guessed


VEC = """module attributes {{pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>}} {{
  func.func @k(%src: !pto.ptr<f32, gm>, %dst: !pto.ptr<f32, gm>) attributes {{pto.aicore}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %in = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<16x16xf32>
    %out = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1]
      : !pto.tensor_view<16x16xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, pad=1>
    %b = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32, pad=1>
    pto.tload ins(%in : !pto.tensor_view<16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32, pad=1>)
    pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    pto.wait_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID0"]
    {op}
{sync}    pto.tstore ins(%b : !pto.tile_buf<vec, 16x16xf32, pad=1>) outs(%out : !pto.tensor_view<16x16xf32>)
    return
  }}
}}
"""
T = "!pto.tile_buf<vec, 16x16xf32, pad=1>"
VEC_OPS = {
    "tmov": f"pto.tmov ins(%a : {T}) outs(%b : {T})",
    "tfillpad": f"pto.tfillpad ins(%a : {T}) outs(%b : {T})",
    "tinsert": f"pto.tinsert ins(%a, %c0, %c0 : {T}, index, index) outs(%b : {T})",
    "textract": f"pto.textract ins(%a, %c0, %c0 : {T}, index, index) outs(%b : {T})",
}
SYNC = ('    pto.set_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]\n'
        '    pto.wait_flag["PIPE_V", "PIPE_MTE3", "EVENT_ID0"]\n')


@pytest.mark.parametrize("op", sorted(VEC_OPS))
def test_vector_tile_write_then_store_needs_a_flag(op):
    """The reported case: a tile written on V and stored on MTE3 with no V -> MTE3 flag is a
    RAW for every writing vector tile op; with the flag the kernel is clean."""
    src = np.arange(256, dtype=np.float32).reshape(16, 16)
    args = {"src": src, "dst": np.zeros((16, 16), np.float32)}
    bad = Kernel.from_text(VEC.format(op=VEC_OPS[op], sync=""), "v.pto").run(args)
    line = VEC.format(op=VEC_OPS[op], sync="").splitlines().index("    " + VEC_OPS[op]) + 1
    assert [f.kind for f in bad.findings] == ["RAW"]
    assert (f"pto.tstore (block0.aiv0 PIPE_MTE3) reads what pto.{op} (block0.aiv0 PIPE_V) "
            f"at v.pto:{line}:5 wrote") in bad.findings[0].message
    good = Kernel.from_text(VEC.format(op=VEC_OPS[op], sync=SYNC), "v.pto").run(args)
    assert good.findings == []
    np.testing.assert_array_equal(good.outputs["dst"], src)
