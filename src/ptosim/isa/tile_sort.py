"""Irregular vector tile ops (issue 14): sorts (``pto.tsort32``, ``pto.tmrgsort``), gathers and
scatters (``pto.tgather``, ``pto.tgatherb``, ``pto.tscatter``), ``pto.trandom`` and
``pto.tprint``. One row each in the generic DPS text family (``syntax="tile_dps"``: tiles and
scalars in ``ins(...)``, the destination in ``outs(...)``), Python face destination first
(``m.TSORT32(dst, src, idx)``, as pto-isa's C++ ``TSORT32(dst, src, idx)``).

A row's ``impl`` is a `TileRule` naming its semantics in `ptosim.tile.sort.FAMILIES`; each
family checks its own static rules (element types and shapes differ per operand here, unlike
the uniform elementwise rows of `ptosim.isa.tile_vector`). docs/semantics.md "Sorts, gathers,
scatters, random" records the decisions and evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from .spec import Args, Operand, OpSpec


@dataclass(frozen=True)
class TileRule:
    """``family``: the semantics in `ptosim.tile.sort.FAMILIES`; ``text_defaults``: keywords
    a ``.pto`` op always passes; ``keywords``: keywords of the Python face only."""

    family: str
    text_defaults: tuple[tuple[str, object], ...] = ()
    keywords: tuple[str, ...] = ()       # Python-only keywords (no text attribute)
    text_call: str = ""                  # a tile_dps_n row's own text -> Python mapping


def _work(args: Args) -> tuple[int, int]:
    """One operation per element of the largest tile's valid region."""
    best, size = 0, 4
    for a in args:
        valid = getattr(a, "valid", None)
        if valid is not None and valid[0] * valid[1] > best:
            best, size = valid[0] * valid[1], a.dtype.size
    return best, size


def _row(name: str, family: str, ins: tuple[Operand, ...],
         attrs: tuple[tuple[str, str], ...] = (),
         text_defaults: tuple[tuple[str, object], ...] = (), dst_role: str = "W",
         forms: tuple[tuple[str, ...], ...] = (), syntax: str = "tile_dps",
         dst: str = "dst", text_call: str = "",
         keywords: tuple[str, ...] = ()) -> OpSpec:
    return OpSpec(name, "tile", "V", "vector", name.upper(), work=_work, syntax=syntax,
                  operands=(Operand(dst, "tile", dst_role), *ins),
                  impl=TileRule(family, text_defaults, keywords, text_call),
                  attrs=attrs, forms=forms)


def _t(name: str, role: str = "R", optional: bool = False) -> Operand:
    return Operand(name, "tile", role, optional=optional)


def _s(name: str) -> Operand:
    return Operand(name, "scalar")


ROWS: tuple[OpSpec, ...] = (
    # no destination: ``pto.tprint ins(%src : T)``
    OpSpec("tprint", "tile", "V", "vector", "TPRINT", work=_work, syntax="tile_ins",
           operands=(_t("src"),), impl=TileRule("print", keywords=("format",))),
    # tmp (unaligned tails) is scratch the op writes: role W for the hazard checker
    # a .pto tsort32 with an unaligned tail runs PTOAS's template (see docs)
    _row("tsort32", "sort32", (_t("src"), _t("idx"), _t("tmp", "W", optional=True)),
         text_defaults=(("ptoas", True),)),
    # TMRGSORT: the multi-list form (dst, tmp, src0, src1[, src2[, src3]]) is the row's order;
    # the single-list form (dst, src, block_len) its other form (src / block_len are
    # "optional" only so that the row's own order trims to the 2-4 list forms)
    _row("tmrgsort", "mrgsort", (_t("tmp", "W"), _t("src0"), _t("src1"),
                                 _t("src2", optional=True), _t("src3", optional=True),
                                 _t("src", optional=True),
                                 Operand("block_len", "scalar", optional=True)),
         (("exhausted", "exhausted"),), forms=(("src", "block_len"),), syntax="tile_dps_n",
         text_call="mrgsort"),
    # two outs, C++ order (dst1, dst0, src1, src0); no PTOAS op: ptosim's text spelling
    # ``ins(%src1, %src0) outs(%dst1, %dst0)``; TDEINTERLEAVE also from one source
    _row("tinterleave", "interleave", (_t("dst0", "W"), _t("src1"), _t("src0")),
         syntax="tile_dps_n", dst="dst1"),
    _row("tdeinterleave", "deinterleave", (_t("dst0", "W"), _t("src1"),
                                           _t("src0", optional=True)),
         syntax="tile_dps_n", dst="dst1"),
    _row("trandom", "random", tuple(_s(n) for n in ("key0", "key1", "counter0", "counter1",
                                                    "counter2", "counter3")),
         (("rounds", "rounds"),)),
    # isMSB: PTOAS's legacy spelling (true = byte 1, false = byte 0), pto-isa's a5
    # THistogram<..., isMSB> template of 16-bit data
    _row("thistogram", "histogram", (_t("src"), _t("idx")),
         (("byte", "byte"), ("isMSB", "is_msb"))),
    # integer forms (src, scale[, offset]); the MX form is pto-isa's (dst, src, exp, max,
    # scaling): its exp and max take the 2nd and 3rd places (named scale / offset here, so
    # that one operand order serves both), scaling the 4th, and the ZZ-exponent overload's
    # exp_zz (pto-isa's CPU simulator only) the 5th. Python only (text: ptoas)
    _row("tquant", "quant", (_t("src"), _t("scale"), _t("offset", optional=True),
                             _t("scaling", "W", optional=True),
                             _t("exp_zz", "W", optional=True)),
         (("quant_type", "quant_type"),), text_defaults=(("ptoas", True),),
         keywords=("scale_alg", "grp_axis", "interleave", "store_mode", "cpu_sim_compat")),
    _row("tdequant", "dequant", (_t("src"), _t("scale"), _t("offset"))),
    _row("tgatherb", "gatherb", (_t("src"), _t("offsets"))),
    # index forms, or (no index tile) the mask-pattern forms; A5 ignores tgather's tmp.
    # The comparison form is the C++ order TGATHER<cmpMode>(dst, src, k_value, cdst, tmp,
    # offset) (k_value .. k are "optional" so that the row's own order trims to the index
    # forms), k_value a tile or one number k for every row. Text: PTOAS's
    # ins(%src, %k, %tmp) outs(%dst, %cdst) {cmpMode, offset} (text_call "gathercmp")
    _row("tgather", "gather", (_t("src"), _t("indices", optional=True),
                               _t("tmp", optional=True), _t("k_value", optional=True),
                               _t("cdst", "W", optional=True),
                               Operand("offset", "scalar", optional=True),
                               Operand("k", "scalar", optional=True)),
         (("maskPattern", "mask_pattern"), ("cmpMode", "cmp_mode"), ("offset", "offset")),
         forms=(("src", "k_value", "cdst", "tmp", "offset"),
                ("src", "k", "cdst", "tmp", "offset")),
         syntax="tile_dps_n", text_call="gathercmp", keywords=("cmp_mode",)),
    _row("tscatter", "scatter", (_t("src"), _t("indexes", optional=True)),
         (("maskPattern", "mask_pattern"),), dst_role="RW"),
)
