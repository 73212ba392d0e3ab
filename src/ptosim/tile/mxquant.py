"""TQUANT's MX (microscaling) forms, as pto-isa's A5 code runs them
(``include/pto/npu/a5/TQuant.hpp``): ``TQUANT<QuantType::MXFP8>(dst, src, exp, max,
scaling)`` (also ``QuantType::MXFP4_E2M1`` and ``QuantScaleAlg::NV``) with ND grouping
(32 consecutive elements of a row share one e8m0 exponent).

Implemented, ND only: MXFP8 (e4m3, OCP and NV recipes) from f32 (flat and row-strided
exponent tiles) and from bf16 / f16 when the source's valid columns fill its rows; MXFP4
(e2m1, packed pairs, OCP) from bf16 / f16 with a flat exponent tile. The rest (MXFP4 NV,
DN grouping, the other b16 layouts) raises `NotImplementedOpError`. docs/semantics.md
"TQUANT MX" records every decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import pack_nibbles
from ..errors import DtypeError, NotImplementedOpError, PtoValueError, VerifyError
from ..isa import convert as C
from .tile import E8M0, Tile
from .vector import _nd

if TYPE_CHECKING:
    from .ops import TileOps

GROUP = 32                       # elements per shared exponent
MX_TYPES = ("MXFP8", "MXFP4_E2M1")
SCALE_ALGS = ("OCP", "NV")
E4M3_EMAX = 8                    # largest unbiased exponent of e4m3 (448 = 1.75 * 2^8)
E2M1_EMAX = 2                    # largest unbiased exponent of e2m1 (6 = 1.5 * 2^2)
_F32_NAN = 0x7FC00000            # scaling of a NaN group (f32 path)
_BF16_NAN = {E4M3_EMAX: 0x7F81, E2M1_EMAX: 0x7FC0}     # NaN-group scaling, b16 paths
NV_DESCALE = np.float32(1.0 / 448.0)       # NV e4m3: 1 / MAX_NORM as an f32 constant
_E8M0_NAN = 0xFF
_FP8_OUT = ("f8E4M3FN", "i8", "ui8")       # pto-isa types the dst int8_t (raw e4m3 codes)
_FP4_OUT = ("f4E2M1x2",)
_EXP_OUT = (E8M0, "ui8")
CTRL_AFTER = 1 << 50                       # CTRL as the a5 MX code leaves it


def mx_quant(m: TileOps, op: str, dst: Tile, src: Tile, exp: Tile, mx: Tile, scaling: Tile,
             kw: dict[str, Any]) -> None:
    """Check the MX form's static rules, then quantize (a5 semantics)."""
    qt = kw.get("quant_type", "MXFP8")
    alg = kw.get("scale_alg", "OCP")
    axis = kw.get("grp_axis", 1)
    if alg not in SCALE_ALGS:
        raise PtoValueError(f"scale_alg must be OCP or NV, got {alg!r}", op=op,
                            operand="scale_alg")
    if axis not in (0, 1):
        raise PtoValueError(f"grp_axis must be 0 (DN) or 1 (ND), got {axis!r}", op=op,
                            operand="grp_axis")
    if kw.get("ptoas"):
        raise NotImplementedOpError(f"{op}: PTOAS's quant_type has no MX spelling (INT8_SYM "
                                    f"and INT8_ASYM only); the MX form is Python only")
    if axis != 1:
        raise NotImplementedOpError(f"{op} {qt} with grp_axis=0 (DN grouping) is not "
                                    f"implemented")
    if alg == "NV" and qt == "MXFP4_E2M1":
        raise NotImplementedOpError(
            f"{op} MXFP4_E2M1 with the NV recipe is not implemented (a5's flat path takes an "
            f"NV maximum but the OCP exponent; its row-strided path is not modelled)")
    if not m.target.has_dtype("f8E4M3FN"):
        raise DtypeError(f"the MX formats are a5 only (target {m.target.name})", op=op)
    fp4 = qt == "MXFP4_E2M1"
    srcs = ("bf16", "f16") if fp4 else ("f32", "bf16", "f16")
    outs = _FP4_OUT if fp4 else _FP8_OUT
    if src.dtype.name not in srcs:
        raise DtypeError(f"src element type must be one of {', '.join(srcs)} for {qt}, got "
                         f"{src.dtype.name}", op=op, operand="src")
    if dst.dtype.name not in outs:
        raise DtypeError(f"dst element type must be one of {', '.join(outs)} for {qt}, got "
                         f"{dst.dtype.name}", op=op, operand="dst")
    if exp.dtype.name not in _EXP_OUT:
        raise DtypeError(f"exp element type must be one of {', '.join(_EXP_OUT)}, got "
                         f"{exp.dtype.name}", op=op, operand="exp")
    for name, t in (("max", mx), ("scaling", scaling)):
        if t.dtype.name != src.dtype.name:
            raise DtypeError(f"{name} is {t.dtype.name} but src is {src.dtype.name}: they "
                             f"must match", op=op, operand=name)
    if src.cols % GROUP:
        raise VerifyError(f"src's cols ({src.cols}) must be a multiple of {GROUP}", op=op,
                          operand="src")
    want = (src.rows, src.cols // 2 if fp4 else src.cols)     # FP4 columns are byte pairs
    if (dst.rows, dst.cols) != want:
        raise VerifyError(f"dst is {dst.rows}x{dst.cols} but src is {src.rows}x{src.cols}: "
                          f"dst must be {want[0]}x{want[1]}", op=op, operand="dst")
    rows, cols = src.valid
    flat = exp.rows == 1       # a5: a 1-row exp tile is written flat, else row-strided
    b16 = src.dtype.name != "f32"
    if fp4 and not flat:
        raise NotImplementedOpError(f"{op} MXFP4_E2M1 with a 2-D exp tile is not implemented "
                                    f"(a5's row-strided FP4 path)")
    if b16 and not fp4 and (cols != src.cols or not flat):
        raise NotImplementedOpError(
            f"{op} MXFP8 from {src.dtype.name} with padding columns or a 2-D exp tile is "
            f"not implemented (a5 zero-pads the source and runs its 2-D paths)")
    gpr = src.cols // GROUP if flat else -(-cols // GROUP)        # groups per row
    groups = rows * gpr
    if flat and exp.cols < groups:
        raise VerifyError(f"exp holds {exp.cols} bytes but src's {rows} valid rows need "
                          f"{groups} exponents", op=op, operand="exp")
    if not flat and (exp.rows < rows or exp.cols < gpr):
        raise VerifyError(f"exp is {exp.rows}x{exp.cols} but src's valid region needs "
                          f"{rows}x{gpr} exponents", op=op, operand="exp")
    for name, t in (("max", mx), ("scaling", scaling)):
        if t.rows * t.cols < groups:
            raise VerifyError(f"{name} holds {t.rows * t.cols} values but src's valid region "
                              f"has {groups} groups", op=op, operand=name)
    # a5 sets CTRL to 1 << 50 (saturating casts keep NaN) first and leaves it so
    m.ctrl = CTRL_AFTER
    if groups == 0:
        return
    if fp4 and cols < src.cols:    # a5 zero-fills src's padding columns in place first
        _nd(m, src, "W", "src")[:rows, cols:] = 0
    x = _nd(m, src, "R", "src")[:rows]
    if flat:                   # the valid rows as one stream of whole rows (pads included)
        blocks = x.reshape(groups, GROUP)
    else:                      # per row, the valid columns; a short last group pads with 0
        padded = np.zeros((rows, gpr * GROUP), x.dtype)
        padded[:, :cols] = x[:, :cols]
        blocks = padded.reshape(groups, GROUP)
    if alg == "NV":
        emax_bits, e8, scale_bits = _nv(blocks)
    elif b16:
        emax_bits, e8, scale_bits = _ocp_b16(blocks, E2M1_EMAX if fp4 else E4M3_EMAX)
    else:
        emax_bits, e8, scale_bits = _ocp_f32(blocks)
    if b16:                    # b16 paths keep bf16 scaling bits
        scale = (scale_bits.astype(np.uint32) << 16).view(np.float32)
    else:
        scale = scale_bits.view(np.float32)
    # stage 3: x * scaling in f32 (exact for every value that can reach a code: powers of
    # two, far from f32's and bf16's limits), then the element cast
    with np.errstate(invalid="ignore", over="ignore"):
        y = blocks.astype(np.float32) * scale[:, None]
    if fp4:
        # nearest even, |y| > 6 and inf -> +-6, zeros keep their sign (f16: the magic-add
        # rounding of `CalcE2M1SignedCodeI32`; bf16: vcvt ROUND_R after NaN -> +inf)
        codes = C.fp4_encode(y, "f32", "f4E2M1x2", rnd="R")
        codes[np.isnan(y)] = 0x7                    # NaN -> +6 on both paths
    else:
        # vcvt ROUND_R with saturation: nearest even, |y| > 448 -> +-448, NaN -> NaN
        codes = C.convert(y, "f32", "f8E4M3FN", rnd="R", sat=True).view(np.uint8)
        codes[e8 == _E8M0_NAN] = 0x7F      # a NaN group: every product is the NaN scaling
    _flat(m, mx, "max")[:groups] = emax_bits
    _flat(m, scaling, "scaling")[:groups] = scale_bits
    d = _nd(m, dst, "W", "dst").view(np.uint8)
    if flat:
        out = pack_nibbles(codes.reshape(-1)) if fp4 else codes.reshape(-1)
        d.reshape(-1)[:out.size] = out
        _flat(m, exp, "exp").view(np.uint8)[:groups] = e8
    else:
        d[:rows, :cols] = codes.reshape(rows, gpr * GROUP)[:, :cols]
        _nd(m, exp, "W", "exp").view(np.uint8)[:rows, :gpr] = e8.reshape(rows, gpr)


def _flat(m: TileOps, t: Tile, operand: str) -> np.ndarray:
    """The tile's buffer as one run of raw element bits (the a5 code reshapes the exp, max
    and scaling tiles to 1 x Rows*Cols)."""
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[t.dtype.size]
    return _nd(m, t, "W", operand).view(bits).reshape(-1)


def _ocp_f32(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f32 OCP stage 1-2 per group: (max bits, e8m0, scaling bits). The max is |x|'s
    largest value, NaN if any element is NaN; its biased exponent e gives e8m0 = e - 8
    and scaling 2^(127 - e8m0) (bits (254 - e8m0) << 23); e <= 8 clamps to e8m0 0 and
    scaling 2^127; a NaN max gives e8m0 0xFF and the f32 quiet NaN."""
    with np.errstate(invalid="ignore"):
        mx = np.max(np.abs(blocks), axis=1).astype(np.float32)
    bits = mx.view(np.uint32)
    e = (bits >> 23) & 0xFF
    nan = (e == 0xFF) & ((bits & 0x7FFFFF) != 0)
    clamp = e <= E4M3_EMAX
    shared = np.where(clamp, 0, e - E4M3_EMAX)
    scaling = np.where(clamp, np.uint32(0x7F000000), (254 - shared) << 23)
    shared = np.where(nan, _E8M0_NAN, shared)
    scaling = np.where(nan, np.uint32(_F32_NAN), scaling)
    bits = np.where(nan, np.uint32(_F32_NAN), bits)
    return bits.astype(np.uint32), shared.astype(np.uint8), scaling.astype(np.uint32)


def _bf16_abs_bits(blocks: np.ndarray) -> np.ndarray:
    """|x| as bf16 bits: bf16 as is; f16 through a round-toward-zero cast to bf16 with
    infinity kept and every NaN made 0x7FC0 (a5 `Fp16ToBf16PreserveSpecial`)."""
    if blocks.dtype == np.float16:
        h = blocks.view(np.uint16)
        f = blocks.astype(np.float32)            # exact
        b = (f.view(np.uint32) >> 16).astype(np.uint16)     # truncation = round to zero
        nan = ((h & 0x7C00) == 0x7C00) & ((h & 0x03FF) != 0)
        b = np.where(nan, np.uint16(0x7FC0), b)
    else:
        b = blocks.view(np.uint16)
    return (b & 0x7FFF).astype(np.uint16)


def _ocp_b16(blocks: np.ndarray, emax: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """bf16 / f16 OCP stage 1-2 per group: (max bits, e8m0, scaling bits), all on bf16
    bit patterns: the max is the largest |x| bit pattern (so any NaN wins); its exponent
    field clamped to at least ``emax`` (8 for e4m3, 2 for e2m1) gives e8m0 = field - emax
    and the bf16 scaling 0x7F00 - (e8m0 << 7) = 2^(127 - e8m0); a NaN max gives e8m0 0xFF
    and scaling 0x7F81 (e4m3) / 0x7FC0 (e2m1)."""
    mx = np.max(_bf16_abs_bits(blocks), axis=1).astype(np.uint16)
    field = mx & 0x7F80
    nan = (field == 0x7F80) & ((mx & 0x7F) != 0)
    shared = np.maximum(field, emax << 7) - (emax << 7)
    scaling = (0x7F00 - shared).astype(np.uint16)
    e8 = np.where(nan, _E8M0_NAN, shared >> 7).astype(np.uint8)
    scaling = np.where(nan, np.uint16(_BF16_NAN[emax]), scaling).astype(np.uint16)
    return mx, e8, scaling


def _nv(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NV (e4m3) stage 1-2 per group: (max bits, e8m0, scaling bits). The max: f32 as for
    OCP, bf16 as bf16 bits, f16 as the largest |x| f16 bit pattern (not cast to bf16).
    d = max * f32(1/448) rounded in f32; e8m0 = d's biased exponent, plus 1 when d's
    mantissa is nonzero (normal d below exponent 0xFE) or above half (subnormal d);
    scaling = 2^(127 - e8m0) as f32 bits (254 - e8m0) << 23, or for b16 sources bf16 bits
    (254 - e8m0) << 7; an infinite max gives e8m0 0xFE and scaling 2^-127 (0x00400000 /
    0x0040), a NaN max e8m0 0xFF and the quiet NaN (0x7FC00000 / 0x7F81)."""
    b16 = blocks.dtype != np.float32
    if blocks.dtype == np.float16:
        mx = np.max(blocks.view(np.uint16) & 0x7FFF, axis=1).astype(np.uint16)
        value = mx.view(np.float16).astype(np.float32)
    elif b16:
        mx = np.max(_bf16_abs_bits(blocks), axis=1).astype(np.uint16)
        value = (mx.astype(np.uint32) << 16).view(np.float32)
    else:
        with np.errstate(invalid="ignore"):
            value = np.max(np.abs(blocks), axis=1).astype(np.float32)
        mx = np.where(np.isnan(value), np.uint32(_F32_NAN), value.view(np.uint32))
    with np.errstate(invalid="ignore", over="ignore"):
        d = (value * NV_DESCALE).astype(np.float32).view(np.uint32)
    e = ((d >> 23) & 0xFF).astype(np.int64)
    man = d & 0x7FFFFF
    up = ((man != 0) & (e > 0) & (e < 0xFE)) | ((e == 0) & (man > 0x400000))
    shared = e + up
    inf = (e == 0xFF) & (man == 0)
    nan = (e == 0xFF) & (man != 0)
    if b16:
        scaling = ((0xFE - shared) << 7) & 0xFFFF
        scaling = np.where(inf, 0x0040, np.where(nan, _BF16_NAN[E4M3_EMAX], scaling))
    else:
        scaling = ((0xFE - shared) << 23) & 0xFFFFFFFF
        scaling = np.where(inf, 0x00400000, np.where(nan, _F32_NAN, scaling))
    shared = np.where(inf, 0xFE, np.where(nan, _E8M0_NAN, shared))
    return mx, shared.astype(np.uint8), scaling.astype(np.uint16 if b16 else np.uint32)
