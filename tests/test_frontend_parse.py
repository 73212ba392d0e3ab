"""The .pto front end: canonical round trips of every op syntax and the Python-face contract."""


import numpy as np
import pytest

import ptosim
from ptosim.api import PLANNED_OPS
from ptosim.frontend import (
    MICRO_OPS,
    AddPtrOp,
    BarrierOp,
    CastPtrOp,
    GetBufOp,
    GetSubblockIdxOp,
    KernelKindAttr,
    MicroOp,
    PipeAttr,
    PipeBarrierOp,
    Sbitset1Op,
    SectionCubeOp,
    SectionVectorOp,
    SetFlagOp,
    SyncSetOp,
    SyncWaitOp,
    WaitFlagOp,
    load_context,
    op_location,
    parse_module,
    print_module,
    ptr_info,
)
from ptosim.mlir.ir import SSAValue

# Pointers of every space and the scalars the snippets use. %cN is N (i64).
PRELUDE = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%gm16: !pto.ptr<f16, gm>, %gm32: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %c8 = arith.constant 8 : i64
    %c32 = arith.constant 32 : i64
    %ix = arith.constant 1 : index
    %false = arith.constant false
    %h = arith.constant 1.500000e+00 : f16
    %s = arith.constant 2.500000e+00 : f32
    %ub16 = pto.castptr %c0 : i64 -> !pto.ptr<f16, ub>
    %ub32 = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %l1f = pto.castptr %c0 : i64 -> !pto.ptr<f32, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    %bt = pto.castptr %c0 : i64 -> !pto.ptr<f32, bt>
    %fb = pto.castptr %c0 : i64 -> !pto.ptr<f32, fb>
"""
EPILOGUE = """    return
  }
}
"""
T4 = "i64, i64, i64, i64"


def kernel(body: str) -> str:
    return PRELUDE + body + "\n" + EPILOGUE


def printed_body(body: str) -> list[str]:
    """The canonical text of ``body``'s ops, one stripped line each."""
    text = print_module(parse_module(kernel(body), "t.pto"))
    again = print_module(parse_module(text, "t2.pto"))
    assert again == text, "printing is not a fixed point"
    lines = [ln.strip() for ln in text.splitlines()]
    start = lines.index("%fb = pto.castptr %c0 : i64 -> !pto.ptr<f32, fb>") + 1
    return lines[start:lines.index("func.return")]


def only_op(module: object, cls: type) -> object:
    found = [op for op in module.walk() if isinstance(op, cls)]
    assert len(found) == 1
    return found[0]


def names(value: object) -> object:
    """SSAValues -> their names, through tuples, lists and dicts."""
    if isinstance(value, SSAValue):
        return value.name_hint
    if isinstance(value, tuple):
        return tuple(names(v) for v in value)
    if isinstance(value, list):
        return [names(v) for v in value]
    if isinstance(value, dict):
        return {k: names(v) for k, v in value.items()}
    return value


# --- round trips: canonical input prints unchanged -----------------------------------------
CANONICAL = [
    # DMA
    f"pto.mte_gm_ub %gm16, %ub16, %c0, %c8 nburst(%c1, %c2, %c3) : !pto.ptr<f16, gm>, "
    f"!pto.ptr<f16, ub>, i64, {T4}",
    f"pto.mte_gm_ub %gm16, %ub16, %c0, %c8 nburst(%c1, %c2, %c3) loop(%c4, %c5, %c6) "
    f"loop(%c7, %c8, %c1) pad(%h) : !pto.ptr<f16, gm>, !pto.ptr<f16, ub>, i64, {T4}, "
    f"loop i64, i64, i64, loop i64, i64, i64, pad f16",
    f"pto.mte_gm_ub %gm16, %ub16, %c0, %c8 nburst(%c1, %c2, %c3) pad(%h, %c1, %c2) : "
    f"!pto.ptr<f16, gm>, !pto.ptr<f16, ub>, i64, {T4}, pad f16, i64, i64",
    f"pto.mte_ub_gm %ub16, %gm16, %c8 nburst(%c1, %c2, %c3) loop(%c4, %c5, %c6) : "
    f"!pto.ptr<f16, ub>, !pto.ptr<f16, gm>, {T4}, loop i64, i64, i64",
    f"pto.mte_gm_l1 %gm16, %l1, %c8 nburst(%c1, %c0, %c0) : !pto.ptr<f16, gm>, "
    f"!pto.ptr<f16, l1>, {T4}",
    f"pto.mte_l1_ub %l1, %ub16, %c2 nburst(%c1, %c0, %c0) loop(%c2, %c3, %c4) : "
    f"!pto.ptr<f16, l1>, !pto.ptr<f16, ub>, {T4}, loop i64, i64, i64",
    f"pto.mte_ub_ub %ub16, %ub16, %c1 nburst(%c1, %c0, %c0) : !pto.ptr<f16, ub>, "
    f"!pto.ptr<f16, ub>, {T4}",
    f"pto.mte_ub_l1 %ub16, %l1, %c1 nburst(%c2, %c0, %c1) : !pto.ptr<f16, ub>, "
    f"!pto.ptr<f16, l1>, {T4}",
    f"pto.mte_l1_bt %l1, %bt, %c1 nburst(%c1, %c0, %c0) : !pto.ptr<f16, l1>, "
    f"!pto.ptr<f32, bt>, {T4}",
    f"pto.mte_l1_fb %l1f, %fb, %c1 nburst(%c1, %c0, %c0) : !pto.ptr<f32, l1>, "
    f"!pto.ptr<f32, fb>, {T4}",
    "pto.mte_gm_l1_frac %gm16, %l1, nd2nz, shape(%c4, %c5), src_layout(%c6), "
    "dst_group(%c1, %c1, %c8, %c0), ctrl(%c0, %false) : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, "
    "nd2nz, shape i64, i64, src_layout(i64), dst_group i64, i64, i64, i64, ctrl i64, i1",
    "pto.mte_gm_l1_frac %gm16, %l1, dn2nz, shape(%c4, %c5), src_layout(%c6, %c7), "
    "dst_group(%c2, %c1, %c8, %c3), ctrl(%c0, %false) : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, "
    "dn2nz, shape i64, i64, src_layout(i64, i64), dst_group i64, i64, i64, i64, ctrl i64, i1",
    # cube
    "pto.mte_l1_l0a %l1, %l0a, %c4, %c5 : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64",
    "pto.mte_l1_l0a %l1, %l0a, %c4, %c5 {transpose = true} : !pto.ptr<f16, l1>, "
    "!pto.ptr<f16, l0a>, i64, i64",
    "pto.mte_l1_l0b %l1, %l0b, %c5, %c6 {transpose = true} : !pto.ptr<f16, l1>, "
    "!pto.ptr<f16, l0b>, i64, i64",
    "pto.mad %l0a, %l0b, %l0c, %c4, %c6, %c5 : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, "
    "!pto.ptr<f32, l0c>, i64, i64, i64",
    *[f"pto.mad %l0a, %l0b, %l0c, %c4, %c6, %c5 {clause} : !pto.ptr<f16, l0a>, "
      f"!pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64"
      for clause in ("unit_flag(check_only)", "unit_flag(check_and_set)", "disable_gemv", "sat",
                     "nosat", "tf32_mode(round_even)", "tf32_mode(round_away)", "n_dir",
                     "unit_flag(check_and_set) disable_gemv nosat tf32_mode(round_away) n_dir")],
    "pto.mad_acc %l0a, %l0b, %l0c, %c4, %c6, %c5 disable_gemv : !pto.ptr<f16, l0a>, "
    "!pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64",
    "pto.mad_bias %l0a, %l0b, %l0c, %bt, %c4, %c6, %c5 unit_flag(check_only) n_dir : "
    "!pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, !pto.ptr<f32, bt>, i64, i64, "
    "i64",
    "pto.mad_mx %l0a, %l0b, %l0c, %c4, %c6, %c5 sat : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, "
    "!pto.ptr<f32, l0c>, i64, i64, i64",
]
_GM = "pto.mte_l0c_gm %l0c, %gm32, %c4, %c6, %c1, %c6, %c0, %c0"
_GM_T = f"!pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, {T4}, i64, i64"
_GM16_T = f"!pto.ptr<f32, l0c>, !pto.ptr<f16, gm>, {T4}, i64, i64"
CANONICAL += [
    f"{_GM} : {_GM_T}",
    f"{_GM}, nz2nd : {_GM_T}",
    f"{_GM}, nz2dn(%c1) : {_GM_T}, i64",
    f"{_GM}, nz2nz : {_GM_T}",
    f"{_GM}, nz2nz(%c1) : {_GM_T}, i64",
    f"{_GM}, unit_flag(check_and_clear), nz2nd, loop3(%c1, %c2, %c3), sat : {_GM_T}, i64, "
    f"i64, i64",
    f"{_GM}, sat(preserve_nan) : {_GM_T}",
    f"{_GM}, nosat : {_GM_T}",
    f"{_GM}, nz2nd, atomic(type = f32, op = max) : {_GM_T}",
    f"pto.mte_l0c_gm %l0c, %gm16, %c4, %c6, %c1, %c6, %c0, %c0, unit_flag(check_only), "
    f"pre_quant(%s, mode = qf322f16_pre_scalar), pre_relu(%h, mode = scalar_relu, clip = %h), "
    f"nz2nd, loop3(%c1, %c2, %c3), nosat, atomic(type = f16, op = add) : {_GM16_T}, f32, "
    f"f16, f16, i64, i64, i64",
    f"pto.mte_l0c_gm %l0c, %gm16, %c4, %c6, %c1, %c6, %c0, %c0, pre_quant(%fb, mode = "
    f"qf322f16_pre_vec), pre_relu(mode = no_relu, clip = %h) : {_GM16_T}, !pto.ptr<f32, fb>, "
    f"f16",
    f"pto.mte_l0c_gm %l0c, %gm16, %c4, %c6, %c1, %c6, %c0, %c0, pre_quant(%s, mode = f32_f16),"
    f" pre_relu(mode = normal_relu) : {_GM16_T}, f32",
    f"pto.mte_l0c_gm %l0c, %gm16, %c4, %c6, %c1, %c6, %c0, %c0, pre_quant(%s, mode = f32_f16),"
    f" pre_relu(%fb, mode = vector_relu) : {_GM16_T}, f32, !pto.ptr<f32, fb>",
    f"pto.mte_l0c_l1 %l0c, %l1f, %c4, %c6, %c1, %c6, unit_flag(check_only), nz2nd, "
    f"loop3(%c1, %c2, %c3), sat : !pto.ptr<f32, l0c>, !pto.ptr<f32, l1>, {T4}, i64, i64, i64",
    f"pto.mte_l0c_ub %l0c, %ub32, %c4, %c6, %c1, %c6, dst_mode(%c1) : !pto.ptr<f32, l0c>, "
    f"!pto.ptr<f32, ub>, {T4}, i64",
    f"pto.mte_l0c_ub %l0c, %ub32, %c4, %c6, %c1, %c6, dst_mode(split_m), nz2nd, sat : "
    f"!pto.ptr<f32, l0c>, !pto.ptr<f32, ub>, {T4}",
    f"pto.mte_l0c_ub %l0c, %ub16, %c4, %c6, %c1, %c6, dst_mode(split_n), pre_quant(%s, mode = "
    f"f32_f16) : !pto.ptr<f32, l0c>, !pto.ptr<f16, ub>, {T4}, f32",
    # pointers, structure, sync, ctrl
    "%p = pto.castptr %c8 : i64 -> !pto.ptr<!pto.hif8, ub>",
    "%a = pto.castptr %ub16 : !pto.ptr<f16, ub> -> i64",
    "%q = pto.castptr %gm16 : !pto.ptr<f16, gm> -> !pto.ptr<ui8, gm>",
    "%r = pto.addptr %ub16, %ix : !pto.ptr<f16, ub> -> !pto.ptr<f16, ub>",
    "%r = pto.addptr %ub16, %c4 : !pto.ptr<f16, ub> -> !pto.ptr<f16, ub>",
    "%b = pto.get_block_idx",
    "%b = pto.get_block_num",
    "%b = pto.get_subblock_idx",
    "%b = pto.get_subblock_num",
    'pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]',
    'pto.wait_flag["PIPE_M", "PIPE_FIX", "EVENT_ID7"]',
    "pto.barrier #pto.pipe<PIPE_ALL>",
    'pto.pipe_barrier "PIPE_MTE3"',
    "pto.sync.set <PIPE_FIX>, 17",
    "pto.sync.wait <PIPE_MTE3>, %c1",
    "pto.sync.wait <PIPE_V>, %ix",
    'pto.get_buf "PIPE_V", 2, 0',
    'pto.rls_buf "PIPE_MTE2", %c1, %c0 : i64, i64',
    'pto.get_buf "PIPE_MTE3", 1, %c1 : i64',
    'pto.mem_bar "VST_VLD"',
    "%g = pto.get_ctrl : i64",
    "pto.set_ctrl %c1 : i64",
    "%x = pto.sbitset1 %c1, %c2 : i64, i64 -> i64",
    "%x = pto.sbitset0 %c1, %c2 : i64, i64 -> i64",
]


@pytest.mark.parametrize("line", CANONICAL, ids=lambda s: s.split(" ")[0] + "..." + s[-12:])
def test_canonical_text_round_trips(line):
    assert printed_body(line) == [line]


@pytest.mark.parametrize("written, canonical", [
    # loop keyword aliases print as loop (body and type list)
    (f"pto.mte_ub_gm %ub16, %gm16, %c8 nburst(%c1, %c2, %c3) loop1(%c4, %c5, %c6) "
     f"loop2(%c4, %c5, %c6) : !pto.ptr<f16, ub>, !pto.ptr<f16, gm>, {T4}, loop2 i64, i64, "
     f"i64, loop1 i64, i64, i64",
     f"pto.mte_ub_gm %ub16, %gm16, %c8 nburst(%c1, %c2, %c3) loop(%c4, %c5, %c6) "
     f"loop(%c4, %c5, %c6) : !pto.ptr<f16, ub>, !pto.ptr<f16, gm>, {T4}, loop i64, i64, i64, "
     f"loop i64, i64, i64"),
    # a false transpose is the default
    ("pto.mte_l1_l0b %l1, %l0b, %c5, %c6 {transpose = false} : !pto.ptr<f16, l1>, "
     "!pto.ptr<f16, l0b>, i64, i64",
     "pto.mte_l1_l0b %l1, %l0b, %c5, %c6 : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>, i64, i64"),
    # space aliases, the default gm space and the short pointer form canonicalise
    ("%p = pto.castptr %c0 : i64 -> !pto.ptr<f16, vec>",
     "%p = pto.castptr %c0 : i64 -> !pto.ptr<f16, ub>"),
    ("%p = pto.castptr %c0 : i64 -> !pto.ptr<bf16, mat>",
     "%p = pto.castptr %c0 : i64 -> !pto.ptr<bf16, l1>"),
    ("%p = pto.castptr %c0 : i64 -> !pto.ptr<si8>",
     "%p = pto.castptr %c0 : i64 -> !pto.ptr<si8, gm>"),
    ("%r = pto.addptr %ub16, %ix : <f16, vec> -> <f16, ub>",
     "%r = pto.addptr %ub16, %ix : !pto.ptr<f16, ub> -> !pto.ptr<f16, ub>"),
    ("%b = pto.get_block_idx : i64", "%b = pto.get_block_idx"),
    ('pto.rls_buf "PIPE_V", 3', 'pto.rls_buf "PIPE_V", 3, 0'),
])
def test_other_spellings_print_canonically(written, canonical):
    assert printed_body(written) == [canonical]


def test_sections_keep_their_body():
    body = ("pto.section.cube {\n"
            "  pto.barrier #pto.pipe<PIPE_ALL>\n"
            "}\n"
            "pto.section.vector {\n"
            "}")
    assert printed_body(body) == ["pto.section.cube {", "pto.barrier #pto.pipe<PIPE_ALL>", "}",
                                  "pto.section.vector {", "}"]
    module = parse_module(kernel(body))
    cube = only_op(module, SectionCubeOp)
    assert [op.name for op in cube.body.block.ops] == ["pto.barrier"]
    assert not list(only_op(module, SectionVectorOp).body.block.ops)


def test_pointer_types_of_every_spelling():
    text = """func.func @f(%a: !pto.ptr<!pto.hif8x2, scaling>, %b: !pto.ptr<!pto.f4E2M1x2, left>,
                  %c: !pto.ptr<!pto.f4E1M2x2, right>, %d: !pto.ptr<f8E4M3FN, acc>,
                  %e: !pto.ptr<f8E5M2, bias>, %f: memref<?xui8, #pto.address_space<vec>>,
                  %g: memref<?xf16, #pto.address_space<gm>>, %h: !pto.ptr<!pto.hif8>) {
      return
    }"""
    module = parse_module(text)
    func = next(op for op in module.walk() if op.name == "func.func")
    assert [ptr_info(a.type) for a in func.body.block.args] == [
        ("hif8x2", "fb"), ("f4E2M1x2", "l0a"), ("f4E1M2x2", "l0b"), ("f8E4M3FN", "l0c"),
        ("f8E5M2", "bt"), ("ui8", "ub"), ("f16", "gm"), ("hif8", "gm")]
    for a in func.body.block.args:   # every dtype name is one ptosim knows
        ptosim.dtype(ptr_info(a.type)[0])
    assert "memref<?xui8, #pto.address_space<vec>>" in print_module(module)


def test_memref_pointers_feed_micro_ops():
    text = f"""func.func @f(%g: memref<?xf32, #pto.address_space<gm>>,
                  %u: memref<?xf32, #pto.address_space<vec>>, %n: i64) {{
      pto.mte_gm_ub %g, %u, %n, %n nburst(%n, %n, %n)
        : memref<?xf32, #pto.address_space<gm>>, memref<?xf32, #pto.address_space<vec>>,
          i64, {T4}
      return
    }}"""
    text2 = print_module(parse_module(text))
    assert print_module(parse_module(text2)) == text2


def test_module_attributes_and_kernel_kind():
    module = parse_module('module attributes {pto.target_arch = "a2a3", pto.kernel_kind = '
                          '#pto.kernel_kind<vector>} {\n}')
    kind = module.attributes["pto.kernel_kind"]
    assert isinstance(kind, KernelKindAttr) and kind.value.data == "vector"
    assert module.attributes["pto.target_arch"].data == "a2a3"


def test_parsed_ops_know_where_they_start():
    text = "module {\n  func.func @f() {\n    %c = arith.constant 0 : i64 loc(\"x.pto\":9:9)\n" \
           "    pto.barrier #pto.pipe<PIPE_ALL>\n    return\n  }\n}\n"
    module = parse_module(text, "a.pto")
    assert [op_location(op) for op in module.walk()] == [
        "a.pto:1:1", "a.pto:2:3", "x.pto:9:9", "a.pto:4:5", "a.pto:5:5"]
    assert op_location(BarrierOp.build(properties={"pipe": PipeAttr("PIPE_V")})) is None


def test_load_context_knows_the_dialects():
    ctx = load_context()
    for name in ("func.func", "arith.constant", "scf.for", "pto.mad", "pto.section.cube"):
        assert ctx.get_optional_op(name) is not None


# --- the Python-face contract -------------------------------------------------------------
def pick(fragment: str) -> str:
    """The one canonical line containing ``fragment``."""
    (line,) = [ln for ln in CANONICAL if fragment in ln]
    return line


@pytest.mark.parametrize("line, method, expected", [
    (pick("pad(%h) :"), "mte_gm_ub",
     (["gm16", "ub16", "c0", "c8"], {"nburst": ("c1", "c2", "c3"),
                                      "loop": [("c4", "c5", "c6"), ("c7", "c8", "c1")],
                                      "pad": ("h",)})),
    (pick("pad(%h, %c1, %c2)"), "mte_gm_ub",
     (["gm16", "ub16", "c0", "c8"], {"nburst": ("c1", "c2", "c3"), "pad": ("h", "c1", "c2")})),
    (pick("pto.mte_l1_ub"), "mte_l1_ub",
     (["l1", "ub16", "c2"], {"nburst": ("c1", "c0", "c0"), "loop": [("c2", "c3", "c4")]})),
    (pick("pto.mte_l1_bt"), "mte_l1_bt", (["l1", "bt", "c1"], {"nburst": ("c1", "c0", "c0")})),
    (pick("dn2nz, shape("), "mte_gm_l1_frac",
     (["gm16", "l1", "dn2nz"], {"shape": ("c4", "c5"), "src_layout": ("c6", "c7"),
                                "dst_group": ("c2", "c1", "c8", "c3"),
                                "ctrl": ("c0", "false")})),
    (pick("pto.mte_l1_l0a %l1, %l0a, %c4, %c5 :"), "mte_l1_l0a", (["l1", "l0a", "c4", "c5"], {})),
    (pick("pto.mte_l1_l0b"), "mte_l1_l0b", (["l1", "l0b", "c5", "c6"], {"transpose": True})),
    (pick("disable_gemv nosat"), "mad",
     (["l0a", "l0b", "l0c", "c4", "c6", "c5"],
      {"unit_flag": "check_and_set", "disable_gemv": True, "sat": "nosat",
       "tf32_mode": "round_away", "n_dir": True})),
    (pick("pto.mad_bias"), "mad_bias",
     (["l0a", "l0b", "l0c", "bt", "c4", "c6", "c5"], {"unit_flag": "check_only",
                                                      "n_dir": True})),
    (f"{_GM}, nz2dn(%c1), loop3(%c1, %c2, %c3), sat(preserve_nan) : {_GM_T}, i64, i64, i64, "
     f"i64", "mte_l0c_gm",
     (["l0c", "gm32", "c4", "c6", "c1", "c6", "c0", "c0"],
      {"layout": ("nz2dn", "c1"), "loop3": ("c1", "c2", "c3"), "sat": "preserve_nan"})),
    (pick("type = f16"), "mte_l0c_gm",
     (["l0c", "gm16", "c4", "c6", "c1", "c6", "c0", "c0"],
      {"unit_flag": "check_only", "pre_quant": ("s", "qf322f16_pre_scalar"),
       "pre_relu": ("h", "scalar_relu", "h"), "layout": "nz2nd", "loop3": ("c1", "c2", "c3"),
       "sat": "nosat", "atomic": ("f16", "add")})),
    (pick("mode = no_relu"), "mte_l0c_gm",
     (["l0c", "gm16", "c4", "c6", "c1", "c6", "c0", "c0"],
      {"pre_quant": ("fb", "qf322f16_pre_vec"), "pre_relu": (None, "no_relu", "h")})),
    (f"{_GM}, nz2nz(%c1) : {_GM_T}, i64", "mte_l0c_gm",
     (["l0c", "gm32", "c4", "c6", "c1", "c6", "c0", "c0"], {"layout": ("nz2nz", "c1")})),
    (pick("pto.mte_l0c_l1"), "mte_l0c_l1",
     (["l0c", "l1f", "c4", "c6", "c1", "c6"],
      {"unit_flag": "check_only", "layout": "nz2nd", "loop3": ("c1", "c2", "c3"),
       "sat": "sat"})),
    (pick("dst_mode(%c1)"), "mte_l0c_ub",
     (["l0c", "ub32", "c4", "c6", "c1", "c6"], {"dst_mode": "c1"})),
    (pick("dst_mode(split_m)"), "mte_l0c_ub",
     (["l0c", "ub32", "c4", "c6", "c1", "c6"],
      {"dst_mode": "split_m", "layout": "nz2nd", "sat": "sat"})),
])
def test_python_call_has_the_machine_method_shape(line, method, expected):
    module = parse_module(kernel(line))
    (op,) = [o for o in module.walk() if isinstance(o, MicroOp)]
    assert op.SPEC.method == method
    pos, kw = op.python_call()
    assert all(isinstance(v, SSAValue) for v in pos if not isinstance(v, str))
    assert (names(pos), names(kw)) == expected


def test_every_micro_op_names_a_machine_method():
    machine = ptosim.Machine()
    for cls in MICRO_OPS:
        assert cls.name == "pto." + cls.SPEC.method
        assert cls.SPEC.method in PLANNED_OPS or callable(getattr(machine,
                                                                     cls.SPEC.method))


def test_accessors_of_the_other_ops():
    body = ("%sb = pto.get_subblock_idx\n"
            "%p = pto.castptr %c8 : i64 -> !pto.ptr<f32, fb>\n"
            "%a = pto.castptr %p : !pto.ptr<f32, fb> -> i64\n"
            "%r = pto.addptr %p, %ix : !pto.ptr<f32, fb> -> !pto.ptr<f32, fb>\n"
            'pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID3"]\n'
            'pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID3"]\n'
            "pto.barrier #pto.pipe<PIPE_MTE3>\n"
            'pto.pipe_barrier "PIPE_V"\n'
            "pto.sync.set <PIPE_FIX>, 17\n"
            "pto.sync.wait <PIPE_MTE1>, %sb\n"
            'pto.get_buf "PIPE_V", %c2, 1 : i64\n'
            "%x = pto.sbitset1 %c1, %c2 : i64, i64 -> i64")
    module = parse_module(kernel(body))
    ops = list(module.walk())
    casts = [op for op in ops if isinstance(op, CastPtrOp)]
    assert casts[-2].cast_kind() == "int_to_ptr" and casts[-1].cast_kind() == "ptr_to_int"
    assert casts[-2].input.name_hint == "c8" and ptr_info(casts[-2].result.type) == ("f32", "fb")
    add = only_op(module, AddPtrOp)
    assert (add.ptr.name_hint, add.offset.name_hint) == ("p", "ix")
    flag = only_op(module, SetFlagOp)
    assert (flag.src_pipe(), flag.dst_pipe(), flag.event()) == ("PIPE_MTE2", "PIPE_MTE1",
                                                                "EVENT_ID3")
    assert only_op(module, WaitFlagOp).event() == "EVENT_ID3"
    assert only_op(module, BarrierOp).pipe() == "PIPE_MTE3"
    assert only_op(module, PipeBarrierOp).pipe() == "PIPE_V"
    sync_set, sync_wait = only_op(module, SyncSetOp), only_op(module, SyncWaitOp)
    assert (sync_set.pipe(), sync_set.sync_id()) == ("PIPE_FIX", 17)
    assert sync_wait.sync_id() is only_op(module, GetSubblockIdxOp).result
    buf = only_op(module, GetBufOp)
    assert (buf.pipe(), buf.buf_id().name_hint, buf.mode()) == ("PIPE_V", "c2", 1)
    bits = only_op(module, Sbitset1Op)
    assert (bits.BIT_VALUE, bits.value.name_hint, bits.bit.name_hint) == (1, "c1", "c2")


# --- end to end: the contract drives a real Machine ------------------------------------------
MATMUL = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @mm(%a: !pto.ptr<f16, gm>, %b: !pto.ptr<f16, gm>, %c: !pto.ptr<f32, gm>)
      attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c16 = arith.constant 16 : i64
    %c32 = arith.constant 32 : i64
    %c512 = arith.constant 512 : i64
    %false = arith.constant false
    %l1a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %l1b = pto.castptr %c512 : i64 -> !pto.ptr<f16, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    pto.section.cube {
      pto.mte_gm_l1_frac %a, %l1a, nd2nz, shape(%c16, %c16), src_layout(%c32),
          dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
        : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
          dst_group i64, i64, i64, i64, ctrl i64, i1
      pto.mte_gm_l1_frac %b, %l1b, nd2nz, shape(%c16, %c16), src_layout(%c32),
          dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
        : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
          dst_group i64, i64, i64, i64, ctrl i64, i1
      pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
      pto.wait_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]
      pto.mte_l1_l0a %l1a, %l0a, %c16, %c16 : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64
      pto.mte_l1_l0b %l1b, %l0b, %c16, %c16 {transpose = true}
        : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>, i64, i64
      pto.mad %l0a, %l0b, %l0c, %c16, %c16, %c16 unit_flag(check_and_set)
        : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
      pto.mte_l0c_gm %l0c, %c, %c16, %c16, %c16, %c16, %c0, %c0, unit_flag(check_and_clear),
          nz2nd
        : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64
    }
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"""


def _run(module: object, machine: ptosim.Machine, args: list) -> None:
    """Just enough interpretation to drive the contract: constants, int->ptr casts, sections
    inline, micro ops through python_call; everything else is a no-op here."""
    func = next(op for op in module.walk() if op.name == "func.func")
    env = dict(zip(func.body.block.args, args))

    def value(v: object) -> object:
        if isinstance(v, SSAValue):
            return env[v]
        if isinstance(v, tuple):
            return tuple(value(x) for x in v)
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    for op in func.walk():
        if op.name == "arith.constant":
            env[op.result] = op.value.value.data
        elif isinstance(op, CastPtrOp):
            env[op.result] = machine.ptr(ptr_info(op.result.type)[1],
                                         ptr_info(op.result.type)[0], env[op.input])
        elif isinstance(op, MicroOp):
            pos, kw = op.python_call()
            getattr(machine, op.SPEC.method)(*value(pos),
                                                **{k: value(v) for k, v in kw.items()})


def test_python_call_drives_a_machine_matmul():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    machine = ptosim.Machine(target="a5")
    pa, pb, pc = machine.gm(a), machine.gm(b), machine.gm_empty(256, "f32")
    _run(parse_module(MATMUL, "mm.pto"), machine, [pa, pb, pc])
    got = machine.read(pc, 256).reshape(16, 16)
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3,
                               atol=1e-3)


def test_python_call_drives_a_padded_dma():
    body = (f"pto.mte_gm_ub %gm32, %ub32, %c0, %c8 nburst(%c2, %c8, %c32) pad(%s, %c1, %c1) : "
            f"!pto.ptr<f32, gm>, !pto.ptr<f32, ub>, i64, {T4}, pad f32, i64, i64")
    machine = ptosim.Machine(target="a5")
    src = machine.gm(np.array([1, 2, 3, 4], np.float32))
    _run(parse_module(kernel(body)), machine, [machine.gm(np.zeros(1, np.float16)), src])
    ub = machine.read(machine.ptr("ub", "f32", 0), 16)
    # each 2-float row is padded left and right with 2.5 and then up to 32 bytes
    np.testing.assert_array_equal(ub, [2.5, 1, 2, 2.5, 2.5, 2.5, 2.5, 2.5,
                                       2.5, 3, 4, 2.5, 2.5, 2.5, 2.5, 2.5])


def test_a_300_line_kernel_parses_whole():
    ops = "\n".join(
        f"pto.mte_gm_ub %gm16, %ub16, %c0, %c8 nburst(%c1, %c2, %c3) : !pto.ptr<f16, gm>, "
        f"!pto.ptr<f16, ub>, i64, {T4}\n"
        f'pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID{i % 8}"]\n'
        f"pto.mad %l0a, %l0b, %l0c, %c4, %c6, %c5 n_dir : !pto.ptr<f16, l0a>, "
        f"!pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64"
        for i in range(100))
    text = kernel(ops)
    assert text.count("\n") >= 300
    module = parse_module(text)              # speed: benchmarks/, not a timed test
    assert sum(isinstance(op, MicroOp) for op in module.walk()) == 200
