"""The .pto front end's diagnostics: exact locations, and nothing but PtoSyntaxError on
malformed or hostile input."""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ptosim.errors import PtoSyntaxError
from ptosim.frontend import parse_module, print_module

KERNEL = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<f16, gm>, %c: !pto.ptr<f32, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c16 = arith.constant 16 : i64
    %c32 = arith.constant 32 : i64
    %false = arith.constant false
    %l1 = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    %l0a = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0a>
    %l0b = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0b>
    %l0c = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    pto.section.cube {
      pto.mte_gm_l1_frac %a, %l1, nd2nz, shape(%c16, %c16), src_layout(%c32),
          dst_group(%c1, %c1, %c16, %c0), ctrl(%c0, %false)
        : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64),
          dst_group i64, i64, i64, i64, ctrl i64, i1
      pto.mte_l1_l0a %l1, %l0a, %c16, %c16 : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64
      pto.mte_l1_l0b %l1, %l0b, %c16, %c16 {transpose = true}
        : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>, i64, i64
      pto.mad %l0a, %l0b, %l0c, %c16, %c16, %c16 unit_flag(check_and_set) n_dir
        : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
      pto.mte_l0c_ub %l0c, %ub, %c16, %c16, %c16, %c16, dst_mode(split_m), nz2nd, sat
        : !pto.ptr<f32, l0c>, !pto.ptr<f32, ub>, i64, i64, i64, i64
      pto.mte_l0c_gm %l0c, %c, %c16, %c16, %c16, %c16, %c0, %c0,
        nz2nd, loop3(%c1, %c0, %c0), atomic(type = f32, op = add)
        : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64, i64, i64, i64
      pto.sync.set <PIPE_FIX>, 1
    }
    pto.section.vector {
      %sb = pto.get_subblock_idx
      pto.sync.wait <PIPE_MTE3>, 1
      pto.mte_ub_gm %ub, %c, %c32 nburst(%c16, %c32, %c32)
        : !pto.ptr<f32, ub>, !pto.ptr<f32, gm>, i64, i64, i64, i64
    }
    pto.barrier #pto.pipe<PIPE_ALL>
    return
  }
}
"""


def error_of(text: str, filename: str = "k.pto") -> PtoSyntaxError:
    with pytest.raises(PtoSyntaxError) as info:
        parse_module(text, filename)
    return info.value


def at(text: str, needle: str, offset: int = 0, occurrence: int = 1) -> str:
    """``line:col`` (1-based) of the ``occurrence``-th ``needle`` in ``text``, plus offset."""
    pos = -1
    for _ in range(occurrence):
        pos = text.index(needle, pos + 1)
    pos += offset
    line = text.count("\n", 0, pos) + 1
    return f"{line}:{pos - text.rfind(chr(10), 0, pos)}"


def edit(old: str, new: str) -> str:
    assert KERNEL.count(old) == 1, old
    return KERNEL.replace(old, new)


def test_the_reference_kernel_parses():
    text = print_module(parse_module(KERNEL, "k.pto"))
    assert print_module(parse_module(text)) == text


@pytest.mark.parametrize("old, new, needle, message", [
    # plain syntax error: a missing comma between operands
    ("pto.mte_l1_l0a %l1, %l0a,", "pto.mte_l1_l0a %l1 %l0a,", "%l0a, %c16, %c16 :",
     "pto.mte_l1_l0a: expected ',' before dst"),
    # unknown pto op, reported at its name
    ("%sb = pto.get_subblock_idx", "%sb = pto.vfrob %ub", "pto.vfrob", "unknown op 'pto.vfrob'"),
    # an op of a dialect that is not loaded
    ("%sb = pto.get_subblock_idx", "%sb = memref.alloc() : memref<4xf32>", "memref.alloc",
     "unknown op 'memref.alloc'"),
    # a pointer operand typed i64 in the trailing type list: reported at that type
    ("%c16, %c16 : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>",
     "%c16, %c16 : i64, !pto.ptr<f16, l0a>", "i64, !pto.ptr<f16, l0a>",
     "pto.mte_l1_l0a: src must be a !pto.ptr (or pointer memref), got i64"),
    # a scalar operand typed as a pointer
    ("!pto.ptr<f16, l0a>, i64, i64\n      pto.mte_l1_l0b",
     "!pto.ptr<f16, l0a>, !pto.ptr<f16, l1>, i64\n      pto.mte_l1_l0b",
     "!pto.ptr<f16, l1>, i64\n      pto.mte_l1_l0b",
     "pto.mte_l1_l0a: m must be an integer scalar (i64, i32 or index), got !pto.ptr<f16, l1>"),
    # a pointer type that disagrees with the value's definition: reported at the operand
    ("pto.mte_ub_gm %ub, %c, %c32", "pto.mte_ub_gm %ub, %a, %c32", "%a, %c32",
     "pto.mte_ub_gm: gm_dst is typed !pto.ptr<f32, gm> in the type list but %a has type "
     "!pto.ptr<f16, gm>"),
    # FIXPIPE clauses out of order and repeated
    ("nz2nd, loop3(%c1, %c0, %c0), atomic", "loop3(%c1, %c0, %c0), nz2nd, atomic",
     "nz2nd, atomic", "pto.mte_l0c_gm: clause 'nz2nd' is out of order or repeated"),
    ("dst_mode(split_m), nz2nd, sat", "dst_mode(split_m), sat, sat", "sat\n",
     "pto.mte_l0c_ub: clause 'sat' is out of order or repeated"),
    ("dst_mode(split_m), nz2nd, sat", "dst_mode(split_m), nz2nd, atomic(type = f32, op = add)",
     "atomic", "pto.mte_l0c_ub: atomic(...) is only allowed on pto.mte_l0c_gm"),
    ("dst_mode(split_m), nz2nd, sat", "dst_mode(split_m), nz2nd, relu", "relu",
     "pto.mte_l0c_ub: unknown clause 'relu'"),
    # mad clauses out of order
    ("unit_flag(check_and_set) n_dir", "n_dir unit_flag(check_and_set)", "unit_flag",
     "pto.mad: clause 'unit_flag' is out of order or repeated"),
    # fewer and more types than operands
    ("i64, i64, i64, i64, i64, i64, i64, i64, i64\n", "i64, i64, i64, i64, i64, i64, i64, i64\n",
     "pto.sync.set", "pto.mte_l0c_gm: expected ',' in the type list"),
    ("!pto.ptr<f16, l0a>, i64, i64\n      pto.mte_l1_l0b",
     "!pto.ptr<f16, l0a>, i64, i64, i64\n      pto.mte_l1_l0b", "i64\n      pto.mte_l1_l0b",
     "pto.mte_l1_l0a: the trailing type list has more types than operands"),
    # frac: the type list must repeat the mode
    ("!pto.ptr<f16, l1>, nd2nz, shape", "!pto.ptr<f16, l1>, dn2nz, shape", "dn2nz",
     "pto.mte_gm_l1_frac: the type list repeats mode nd2nz"),
    # DMA: loop after the end of the clauses, and a clause the op does not have
    ("nburst(%c16, %c32, %c32)\n", "nburst(%c16, %c32, %c32) nburst(%c1, %c1, %c1)\n",
     "nburst(%c1,", "pto.mte_ub_gm: nburst(...) is out of order or repeated"),
    ("nburst(%c16, %c32, %c32)\n", "nburst(%c16, %c32, %c32) pad(%c0)\n", "pad",
     "pto.mte_ub_gm: pad(...) is not a clause of this op"),
    # bad words inside types and sync ops
    ("%ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>",
     "%ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, hbm>", "hbm", "expected an address space"),
    ("%ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>",
     "%ub = pto.castptr %c0 : i64 -> !pto.ptr<f64, ub>", "f64", "f64 is not a PTO element type"),
    ("%ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>",
     "%ub = pto.castptr %c0 : i64 -> !pto.vtile<64xf32>", "!pto.vtile",
     "unknown type or attribute 'pto.vtile'"),
    ("%ub = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>",
     "%ub = pto.castptr %a : !pto.ptr<f16, gm> -> !pto.ptr<f32, ub>", "!pto.ptr<f32, ub>",
     "pto.castptr: a pointer cast keeps the address space (gm -> ub)"),
    ("pto.sync.set <PIPE_FIX>, 1", "pto.sync.set <PIPE_CUBE>, 1", "PIPE_CUBE",
     "pto.sync.set: expected a pipe"),
    ("pto.sync.set <PIPE_FIX>, 1", "pto.sync.set <PIPE_FIX>, 99999999999999999999999", "999",
     "pto.sync.set: semaphore id 99999999999999999999999 is out of range"),
    ("pto.barrier #pto.pipe<PIPE_ALL>", 'pto.set_flag["PIPE_MTE2", "PIPE_V", "EVENT_ID8"]',
     '"EVENT_ID8"', "pto.set_flag: expected the event id in quotes"),
    # a huge integer literal
    ("%c32 = arith.constant 32 : i64", "%c32 = arith.constant 99999999999999999999999 : i64",
     "%c32 = arith.constant 9", "out of range for type i64"),
    # a verifier error after parsing points at the op: the body must end in a return
    ("    return\n", "", "pto.barrier", "Operation pto.barrier terminates block"),
])
def test_diagnostics_are_located_exactly(old, new, needle, message):
    text = edit(old, new)
    err = error_of(text)
    assert err.loc == f"k.pto:{at(text, needle)}"
    assert str(err).startswith(f"k.pto:{at(text, needle)}: error: ")
    assert message in str(err)


def test_error_location_counts_lines_and_columns_from_one():
    err = error_of("module {\n  %x = pto.nope\n}\n", "f.pto")
    assert err.loc == "f.pto:2:8" and str(err) == "f.pto:2:8: error: unknown op 'pto.nope'"


# --- hostile inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize("cut", range(0, len(KERNEL) - 3, 97))
def test_truncated_kernels_fail_cleanly(cut):
    err = error_of(KERNEL[:cut])
    assert err.loc.startswith("k.pto:")


@pytest.mark.parametrize("seed", range(6))
def test_random_bytes_fail_cleanly(seed):
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
    with pytest.raises(PtoSyntaxError):
        parse_module(data.decode("latin-1"))
    with pytest.raises(PtoSyntaxError):
        parse_module(data)          # bytes that are not UTF-8 say so


TEN_MB = 10 * 1024 * 1024


@pytest.mark.parametrize("name, text", [
    ("regions", "module {\n" + "pto.section.cube {\n" * (TEN_MB // 18)),
    ("parens", "module {\n" + "(" * TEN_MB),
    ("braces", "{" * TEN_MB),
    ("types", "func.func @f(%a: " + "!pto.ptr<" * (TEN_MB // 9)),
    ("ifs", "func.func @f(%c: i1) {\n" + "scf.if %c {\n" * (TEN_MB // 12)),
    ("string", 'module attributes {x = "' + "a" * TEN_MB),     # unterminated literal
    ("integer", "%x = arith.constant " + "9" * 100_000 + " : i64"),
    ("wide int", "%x = arith.constant 1 : i4000000000"),
    ("big splat", "%x = arith.constant dense<1> : tensor<99999x99999x99999xi64>"),
    ("nul", "\x00" * 100),
    ("empty", ""),
], ids=lambda v: v if len(v) < 20 else "")
def test_hostile_inputs_fail_cleanly(name, text):
    err = error_of(text)                       # speed: benchmarks/, not a timed test
    assert err.loc.startswith("k.pto:") and len(str(err)) < 1000


# --- mutation fuzzing ----------------------------------------------------------------------
_PIECES = list("%(),:<>{}[]=\"!#.-_ \n09aeilmnprstx") + [
    "pto.", "i64", "nz2nd, ", "loop(", "%c0", "!pto.ptr<f16, ub>", "sat", "{", "}"]


@st.composite
def mutated_kernels(draw: st.DrawFn) -> str:
    text = KERNEL
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 12)))
        how = draw(st.sampled_from(("delete", "duplicate", "replace")))
        if how == "delete":
            text = text[:i] + text[j:]
        elif how == "duplicate":
            text = text[:i] + text[i:j] * 2 + text[j:]
        else:
            text = text[:i] + draw(st.sampled_from(_PIECES)) + text[j:]
    return text


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_kernels())
def test_mutated_kernels_parse_or_raise_only_syntax_errors(text):
    try:
        module = parse_module(text, "m.pto")
    except PtoSyntaxError as err:
        assert err.loc is not None and err.loc.startswith("m.pto:")
        return
    printed = print_module(module)
    assert print_module(parse_module(printed)) == printed
