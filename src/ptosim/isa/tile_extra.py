"""Further vector tile ops (issue 14): the ternary ``pto.taddc`` / ``pto.tsubc`` and their
tile-scalar-tile forms ``pto.taddsc`` / ``pto.tsubsc``, the multiply-adds ``pto.tfusedmuladd``
(``dst = src0 * dst + src1``), ``pto.tfusedmuladdrelu``, ``pto.tmuladddst``
(``dst += src0 * src1``), ``pto.tsubrelu``, ``pto.taxpy`` (``dst += src * scalar``) and
the value-and-index partial ops ``pto.tpartargmax`` /
``pto.tpartargmin``. One row each, in the generic DPS text families (``tile_dps``: tiles and
scalars in ``ins(...)``, the destination in ``outs(...)``; ``tile_dps_n`` for TPARTARG*'s two
outs). Python face as pto-isa's C++: ``m.TADDC(dst, src0, src1, src2)``,
``m.TAXPY(dst, src, scalar)``, ``m.TPARTARGMAX(dst, src0, src1, dstIdx, src0Idx, src1Idx)``.

Semantics in `ptosim.tile.extra` (each family checks its own static rules);
docs/semantics.md "Further vector tile ops" records the decisions and evidence.
"""

from __future__ import annotations

from .spec import Operand, OpSpec
from .tile_sort import TileRule, _work


def _t(name: str, role: str = "R") -> Operand:
    return Operand(name, "tile", role)


def _row(name: str, family: str, ins: tuple[Operand, ...], dst_role: str = "W",
         syntax: str = "tile_dps", text_call: str = "",
         keywords: tuple[str, ...] = ()) -> OpSpec:
    return OpSpec(name, "tile", "V", "vector", name.upper(), work=_work, syntax=syntax,
                  operands=(Operand("dst", "tile", dst_role), *ins),
                  impl=TileRule(family, text_call=text_call, keywords=keywords))


ROWS: tuple[OpSpec, ...] = (
    # no NPU code either: cpu_sim_compat=True runs the CPU simulator's formula
    *(_row(name, "ternary", (_t("src0"), _t("src1"), _t("src2")),
           keywords=("cpu_sim_compat",)) for name in ("taddc", "tsubc")),
    # tile - scalar - tile, in PTOAS's order ins(%src0, %scalar, %src1); no NPU code:
    # they run only with the Python keyword cpu_sim_compat=True (the CPU simulator's formula)
    *(_row(name, "scalar_carry", (_t("src0"), Operand("scalar", "scalar"), _t("src1")),
           keywords=("cpu_sim_compat",)) for name in ("taddsc", "tsubsc")),
    # multiply-adds: TFUSEDMULADD(_RELU) multiply dst (read and written), TMULADDDST adds to it
    _row("tfusedmuladd", "muladd", (_t("src0"), _t("src1")), dst_role="RW"),
    _row("tfusedmuladdrelu", "muladd", (_t("src0"), _t("src1")), dst_role="RW"),
    _row("tmuladddst", "muladd", (_t("src0"), _t("src1")), dst_role="RW"),
    _row("tsubrelu", "subrelu", (_t("src0"), _t("src1"))),
    _row("tpairreducesum", "pairsum", (_t("src"),)),
    # TPOW(dst, base, exp, tmp) / TPOWS(dst, base, exp scalar, tmp): tmp is written (a2a3
    # f32; a5 ignores it); pto-isa's PowAlgorithm template argument is the Python keyword
    # algo and ptosim's text attribute {algo = "HIGH_PRECISION"}
    *(OpSpec(name, "tile", "V", "vector", name.upper(), work=_work, syntax="tile_dps",
             operands=(Operand("dst", "tile", "W"), _t("base"), exp, _t("tmp", "W")),
             impl=TileRule("pow"), attrs=(("algo", "algo"),))
      for name, exp in (("tpow", _t("exp")), ("tpows", Operand("exp", "scalar")))),
    # add / sub, ReLU, convert (f32 -> f16, f16 -> i8, i16 -> i8); dequantising add
    _row("taddreluconv", "addreluconv", (_t("src0"), _t("src1"))),
    _row("tsubreluconv", "addreluconv", (_t("src0"), _t("src1"))),
    _row("tadddeqrelu", "adddeqrelu", (_t("src0"), _t("src1"), Operand("deqScale", "scalar"),
                                       _t("tmp", "RW"))),
    # TTRI<isUpperOrLower>(dst, diagonal); PTOAS: ins(%diag {upperOrLower = 1 : i32} : i32)
    OpSpec("ttri", "tile", "V", "vector", "TTRI", work=_work, syntax="tile_dps",
           operands=(Operand("dst", "tile", "W"), Operand("diagonal", "scalar")),
           impl=TileRule("tri"), attrs=(("upperOrLower", "upper_or_lower"),)),
    # dst is read (the accumulator) and written
    _row("taxpy", "axpy", (_t("src"), Operand("scalar", "scalar")), dst_role="RW"),
    # C++ order (dstVal, src0Val, src1Val, dstIdx, src0Idx, src1Idx); PTOAS's text
    # ``ins(%src0, %src1, %src0Idx, %src1Idx) outs(%dst, %dstIdx)`` maps onto it
    *(_row(f"tpartarg{op}", "partarg", (_t("src0"), _t("src1"), _t("dstIdx", "W"),
                                        _t("src0Idx"), _t("src1Idx")),
           syntax="tile_dps_n", text_call="partarg") for op in ("max", "min")),
)
