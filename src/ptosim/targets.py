"""Target profiles as data: buffer capacities, alignment, element types and ops per target.

Numbers follow pto-isa's buffer_limits.hpp / tassign.md (see docs/semantics.md, "Capacities").
Code asks the profile; op bodies never test the target's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from .dtypes import DTYPES
from .errors import PtoValueError

KIB = 1024

# Canonical on-chip space names and the aliases users may write (TileType / memref spellings).
SPACES: tuple[str, ...] = ("gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb", "l0a_mx", "l0b_mx")
SPACE_ALIASES: dict[str, str] = {
    "mat": "l1", "left": "l0a", "right": "l0b", "acc": "l0c", "vec": "ub",
    "bias": "bt", "scaling": "fb", "cbuf": "l1", "ubuf": "ub", "scaleleft": "l0a_mx",
    "scaleright": "l0b_mx",
}
# owned by the AIC; l0a_mx / l0b_mx hold MX scale tiles (a5; no capacity on a2a3)
CUBE_SPACES: tuple[str, ...] = ("l1", "l0a", "l0b", "l0c", "bt", "fb", "l0a_mx", "l0b_mx")
VECTOR_SUBBLOCKS = 2  # one AIC + two AIV per block

_COMMON_DTYPES = frozenset({"f16", "bf16", "f32", "i8", "si8", "ui8", "i16", "si16", "ui16",
                            "i32", "si32", "ui32", "i64", "si64", "ui64"})
_A5_ONLY_DTYPES = frozenset({"f8E4M3FN", "f8E5M2", "f8E8M0FNU", "hif8", "hif8x2",
                             "f4E2M1x2", "f4E1M2x2"})

_COMMON_OPS = frozenset({"mte_gm_ub", "mte_ub_gm", "mte_ub_ub", "mte_gm_l1", "mte_gm_l1_frac",
                         "mte_l1_l0a", "mte_l1_l0b", "mte_l1_bt", "mte_l1_fb",
                         "mad", "mad_acc", "mad_bias", "mte_l0c_gm", "mte_l0c_l1"})
# The UB<->L1 data path between the vector and cube cores exists on A5 only (see
# docs/semantics.md, "UB<->L1 path").
_A5_ONLY_OPS = frozenset({"mte_ub_l1", "mte_l1_ub", "mte_l0c_ub"})

# FIXPIPE quantisation modes whose math the sources pin down (docs/semantics.md, FIXPIPE).
_QUANT_COMMON = frozenset({
    "f32_f16", "f32_bf16", "qf322f16_pre_scalar", "qf322f16_pre_vec", "qf322bf16_pre_scalar",
    "qf322bf16_pre_vec", "qf322b8_pre_scalar", "qf322b8_pre_vec", "req8_scalar", "req8_vec",
    "deqf16_scalar", "deqf16_vec"})
_QUANT_A5 = frozenset({"qf322f32_pre_scalar", "qf322f32_pre_vec", "qf322fp8_pre_scalar",
                       "qf322fp8_pre_vec", "qs322bf16_pre_scalar", "qs322bf16_pre_vec"})


@dataclass(frozen=True)
class Target:
    """A hardware profile. ``capacity`` is bytes per buffer (UB: per vector sub-block)."""

    name: str
    capacity: dict[str, int]
    dtypes: frozenset[str]
    ops: frozenset[str]
    l0a_layout: str = "NZ"          # fractal layout of the left operand in L0A
    mad_types: frozenset[tuple[str, str, str]] = frozenset()   # (lhs, rhs, acc) triples
    align: int = 32                 # base-address alignment of every on-chip buffer access
    l0_align: int = 32              # base alignment of L0A/L0B/L0C operand tiles
    bt_unit: int = 32               # mte_l1_bt burst unit, bytes of source
    fb_unit: int = 64               # mte_l1_fb burst unit, bytes
    quant_modes: frozenset[str] = frozenset()   # FIXPIPE pre_quant modes with known math
    fixpipe_layouts: frozenset[str] = frozenset({"nz2nd", "nz2nz"})
    tload_max_rows: int | None = None   # largest TLOAD destination tile (physical rows)
    tload_b64_pads: frozenset[str] = frozenset({"Null", "Zero", "Max", "Min"})  # 64-bit tiles
    fillpad_from_valid_col: bool = False   # Vec TFILLPAD pads from src's valid column (else
                                           # from its 32 B block end when the pads agree)
    max_blocks: int = 24            # AI cores (one AIC + two AIV each) of the largest part
    # How TMATMUL keeps a one-row Left tile off mad's GEMV path: "disable_gemv" (the a5
    # library sets the clause) or "m16" (the a2a3 library issues m = 16 instead).
    matmul_no_gemv: str = "disable_gemv"

    def has_dtype(self, name: str) -> bool:
        return name in self.dtypes

    def has_op(self, name: str) -> bool:
        return name in self.ops


_MAD_COMMON = frozenset({("i8", "i8", "i32"), ("f16", "f16", "f32"), ("bf16", "bf16", "f32"),
                         ("f32", "f32", "f32")})
_MAD_A5 = frozenset({(a, b, "f32") for a in ("f8E4M3FN", "f8E5M2")
                     for b in ("f8E4M3FN", "f8E5M2")} | {("hif8", "hif8", "f32")})

A2A3 = Target(
    name="a2a3",
    capacity={"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 128 * KIB,
              "ub": 192 * KIB, "bt": 1 * KIB, "fb": 2 * KIB, "l0a_mx": 0, "l0b_mx": 0},
    dtypes=_COMMON_DTYPES,
    ops=_COMMON_OPS,
    l0a_layout="ZZ",
    mad_types=_MAD_COMMON,
    bt_unit=64,
    fb_unit=128,
    quant_modes=_QUANT_COMMON,
    tload_max_rows=4095,
    max_blocks=24,
    matmul_no_gemv="m16",
)

A5 = Target(
    name="a5",
    capacity={"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 256 * KIB,
              "ub": 256 * KIB, "bt": 4 * KIB, "fb": 4 * KIB, "l0a_mx": 4 * KIB,
              "l0b_mx": 4 * KIB},
    dtypes=_COMMON_DTYPES | _A5_ONLY_DTYPES,
    ops=_COMMON_OPS | _A5_ONLY_OPS,
    l0a_layout="NZ",
    mad_types=_MAD_COMMON | _MAD_A5,
    quant_modes=_QUANT_COMMON | _QUANT_A5,
    fixpipe_layouts=frozenset({"nz2nd", "nz2dn", "nz2nz"}),
    tload_b64_pads=frozenset({"Null", "Zero"}),
    fillpad_from_valid_col=True,
    max_blocks=36,
)

TARGETS: dict[str, Target] = {t.name: t for t in (A2A3, A5)}
assert all(d in DTYPES for t in TARGETS.values() for d in t.dtypes)


def get_target(name: str | Target) -> Target:
    """Look up a profile by name (``a2a3`` or ``a5``)."""
    if isinstance(name, Target):
        return name
    key = name.strip().lower()
    if key not in TARGETS:
        raise PtoValueError(f"unknown target {name!r}; known targets: {', '.join(TARGETS)}")
    return TARGETS[key]


def canonical_space(name: str) -> str:
    """Canonical space name for a spelling (``mat`` -> ``l1``); raises on unknown spaces."""
    key = name.strip().lower()
    key = SPACE_ALIASES.get(key, key)
    if key not in SPACES:
        raise PtoValueError(f"unknown address space {name!r}; known: "
                       f"{', '.join(SPACES)} (aliases: {', '.join(SPACE_ALIASES)})")
    return key
