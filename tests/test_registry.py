"""The op registry is the one source of each op's metadata: every dialect op has exactly
one spec, every spec is reachable from `.pto` text and from Python, and the tables that
used to be written by hand (target op lists, the planned ops, pipes, cores) come from it."""

from types import SimpleNamespace

import pytest

import ptosim
from ptosim.errors import NotImplementedOpError
from ptosim.frontend import PTO
from ptosim.interp.executor import Core, CoreState, Executor
from ptosim.isa import BY_METHOD, BY_MNEMONIC, REGISTRY, spec, target_ops
from ptosim.isa.planned import planned_tile_methods
from ptosim.targets import TARGETS


def test_every_dialect_op_has_exactly_one_spec():
    classes = list(PTO.operations)
    assert sorted(c.name for c in classes) == sorted(BY_MNEMONIC)
    for cls in classes:
        assert cls.SPEC is BY_MNEMONIC[cls.name]
    assert len({s.mnemonic for s in REGISTRY.values()}) == len(REGISTRY)


def test_every_spec_is_reachable_from_python():
    """A spec's Machine method exists, or calling it says the op is not implemented."""
    m = ptosim.Machine()
    for s in REGISTRY.values():
        if s.method is None:
            continue
        if s.implemented:
            assert callable(getattr(m, s.method)), s.name
        else:
            with pytest.raises(NotImplementedOpError, match=rf"^{s.method}: {s.method} is a "
                               "PTO op that ptosim does not implement yet"):
                getattr(m, s.method)


def test_tables_derive_from_the_registry():
    for name, target in TARGETS.items():
        assert target.ops == target_ops(name)
        for op in target.ops:
            assert spec(op).on(name)
    assert "mte_ub_l1" in TARGETS["a5"].ops and "mte_ub_l1" not in TARGETS["a2a3"].ops
    assert {s.method for s in REGISTRY.values() if s.method and not s.implemented} \
        | planned_tile_methods() == ptosim.api.PLANNED_OPS


def test_pipes_and_cores_of_micro_ops():
    """pto-notes §1.3: AIC pipes MTE2 / MTE1 / M / FIX, AIV pipes MTE2 / V / MTE3; register
    writes run on the scalar unit (S) of either."""
    for s in REGISTRY.values():
        if s.kind != "micro":
            continue
        pipes = {"cube": {"MTE2", "MTE1", "M", "FIX", "S"},
                 "vector": {"MTE2", "V", "MTE3", "S"},
                 "any": {"S"}}             # scalar loads / stores: the scalar unit of either
        assert s.pipe_of(()) in pipes[s.core_of(())], s.name
    assert (spec("mte_gm_ub").pipe, spec("mte_ub_gm").pipe, spec("mad_acc").pipe,
            spec("mte_l0c_ub").pipe) == ("MTE2", "MTE3", "M", "FIX")


def test_tile_pipes_and_cores_follow_the_tiles():
    m = ptosim.Machine(target="a5")
    acc, vec = m.tile("Acc", "f32", 16, 16), m.tile("Vec", "f32", 16, 16)
    g = m.global_tensor(m.gm_empty(256, "f32"), shape=(1, 1, 1, 16, 16),
                        stride=(0, 0, 0, 16, 1))
    tstore = BY_METHOD["TSTORE"]
    assert (tstore.pipe_of([g, vec]), tstore.core_of([g, vec])) == ("MTE3", "vector")
    assert (tstore.pipe_of([g, acc]), tstore.core_of([g, acc])) == ("FIX", "cube")
    assert spec("tfillpad_expand").method == spec("tfillpad").method == "TFILLPAD"


def test_matmul_work_counts_flops():
    a = SimpleNamespace(dtype=SimpleNamespace(size=2))
    assert spec("mad").flops([a, a, a, 16, 32, 64]) == (2 * 16 * 32 * 64, 2)
    assert spec("mte_gm_ub").flops([]) == (0, 2)


def test_an_op_that_produces_values_binds_them():
    """The interpreter binds whatever an op's Machine method returns to the op's results
    (vector ops will return registers)."""
    machine = ptosim.Machine()
    machine.produce = lambda: (7, 8)      # stands in for a value-producing op
    fake = SimpleNamespace(name="pto.fake", results=["r0", "r1"])
    row = SimpleNamespace(method="produce", pipe_of=lambda args: "V", name="fake")
    ex = Executor(machine, lambda op: None, sync=None)
    state = CoreState(Core("vector", 0, 0))
    assert ex._invoke(state, fake, row, [], {}) == [7, 8]
    fake.results = ["r0"]
    machine.produce = lambda: 5
    assert ex._invoke(state, fake, row, [], {}) == [5]
    fake.results = []
    assert ex._invoke(state, fake, row, [], {}) is None


def test_every_vector_tile_row_parses_prints_and_has_its_python_face():
    """A vector tile op is one row: its text form (built from the row's operands) parses,
    prints and parses again, and its Python face is the shared method with the row's name."""
    from ptosim.frontend import parse_module, print_module
    from ptosim.isa.tile_vector import ROWS
    m = ptosim.Machine()
    for s in ROWS:
        dt = next(d for d in ("f32", "i32", "f16", "i16") if d in s.impl.dtypes)
        tb = f"!pto.tile_buf<vec, 16x64x{dt}>"
        body, names, types = [], [], []
        for i, o in enumerate(s.operands):
            if o.kind == "tile":
                body.append(f"%v{i} = pto.alloc_tile : {tb}")
                names.append(f"%v{i}"), types.append(tb)
            else:
                sc = "f32" if dt.startswith("f") else dt
                val = "1.0" if sc.startswith("f") else "1"
                body.append(f"%v{i} = arith.constant {val} : {sc}")
                names.append(f"%v{i}"), types.append(sc)
        op = (f"{s.mnemonic} ins({', '.join(names[1:])} : {', '.join(types[1:])}) "
              f"outs({names[0]} : {types[0]})")
        text = ("func.func @k() attributes {pto.aicore} {\n  " + "\n  ".join(body) +
                f"\n  {op}\n  return\n}}")
        printed = print_module(parse_module(text))
        assert s.mnemonic in print_module(parse_module(printed)), s.name
        assert getattr(m, s.method).__name__ == s.method
        # TCI's ramp is written by the scalar unit (PTOAS TCIOp: PIPE_S)
        assert s.pipe == ("S" if s.name == "tci" else "V") and s.core == "vector"


def _operand_text(o, i):
    """A defining line and the type for one generated operand (by kind and space)."""
    if o.kind == "ptr":
        space = o.space[0] if o.space else "gm"
        if space == "gm":
            return "", f"%g{i}", "!pto.ptr<f16, gm>"
        return (f"    %p{i} = pto.castptr %c0 : i64 -> !pto.ptr<f16, {space}>\n", f"%p{i}",
                f"!pto.ptr<f16, {space}>")
    if o.kind == "flag":
        return "", "%false", "i1"
    if o.kind == "number":
        return "", "%f", "f16"
    return "", "%c0", "i64"


def test_every_generated_row_round_trips_from_text_and_matches_its_python_face():
    """Each row with a generic syntax parses from text built from its operand specs, prints
    back identically, and its Machine method takes the row's operands in the row's order."""
    import inspect

    from ptosim.frontend import parse_module, print_module
    from ptosim.isa import GENERATED
    for s in GENERATED:
        if s.syntax not in ("scalars", "operands"):   # tile_dps / vector: tests of their own
            continue
        parts = [_operand_text(o, i) for i, o in enumerate(s.operands)]
        gms = [f"%g{i}: !pto.ptr<f16, gm>" for i, o in enumerate(s.operands)
               if o.kind == "ptr" and (not o.space or o.space[0] == "gm")]
        text = ("module attributes {pto.target_arch = \"a5\"} {\n"
                f"  func.func @k({', '.join(gms)}) attributes {{pto.aicore}} {{\n"
                "    %c0 = arith.constant 0 : i64\n    %false = arith.constant false\n"
                "    %f = arith.constant 1.0 : f16\n"
                + "".join(p[0] for p in parts)
                + f"    {s.mnemonic} {', '.join(p[1] for p in parts)} : "
                  f"{', '.join(p[2] for p in parts)}\n    return\n  }}\n}}\n")
        printed = print_module(parse_module(text, "k.pto"))
        assert s.mnemonic in printed and print_module(parse_module(printed)) == printed, s.name
        params = list(inspect.signature(getattr(ptosim.Machine, s.method)).parameters.values())
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            continue                                  # register writers take *values
        positional = [p.name for p in params[1:] if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert tuple(positional) == s.operand_names, s.name
