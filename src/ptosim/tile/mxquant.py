"""TQUANT's MX (microscaling) forms, as pto-isa's A5 code runs them
(``include/pto/npu/a5/TQuant.hpp``): ``TQUANT<QuantType::MXFP8>(dst, src, exp, max,
scaling)`` (also ``QuantType::MXFP4_E2M1``, ``QuantScaleAlg::NV`` and the
``<grp_axis, MxQuantAlg[, interleave]>`` form): ND grouping (32 consecutive elements of a
row share one e8m0 exponent) and DN grouping (32 consecutive rows of a column).

MXFP8 (e4m3) from f32 / bf16 / f16 and MXFP4 (e2m1, packed pairs) from bf16 / f16, OCP
and NV recipes, each on the a5 path its tiles select: ND with a flat or a row-strided exp
tile (b16 sources: zero-padded padding columns, a5's packed scratch layouts and the
scratch copies it leaves), DN linear or interleaved (b16 with an odd number of valid
columns included). The ZZ-exponent overload (``exp_zz``, ``store_mode="NZ"``) exists only in
pto-isa's CPU simulator: it runs with ``cpu_sim_compat=True``. docs/semantics.md "TQUANT MX"
records every decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import pack_nibbles
from ..errors import DtypeError, NotImplementedOpError, PtoTypeError, PtoValueError, VerifyError
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
# NV: 1 / the format's largest value, as the f32 constants `1.0f / 448.0f`, `1.0f / 6.0f`
NV_DESCALE = {E4M3_EMAX: np.float32(1) / np.float32(448),
              E2M1_EMAX: np.float32(1) / np.float32(6)}
_E8M0_NAN = 0xFF
_FP8_OUT = ("f8E4M3FN", "i8", "ui8")       # pto-isa types the dst int8_t (raw e4m3 codes)
_FP4_OUT = ("f4E2M1x2",)
_EXP_OUT = (E8M0, "ui8")
CTRL_AFTER = 1 << 50                       # CTRL as the a5 MX code leaves it
VL_BYTES = 256                             # a5 vector register
WINDOW = 8                                 # groups per a5 b16 quantize window
MAX_ALIGN = 16                             # b16 maxima per 32-byte block
EXP_SCRATCH_AT = 16                        # byte of an exp row a5 borrows as scratch


def mx_quant(m: TileOps, op: str, dst: Tile, src: Tile, exp: Tile, mx: Tile, scaling: Tile,
             kw: dict[str, Any]) -> None:
    """Check the MX form's static rules, then quantize (a5 semantics)."""
    qt = kw.get("quant_type", "MXFP8")
    alg = kw.get("scale_alg", "OCP")
    axis = kw.get("grp_axis", 1)
    inter = kw.get("interleave", False)
    if alg not in SCALE_ALGS:
        raise PtoValueError(f"scale_alg must be OCP or NV, got {alg!r}", op=op,
                            operand="scale_alg")
    if axis not in (0, 1):
        raise PtoValueError(f"grp_axis must be 0 (DN) or 1 (ND), got {axis!r}", op=op,
                            operand="grp_axis")
    if not isinstance(inter, bool):
        raise PtoValueError(f"interleave must be True or False, got {inter!r}", op=op,
                            operand="interleave")
    if inter and axis != 0:
        raise PtoValueError("interleave (the paired exponent layout) needs grp_axis=0 (DN)",
                            op=op, operand="interleave")
    if kw.get("ptoas"):
        raise NotImplementedOpError(f"{op}: PTOAS's quant_type has no MX spelling (INT8_SYM "
                                    f"and INT8_ASYM only); the MX form is Python only")
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
    q = _Quant(fp4, alg, src.dtype.name)
    if axis == 0:
        _dn(m, op, q, dst, src, exp, mx, scaling, inter)
    else:
        _nd_form(m, op, q, dst, src, exp, mx, scaling)


ZZ_ROWS, ZZ_GROUPS = 16, 2                 # a ZZ exponent box: 16 rows x 2 groups


def mx_quant_zz(m: TileOps, op: str, dst: Tile, src: Tile, exp: Tile, mx: Tile, scaling: Tile,
                exp_zz: Tile | None, kw: dict[str, Any]) -> None:
    """pto-isa's ZZ-exponent overload ``TQUANT<MXFP8, VecStoreMode::NZ>(dst, src, &exp,
    &max, &scaling, &exp_zz)``. Only the CPU simulator defines it (a5 dropped its version
    for TQUANT then TMOV ND -> ZZ), so it runs only with ``cpu_sim_compat``: the ND MXFP8
    OCP TQUANT, then exp's first rows x groups bytes copied into exp_zz in ZZ order."""
    if kw.get("ptoas"):
        raise NotImplementedOpError(f"{op}: PTOAS's tquant has no MX forms (INT8_SYM and "
                                    f"INT8_ASYM only) and no store mode; the ZZ-exponent "
                                    f"overload is Python only")
    if exp_zz is None:
        raise PtoTypeError("store_mode belongs to the ZZ-exponent overload: pass an exp_zz tile "
                           "after scaling", op=op, operand="store_mode")
    store = kw.get("store_mode", "NZ")
    if store != "NZ":
        raise PtoValueError(f"store_mode must be NZ (the ZZ-exponent overload is pto-isa's "
                            f"VecStoreMode::NZ form), got {store!r}", op=op, operand="store_mode")
    qt = kw.get("quant_type", "MXFP8")
    if qt != "MXFP8":
        raise PtoValueError(f"the ZZ-exponent overload is MXFP8 only, got {qt!r}", op=op,
                            operand="quant_type")
    for key, fixed in (("scale_alg", "OCP"), ("grp_axis", 1), ("interleave", False)):
        if kw.get(key, fixed) != fixed:
            raise PtoValueError(f"the ZZ-exponent overload takes no {key} (it runs {key}="
                                f"{fixed!r}), got {kw[key]!r}", op=op, operand=key)
    if not kw.get("cpu_sim_compat"):
        raise NotImplementedOpError(
            f"{m.target.name} has no NPU implementation of the ZZ-exponent overload (pto-isa "
            f"defines TQUANT_IMPL<quant_type, store_mode>(..., exp_zz) in its CPU simulator "
            f"only, include/pto/cpu/TQuant.hpp; a5 writes ZZ exponents with TQUANT, then "
            f"TMOV(e8Zz, e8, tmp)); pass cpu_sim_compat=True to run the CPU simulator's "
            f"formula", op=op)
    if exp_zz.dtype.name != exp.dtype.name:
        raise DtypeError(f"exp_zz is {exp_zz.dtype.name} but exp is {exp.dtype.name}: they "
                         f"must match (one C++ tile type)", op=op, operand="exp_zz")
    if (exp_zz.rows, exp_zz.cols) != (exp.rows, exp.cols):
        raise VerifyError(f"exp_zz is {exp_zz.rows}x{exp_zz.cols} but exp is {exp.rows}x"
                          f"{exp.cols}: they must match (one C++ tile type)", op=op,
                          operand="exp_zz")
    rows, cols = src.valid
    gc = cols // GROUP         # the CPU simulator counts valid cols / 32 groups per row
    if rows % ZZ_ROWS or gc % ZZ_GROUPS:
        raise VerifyError(f"the ZZ exponent order needs src's valid rows a multiple of "
                          f"{ZZ_ROWS} and valid cols / {GROUP} a multiple of {ZZ_GROUPS}, got "
                          f"{rows} and {cols} / {GROUP} = {gc}", op=op, operand="src")
    total = rows * gc          # within exp: the ND form's own checks need at least this
    base = {k: v for k, v in kw.items() if k not in ("store_mode", "cpu_sim_compat")}
    mx_quant(m, op, dst, src, exp, mx, scaling, base)
    # ZZ order: 16-row x 2-group boxes, boxes row-block by row-block, each box row-major
    rb, gb, ir, ig = np.meshgrid(np.arange(rows // ZZ_ROWS), np.arange(gc // ZZ_GROUPS),
                                 np.arange(ZZ_ROWS), np.arange(ZZ_GROUPS), indexing="ij")
    at = ((rb * ZZ_ROWS + ir) * gc + gb * ZZ_GROUPS + ig).reshape(-1)
    vals = _flat(m, exp, "exp")[:total].copy()
    _flat(m, exp_zz, "exp_zz")[:total] = vals[at]


class _Quant:
    """The per-group arithmetic of one (format, recipe, source type): stage 1 (the group
    maximum as raw bits), stage 2 (e8m0 and scaling bits) and stage 3 (the element codes)."""

    def __init__(self, fp4: bool, alg: str, st: str) -> None:
        self.fp4, self.alg, self.st = fp4, alg, st
        self.emax = E2M1_EMAX if fp4 else E4M3_EMAX
        self.b16 = st != "f32"
        # a5 reduces f16 as raw f16 bits for NV, through a bf16 cast for OCP
        self.raw_f16 = alg == "NV" and st == "f16"

    def reduce(self, blocks: np.ndarray) -> np.ndarray:
        """Stage 1 per row of ``blocks``: f32 maxima as f32 bits (any NaN gives the quiet
        NaN), b16 maxima as the largest |x| bit pattern (bf16 bits; NV f16: f16 bits)."""
        if not self.b16:
            with np.errstate(invalid="ignore"):
                v = np.max(np.abs(blocks), axis=1).astype(np.float32)
            return np.where(np.isnan(v), np.uint32(_F32_NAN), v.view(np.uint32))
        if self.raw_f16:
            return np.max(blocks.view(np.uint16) & 0x7FFF, axis=1).astype(np.uint16)
        return np.max(_bf16_abs_bits(blocks), axis=1).astype(np.uint16)

    def extract(self, mbits: np.ndarray, nv: bool) -> tuple[np.ndarray, np.ndarray]:
        """Stage 2: (e8m0, scaling bits) per group, by the NV or the OCP rule."""
        if nv:
            kind = "f32" if not self.b16 else "f16" if self.raw_f16 else "bf16"
            return _nv(mbits, kind, self.emax)
        if self.b16:
            return _ocp_b16(mbits, self.emax)
        return _ocp_f32(mbits)

    def scale(self, sbits: np.ndarray) -> np.ndarray:
        """Scaling bits as f32 values (b16 paths keep bf16 bits, also in an f16 tile)."""
        if self.b16:
            return (sbits.astype(np.uint32) << 16).view(np.float32)
        return sbits.astype(np.uint32).view(np.float32)

    def codes(self, blocks: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """Stage 3: x * scaling in f32 (exact for every value that can reach a code: powers
        of two, far from f32's and bf16's limits), then the element cast."""
        with np.errstate(invalid="ignore", over="ignore"):
            y = blocks.astype(np.float32) * scale[:, None]
        nan = np.isnan(y)
        if self.fp4:
            # nearest even, |y| > 6 and inf -> +-6, zeros keep their sign (f16: the
            # magic-add rounding of `CalcE2M1SignedCodeI32`; bf16: vcvt ROUND_R after NaN ->
            # +inf); NaN -> +6 on both paths
            codes = C.fp4_encode(y, "f32", "f4E2M1x2", rnd="R")
            codes[nan] = 0x7
            return codes
        # vcvt ROUND_R with saturation: nearest even, |y| > 448 -> +-448; a NaN product
        # (every element of a NaN group) -> 0x7F
        codes = C.convert(y, "f32", "f8E4M3FN", rnd="R", sat=True).view(np.uint8)
        codes[nan] = 0x7F
        return codes


def _nd_form(m: TileOps, op: str, q: _Quant, dst: Tile, src: Tile, exp: Tile, mx: Tile,
             scaling: Tile) -> None:
    """ND grouping: 32 consecutive elements of a row. a5 picks the path from the exp tile
    (1 row: flat; more: row-strided) and, for b16 sources, from the padding columns."""
    rows, cols = src.valid
    flat = exp.rows == 1       # a5: a 1-row exp tile is written flat, else row-strided
    cpr = src.cols // GROUP    # groups per whole row
    gv = -(-cols // GROUP)     # groups per row that hold valid columns
    packed = q.b16 and not flat
    # a5 OCP MXFP8 b16 with padding columns and srcCols % 512 == 0: exp / scaling / dst
    # only for the valid groups of each row, at flat index r * cpr + g
    split = (q.b16 and flat and not q.fp4 and cols < src.cols and q.alg == "OCP"
             and src.cols % 512 == 0)
    gpr = cpr if flat else gv
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
    max_pad = packed and gv <= WINDOW and groups > 0
    if max_pad and mx.rows * mx.cols < groups + (-groups % MAX_ALIGN):
        raise VerifyError(f"max holds {mx.rows * mx.cols} values but a5's packed maxima of "
                          f"{groups} groups are padded to {groups + (-groups % MAX_ALIGN)} "
                          f"(a 32-byte block)", op=op, operand="max")
    # MXFP8 with fewer than 8 groups: a5 stages scales in exp rows from byte 16 (always
    # inside the row: it holds at most 7 groups, and exp rows are 32-byte multiples)
    in_exp = packed and not q.fp4 and groups < WINDOW
    # a5 sets CTRL to 1 << 50 (saturating casts keep NaN) first and leaves it so
    m.ctrl = CTRL_AFTER
    if groups == 0:
        return
    if q.b16 and cols < src.cols:      # a5 zero-fills src's padding columns in place first
        _zero_pad(m, src, rows, cols)
    x = _nd(m, src, "R", "src")[:rows]
    if flat:                   # the valid rows as one stream of whole rows (pads included)
        blocks = x.reshape(groups, GROUP)
    else:                      # per row, the valid columns; a short last group pads with 0
        padded = np.zeros((rows, gpr * GROUP), x.dtype)
        padded[:, :cols] = x[:, :cols]
        blocks = padded.reshape(groups, GROUP)
    mbits = q.reduce(blocks)
    # a5's flat MXFP4 path reduces the NV maximum but runs the OCP e2m1 extraction on it
    e8, sbits = q.extract(mbits, nv=q.alg == "NV" and not (q.fp4 and flat))
    codes = q.codes(blocks, q.scale(sbits))
    _flat(m, mx, "max")[:groups] = mbits
    d = _nd(m, dst, "W", "dst").view(np.uint8)
    if split:
        sel = (np.arange(rows)[:, None] * cpr + np.arange(gv)).reshape(-1)
        _flat(m, exp, "exp")[sel] = e8[sel]
        _flat(m, scaling, "scaling")[sel] = sbits[sel]
        d[:rows, :cols] = codes.reshape(rows, cpr * GROUP)[:, :cols]
        return
    _flat(m, scaling, "scaling")[:groups] = sbits
    if flat:
        out = pack_nibbles(codes.reshape(-1)) if q.fp4 else codes.reshape(-1)
        d.reshape(-1)[:out.size] = out
        _flat(m, exp, "exp")[:groups] = e8
        return
    _nd(m, exp, "W", "exp").view(np.uint8)[:rows, :gpr] = e8.reshape(rows, gpr)
    if not q.b16:              # f32: only the valid columns of dst
        d[:rows, :cols] = codes.reshape(rows, gpr * GROUP)[:, :cols]
        return
    # b16 packed path: dst gets whole groups (zero-padded tail included)
    c2 = codes.reshape(rows, gv * GROUP)
    if q.fp4:
        d[:rows, :gv * GROUP // 2] = c2[:, 0::2] | (c2[:, 1::2] << 4)
    else:
        d[:rows, :gv * GROUP] = c2
    if max_pad:                # a5 pads the packed maxima with the last row's register lanes
        lanes = np.zeros(MAX_ALIGN, np.uint16)
        lanes[:gv] = mbits[groups - gv:]
        pad = -groups % MAX_ALIGN
        _flat(m, mx, "max")[groups:groups + pad] = lanes[:pad]
    _scale_scratch(m, mx, exp, sbits, rows, gv, in_exp)


def _zero_pad(m: TileOps, src: Tile, rows: int, cols: int) -> None:
    """a5 `ZeroPadSourceTile`: zeros into src's padding columns. When whole rows fit a
    vector register the pad mask repeats across each 256-byte store, so the rows up to the
    end of the last vector touched are padded too (capped here at the tile's rows)."""
    per_vl = VL_BYTES // src.dtype.size
    if per_vl % src.cols == 0:
        rows = min(src.rows, -(-rows * src.cols // per_vl) * per_vl // src.cols)
    _nd(m, src, "W", "src")[:rows, cols:] = 0


def _scale_scratch(m: TileOps, mx: Tile, exp: Tile, sbits: np.ndarray, rows: int, gv: int,
                   in_exp: bool) -> None:
    """a5's packed b16 quantizer copies each row's scaling, 8 groups at a time, to a
    scratch run before its window pass: the start of the max tile, or (MXFP8 with fewer than
    8 groups in all) exp row r from byte 16. The last copies stay there."""
    mflat = _flat(m, mx, "max")
    eflat = _flat(m, exp, "exp")
    for r in range(rows):
        for g0 in range(0, gv, WINDOW):
            vals = sbits[r * gv + g0:r * gv + min(g0 + WINDOW, gv)].astype("<u2")
            if in_exp:
                at = r * exp.cols + EXP_SCRATCH_AT
                eflat[at:at + 2 * vals.size] = vals.view(np.uint8)
            else:
                mflat[:vals.size] = vals


def _dn(m: TileOps, op: str, q: _Quant, dst: Tile, src: Tile, exp: Tile, mx: Tile,
        scaling: Tile, inter: bool) -> None:
    """DN grouping (`grp_axis=0`): 32 consecutive rows of a column share an exponent.
    Group g of column c sits at flat index g * src cols + c of max, scaling and (linear)
    exp; the interleaved exp puts it at row g // 2, byte 2c + g % 2."""
    rows, cols = src.valid
    if src.rows % GROUP:
        raise VerifyError(f"src's rows ({src.rows}) must be a multiple of {GROUP} for "
                          f"grp_axis=0 (DN)", op=op, operand="src")
    ng = -(-rows // GROUP)     # groups per column; a5 reads whole groups of rows
    need = (ng - 1) * src.cols + cols if ng and cols else 0
    if inter:
        if src.rows % 64 or rows % 64:
            raise VerifyError(f"interleave needs src's rows and valid rows to be multiples of "
                              f"64, got {src.rows} and {rows}", op=op, operand="src")
        shape = (src.rows // 64, -(-2 * src.cols // 32) * 32)
        if (exp.rows, exp.cols) != shape:
            raise VerifyError(f"interleaved exp is {exp.rows}x{exp.cols} but must be "
                              f"{shape[0]}x{shape[1]} (ceil(rows/64) x align32(2*cols))",
                              op=op, operand="exp")
        if exp.valid != (rows // 64, 2 * cols):
            raise VerifyError(f"interleaved exp's valid region is {exp.valid[0]}x"
                              f"{exp.valid[1]} but must be {rows // 64}x{2 * cols}", op=op,
                              operand="exp")
    elif exp.rows * exp.cols < need:
        raise VerifyError(f"exp holds {exp.rows * exp.cols} bytes but DN group g of column c "
                          f"goes to byte g * {src.cols} + c: {need} needed", op=op,
                          operand="exp")
    for name, t in (("max", mx), ("scaling", scaling)):
        if t.rows * t.cols < need:
            raise VerifyError(f"{name} holds {t.rows * t.cols} values but DN group g of "
                              f"column c goes to g * {src.cols} + c: {need} needed", op=op,
                              operand=name)
    m.ctrl = CTRL_AFTER
    if need == 0:
        return
    if q.b16 and cols < src.cols:
        _zero_pad(m, src, rows, cols)
    x = _nd(m, src, "R", "src")[:ng * GROUP, :cols]      # rows past the valid ones too
    blocks = x.reshape(ng, GROUP, cols).transpose(0, 2, 1).reshape(ng * cols, GROUP)
    mbits = q.reduce(blocks)
    e8, sbits = q.extract(mbits, nv=q.alg == "NV")
    codes = q.codes(blocks, q.scale(sbits))
    codes = codes.reshape(ng, cols, GROUP).transpose(0, 2, 1).reshape(ng * GROUP, cols)
    at = (np.arange(ng)[:, None] * src.cols + np.arange(cols)).reshape(-1)
    _flat(m, mx, "max")[at] = mbits
    _flat(m, scaling, "scaling")[at] = sbits
    if inter:
        eg = e8.reshape(ng, cols)
        e = _nd(m, exp, "W", "exp").view(np.uint8)
        e[:ng // 2, 0:2 * cols:2] = eg[0::2]
        e[:ng // 2, 1:2 * cols:2] = eg[1::2]
    else:
        _flat(m, exp, "exp")[at] = e8
    if q.b16 and cols % 2:
        # a5's b16 stage 3 works on column pairs: the pair holding the last valid column
        # is stored whole; its second lane is masked off in every conversion (vcvt masks
        # by source lane, inactive lanes are 0), so it gets the code of +0
        codes = np.concatenate([codes, np.zeros((ng * GROUP, 1), np.uint8)], axis=1)
    d = _nd(m, dst, "W", "dst").view(np.uint8)
    if q.fp4:
        d[:ng * GROUP, :codes.shape[1] // 2] = codes[:, 0::2] | (codes[:, 1::2] << 4)
    else:
        d[:ng * GROUP, :codes.shape[1]] = codes


def _flat(m: TileOps, t: Tile, operand: str) -> np.ndarray:
    """The tile's buffer as one run of raw element bits (the a5 code reshapes the exp, max
    and scaling tiles to 1 x Rows*Cols)."""
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[t.dtype.size]
    return _nd(m, t, "W", operand).view(bits).reshape(-1)


def _ocp_f32(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f32 OCP stage 2 per group from the max's bits: (e8m0, scaling bits). The max's
    biased exponent e gives e8m0 = e - 8 and scaling 2^(127 - e8m0) (bits (254 - e8m0)
    << 23); e <= 8 clamps to e8m0 0 and scaling 2^127; a NaN max gives e8m0 0xFF and the
    f32 quiet NaN."""
    e = (bits >> 23) & 0xFF
    nan = (e == 0xFF) & ((bits & 0x7FFFFF) != 0)
    shared = np.where(e <= E4M3_EMAX, 0, e.astype(np.int64) - E4M3_EMAX)
    scaling = (254 - shared) << 23
    shared = np.where(nan, _E8M0_NAN, shared)
    scaling = np.where(nan, _F32_NAN, scaling)
    return shared.astype(np.uint8), scaling.astype(np.uint32)


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


def _ocp_b16(mx: np.ndarray, emax: int) -> tuple[np.ndarray, np.ndarray]:
    """bf16 / f16 OCP stage 2 per group on the max's bf16 bit pattern: (e8m0, scaling
    bits). Its exponent field clamped to at least ``emax`` (8 for e4m3, 2 for e2m1) gives
    e8m0 = field - emax and the bf16 scaling 0x7F00 - (e8m0 << 7) = 2^(127 - e8m0); a NaN
    max gives e8m0 0xFF and scaling 0x7F81 (e4m3) / 0x7FC0 (e2m1)."""
    field = mx & 0x7F80
    nan = (field == 0x7F80) & ((mx & 0x7F) != 0)
    shared = np.maximum(field, emax << 7) - (emax << 7)
    scaling = (0x7F00 - shared).astype(np.uint16)
    e8 = np.where(nan, _E8M0_NAN, shared >> 7).astype(np.uint8)
    scaling = np.where(nan, np.uint16(_BF16_NAN[emax]), scaling).astype(np.uint16)
    return e8, scaling


def _nv(mx: np.ndarray, kind: str, emax: int) -> tuple[np.ndarray, np.ndarray]:
    """NV stage 2 per group: (e8m0, scaling bits). The max (``kind``: f32 bits, bf16 bits
    or f16 bits) as an f32 value; d = max * f32(1/448) (e4m3) or f32(1/6) (e2m1), rounded
    in f32; e8m0 = d's biased exponent, plus 1 when d's mantissa is nonzero (normal d
    below exponent 0xFE) or above half (subnormal d); scaling = 2^(127 - e8m0) as f32
    bits (254 - e8m0) << 23, or for b16 sources bf16 bits (254 - e8m0) << 7; an infinite
    max gives e8m0 0xFE and scaling 2^-127 (0x00400000 / 0x0040), a NaN max e8m0 0xFF
    and the quiet NaN (0x7FC00000 / 0x7F81 for e4m3, 0x7FC0 for e2m1)."""
    if kind == "f16":
        value = mx.view(np.float16).astype(np.float32)
    elif kind == "bf16":
        value = (mx.astype(np.uint32) << 16).view(np.float32)
    else:
        value = mx.view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        d = (value * NV_DESCALE[emax]).astype(np.float32).view(np.uint32)
    e = ((d >> 23) & 0xFF).astype(np.int64)
    man = d & 0x7FFFFF
    up = ((man != 0) & (e > 0) & (e < 0xFE)) | ((e == 0) & (man > 0x400000))
    shared = e + up
    inf = (e == 0xFF) & (man == 0)
    nan = (e == 0xFF) & (man != 0)
    if kind != "f32":
        scaling = ((0xFE - shared) << 7) & 0xFFFF
        scaling = np.where(inf, 0x0040, np.where(nan, _BF16_NAN[emax], scaling))
    else:
        scaling = ((0xFE - shared) << 23) & 0xFFFFFFFF
        scaling = np.where(inf, 0x00400000, np.where(nan, _F32_NAN, scaling))
    shared = np.where(inf, 0xFE, np.where(nan, _E8M0_NAN, shared))
    return shared.astype(np.uint8), scaling.astype(np.uint16 if kind != "f32" else np.uint32)
