"""Exact element conversions: the engine behind the micro ``vcvt``/``vtrc`` and tile ``TCVT``.

Pure numpy on element arrays; no registers, masks or tiles. The ops are thin wrappers:

- `convert(x, src, dst, rnd=, sat=)`: every element of ``x`` (an array of ``src``'s numpy
  carrier) converted to ``dst``, exactly. The result is computed from the exact value of
  each input, decomposed as ``(-1)^s * M * 2^E`` with an integer ``M`` (float bit fields or
  the integer itself), and rounded once with integer arithmetic, so every rounding mode is
  bit-exact, including subnormal results, ties and overflow.
- `trunc_float(x, dt, rnd)`: round to an integral value that stays in ``dt`` (``vtrc``,
  f32->f32 ``TCVT``); NaN, infinities and signed zeros pass through.
- `tcvt(x, src, dst, round_mode=, sat_mode=)`: the tile op's rules on top: the
  `RoundMode` spellings (`TILE_ROUND_MODES`, `tile_rnd`) and the A5 default saturation
  policy (`tcvt_default_sat`).
- Tables as data for verifiers: `VCVT_RULES` (the legal micro ``vcvt`` pairs and the
  attributes each requires), `VCVT_PARTS`; the CTRL saturation bits (`ctrl_sat`).
- Part placement for ``vcvt`` on lane arrays: `place_part` (narrowing: value i goes to lane
  ``ratio*i + part`` of the narrow view, other lanes 0) and `select_part` (widening: read
  lane ``ratio*i + part``).

Rounding modes use the micro spellings: ``R`` nearest, ties to even; ``A`` nearest, ties
away from zero; ``F`` toward -inf; ``C`` toward +inf; ``Z`` toward zero; ``O`` to odd
(an inexact result takes whichever neighbour has an odd last bit).

Saturation (``sat=True``) clamps to the destination's finite range: float->int NaN -> 0,
+-inf -> the integer limits; float->float NaN -> 0 and +-inf -> +-largest finite (the
golden ``vcvt-f32-special``). Without saturation integer results wrap modulo 2^n (of the
exact, rounded value), float->int NaN and +-inf give 0 (Gym ``tcvt/gen_data.py``
``truncate_to_int``), and float results follow IEEE 754 overflow: ``R``/``A`` give inf,
``Z``/``O`` the largest finite, ``F``/``C`` inf on the side they round toward; formats
without infinity (f8E4M3FN) give NaN. NaN results keep the sign and the top payload bits
and are quiet. docs/semantics.md "Conversions" records each rule and its evidence.

- `fp4_encode` / `fp4_decode`: float values to and from the 4-bit codes of the packed FP4
  pair types (`FP4_FORMATS`; packing is `dtypes.pack_nibbles`).

Supported element types: f32, f16, bf16, f8E5M2, f8E4M3FN and the 8/16/32/64-bit
integers both ways; hif8 from and to the float types (decoded exactly through
`dtypes.HIF8_TABLE`; rounded against the table of its values, since HiFloat8's precision
tapers with the exponent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import HIF8_TABLE, DType, dtype
from ..errors import DtypeError, PtoValueError

ROUND_MODES: tuple[str, ...] = ("R", "A", "F", "C", "Z", "O")

_U64 = np.uint64
_ONE = _U64(1)


# --- formats ----------------------------------------------------------------------------

@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: sign, ``ebits`` exponent bits with ``bias``,
    ``mbits`` stored mantissa bits. ``nan`` says which codes are NaN: ``ieee`` (all-ones
    exponent, nonzero mantissa), ``fn`` (only all-ones exponent and mantissa) or ``none``;
    ``inf`` whether all-ones exponent with zero mantissa is infinity."""

    ebits: int
    mbits: int
    bias: int
    inf: bool
    nan: str
    code: np.dtype            # unsigned integer dtype of the bit pattern

    @property
    def bits(self) -> int:
        return 1 + self.ebits + self.mbits

    @property
    def exp_all(self) -> int:
        return (1 << self.ebits) - 1

    @property
    def max_field(self) -> tuple[int, int]:
        """(biased exponent, mantissa) of the largest finite value."""
        if self.nan == "ieee" or self.inf:
            return self.exp_all - 1, (1 << self.mbits) - 1
        if self.nan == "fn":
            return self.exp_all, (1 << self.mbits) - 2
        return self.exp_all, (1 << self.mbits) - 1

    @property
    def max_finite(self) -> float:
        e, m = self.max_field
        return float(2.0 ** (e - self.bias) * (1 + m / (1 << self.mbits)))


FLOAT_FORMATS: dict[str, FloatFormat] = {
    "f32": FloatFormat(8, 23, 127, True, "ieee", np.dtype(np.uint32)),
    "f16": FloatFormat(5, 10, 15, True, "ieee", np.dtype(np.uint16)),
    "bf16": FloatFormat(8, 7, 127, True, "ieee", np.dtype(np.uint16)),
    "f8E5M2": FloatFormat(5, 2, 15, True, "ieee", np.dtype(np.uint8)),
    "f8E4M3FN": FloatFormat(4, 3, 7, False, "fn", np.dtype(np.uint8)),
}

# The 4-bit codes inside the packed FP4 pair types (dtypes.FP4_TYPES): bias 1, no
# infinity, no NaN; the largest values are 6 (E2M1) and 1.75 (E1M2).
FP4_FORMATS: dict[str, FloatFormat] = {
    "f4E2M1x2": FloatFormat(2, 1, 1, False, "none", np.dtype(np.uint8)),
    "f4E1M2x2": FloatFormat(1, 2, 1, False, "none", np.dtype(np.uint8)),
}

_INT_NAMES = {"i8": "si8", "i16": "si16", "i32": "si32", "i64": "si64"}


def _canon(dt: DType) -> str:
    """One name per distinct type: signless integers are read as signed."""
    return _INT_NAMES.get(dt.name, dt.name)


def int_range(dt: DType | str) -> tuple[int, int]:
    """(min, max) of an integer element type."""
    d = dtype(dt)
    info = np.iinfo(d.np)
    return int(info.min), int(info.max)


def _is_int(d: DType) -> bool:
    return d.kind in ("int", "uint")


def _check_rnd(rnd: str, what: str = "rnd") -> str:
    if rnd not in ROUND_MODES:
        raise PtoValueError(f"{what} {rnd!r} is not a rounding mode; use one of "
                            f"{', '.join(ROUND_MODES)}", op="convert", operand=what)
    return rnd


# --- exact decomposition ------------------------------------------------------------------

@dataclass
class _Parts:
    """Each element as (-1)^neg * M * 2^E (M uint64), plus NaN / infinity flags."""

    neg: np.ndarray
    m: np.ndarray
    e: np.ndarray
    nan: np.ndarray
    inf: np.ndarray
    nan_payload: np.ndarray | None = None    # NaN mantissa bits, left-aligned in 64 bits


def _bitlen(m: np.ndarray) -> np.ndarray:
    """Bit length of each uint64 (0 for 0), by binary search on shifts (exact)."""
    n = np.zeros(m.shape, np.int64)
    v = m.copy()
    for s in (32, 16, 8, 4, 2, 1):
        big = v >= (_ONE << _U64(s))
        v = np.where(big, v >> _U64(s), v)
        n += big * s
    return n + (v > 0)


def _decompose_float(codes: np.ndarray, f: FloatFormat) -> _Parts:
    c = codes.astype(_U64)
    neg = ((c >> _U64(f.bits - 1)) & _ONE).astype(bool)
    ef = ((c >> _U64(f.mbits)) & _U64(f.exp_all)).astype(np.int64)
    mf = c & _U64((1 << f.mbits) - 1)
    top = ef == f.exp_all
    if f.nan == "ieee":
        nan = top & (mf != 0)
    elif f.nan == "fn":
        nan = top & (mf == (1 << f.mbits) - 1)
    else:
        nan = np.zeros(c.shape, bool)
    inf = top & (mf == 0) if f.inf else np.zeros(c.shape, bool)
    m = np.where(ef == 0, mf, mf | _U64(1 << f.mbits))
    e = np.maximum(ef, 1) - f.bias - f.mbits
    payload = mf << _U64(64 - f.mbits)
    return _Parts(neg, m, e, nan, inf, payload)


def _decompose(x: np.ndarray, d: DType) -> _Parts:
    name = _canon(d)
    if name in FLOAT_FORMATS:
        f = FLOAT_FORMATS[name]
        return _decompose_float(x.view(f.code), f)
    if name == "hif8":                       # exact: every hif8 value is an f32 value
        return _decompose(HIF8_TABLE[x.astype(np.uint8)], dtype("f32"))
    if _is_int(d):
        z = np.zeros(x.shape, bool)
        if d.kind == "uint":
            return _Parts(z, x.astype(_U64), np.zeros(x.shape, np.int64), z, z.copy())
        u = x.astype(np.int64).view(_U64)
        neg = x < 0
        return _Parts(neg, np.where(neg, ~u + _ONE, u), np.zeros(x.shape, np.int64), z, z.copy())
    raise DtypeError(f"conversions from {d.name} are not supported", op="convert",
                     operand="src")


# --- rounding --------------------------------------------------------------------------

def _rshift_round(m: np.ndarray, s: np.ndarray, neg: np.ndarray, rnd: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Round m / 2^s (s >= 1) to an integer with mode ``rnd``; returns (N, inexact)."""
    big = s >= 64
    sc = np.clip(s, 1, 63).astype(_U64)
    q = np.where(big, _U64(0), m >> sc)
    r = np.where(big, m, m & ((_ONE << sc) - _ONE))
    half = _ONE << (sc - _ONE)
    top = _U64(1 << 63)
    above = np.where(big, (s == 64) & (m > top), r > half)
    tie = np.where(big, (s == 64) & (m == top), r == half)
    inexact = r != 0
    if rnd == "R":
        up = above | (tie & ((q & _ONE) == 1))
    elif rnd == "A":
        up = above | tie
    elif rnd == "F":
        up = inexact & neg
    elif rnd == "C":
        up = inexact & ~neg
    elif rnd == "Z":
        up = np.zeros(m.shape, bool)
    else:                                    # O: the odd neighbour
        return q | inexact.astype(_U64), inexact
    return q + up.astype(_U64), inexact


def _round_at(p: _Parts, qexp: np.ndarray, rnd: str) -> tuple[np.ndarray, np.ndarray]:
    """Round |value| to a multiple of 2^qexp: N with |result| = N * 2^qexp.

    Also returns ``lost``: True where N does not fit 64 bits (only for qexp < E, left
    shifts of 64 or more); N is then the value modulo 2^64."""
    s = qexp - p.e
    right = s >= 1
    n_r, _ = _rshift_round(p.m, np.where(right, s, 1), p.neg, rnd)
    k = np.clip(-s, 0, 63).astype(_U64)
    n_l = np.where(-s >= 64, _U64(0), p.m << k)
    lost = ~right & (p.m != 0) & (_bitlen(p.m) - s > 64)
    return np.where(right, n_r, n_l), lost


def _encode_float(p: _Parts, f: FloatFormat, rnd: str, sat: bool) -> np.ndarray:
    """Round decomposed values to format ``f``; returns the codes (uint64)."""
    p_bits = f.mbits + 1
    qmin = 1 - f.bias - f.mbits
    h = _bitlen(p.m) - 1 + p.e                 # exponent of the leading bit
    qexp = np.maximum(h - f.mbits, qmin)
    zero = p.m == 0
    n, _ = _round_at(p, np.where(zero, qmin, qexp), rnd)
    carry = n >> _U64(p_bits) != 0               # rounded up to 2^p: one more exponent
    n = np.where(carry, n >> _ONE, n)
    qexp = qexp + carry
    normal = n >= _U64(1 << f.mbits)
    biased = np.where(normal, qexp + f.mbits + f.bias, 0)
    mant = np.where(normal, n - _U64(1 << f.mbits), n)
    emax, mmax = f.max_field
    over = (biased > emax) | ((biased == emax) & (mant > _U64(mmax)))
    sign = p.neg.astype(_U64) << _U64(f.bits - 1)
    max_code = _U64((emax << f.mbits) | mmax)
    inf_code = _U64(f.exp_all << f.mbits)
    nan_code = _U64((f.exp_all << f.mbits) | ((1 << f.mbits) - 1) if f.nan == "fn"
                    else (f.exp_all << f.mbits) | (1 << (f.mbits - 1)))
    # overflow: the largest finite or infinity, by mode and saturation
    if sat or (not f.inf and f.nan == "none") or rnd in ("Z", "O"):
        to_max = np.ones(n.shape, bool)
    elif rnd == "F":
        to_max = ~p.neg
    elif rnd == "C":
        to_max = p.neg.copy()
    else:
        to_max = np.zeros(n.shape, bool)
    big_code = inf_code if f.inf else nan_code
    over_code = np.where(to_max, max_code, big_code)
    body = np.where(over, over_code, (biased.astype(_U64) << _U64(f.mbits)) | mant)
    body = np.where(zero & ~p.nan & ~p.inf, _U64(0), body)
    # special inputs
    inf_out = max_code if (sat or not f.inf) else inf_code
    if not f.inf and not sat and f.nan != "none":
        inf_out = nan_code
    body = np.where(p.inf, inf_out, body)
    if f.nan == "ieee":
        pay = p.nan_payload if p.nan_payload is not None else np.zeros(n.shape, _U64)
        nan_body = nan_code | (pay >> _U64(64 - f.mbits))
    else:
        nan_body = np.full(n.shape, nan_code, _U64)
    if sat or f.nan == "none":
        body = np.where(p.nan, _U64(0), body)
        sign = np.where(p.nan, _U64(0), sign)
    else:
        body = np.where(p.nan, nan_body, body)
    return sign | body


def _encode_int(p: _Parts, d: DType, rnd: str, sat: bool) -> np.ndarray:
    n, lost = _round_at(p, np.zeros(p.m.shape, np.int64), rnd)
    lo, hi = int_range(d)
    if sat:
        too_big = lost | np.where(p.neg, n > _U64(-lo), n > _U64(hi))
        limit = np.where(p.neg, _U64(-lo), _U64(hi))
        mag = np.where(too_big | p.inf, limit, n)
        mag = np.where(p.nan, _U64(0), mag)
    else:
        mag = np.where(p.nan | p.inf, _U64(0), n)
    v = np.where(p.neg, ~mag + _ONE, mag)     # two's complement modulo 2^64
    # the unsigned cast keeps the low ``8 * size`` bits: the value modulo 2^n
    return v.astype(np.dtype(f"u{d.size}")).view(d.np)


# HiFloat8 is tapered (precision depends on the exponent), so it is rounded against the
# ascending table of its non-negative finite values. The code 0x6F that would hold
# 1.5 * 2^15 is infinity; that value bounds the top interval, as 2^(emax+1) does for IEEE.
_H8_POS = sorted((float(HIF8_TABLE[c]), c) for c in range(0x80) if np.isfinite(HIF8_TABLE[c]))
_H8_VALS = np.array([v for v, _ in _H8_POS] + [1.5 * 2.0 ** 15])
_H8_CODES = np.array([c for _, c in _H8_POS] + [0x6F], np.uint8)
_H8_MAX, _H8_INF, _H8_NAN = 0x6E, 0x6F, 0x80


def _encode_hif8(p: _Parts, rnd: str, sat: bool) -> np.ndarray:
    """Round decomposed float values to HiFloat8 codes. Ties under R go to the even code,
    under O an inexact value takes the odd code; -0 has no code and becomes 0x00."""
    a = np.ldexp(p.m.astype(np.float64), p.e)            # exact for float sources
    i = np.searchsorted(_H8_VALS[:-1], a, side="right") - 1
    lo, hi = _H8_VALS[i], _H8_VALS[i + 1]
    lo_code, hi_code = _H8_CODES[i], _H8_CODES[i + 1]
    mid = (lo + hi) / 2                                  # exact: both have few bits
    inexact = a != lo
    odd = (lo_code & 1) == 1
    up = {"R": (a > mid) | ((a == mid) & odd), "A": a >= mid, "F": inexact & p.neg,
          "C": inexact & ~p.neg, "Z": np.zeros(a.shape, bool), "O": inexact & ~odd}[rnd]
    code = np.where(up, hi_code, lo_code)
    if sat:
        code = np.where((code == _H8_INF) | p.inf, _H8_MAX, code)
    else:
        code = np.where(p.inf, _H8_INF, code)
    code = np.where((code != 0) & p.neg, code | 0x80, code)
    return np.where(p.nan, 0 if sat else _H8_NAN, code).astype(np.uint8)


def convert(x: np.ndarray, src: DType | str, dst: DType | str, *, rnd: str = "R",
            sat: bool = False) -> np.ndarray:
    """Convert every element of ``x`` (``src``'s carrier dtype) to ``dst``, exactly.

    ``rnd`` is used when the exact value is not representable (it does not matter for
    exact conversions such as widening); ``sat`` clamps to ``dst``'s finite range (see
    the module docstring for NaN, infinity and the non-saturating forms)."""
    s, d = dtype(src), dtype(dst)
    _check_rnd(rnd)
    arr = _as_carrier(x, s)
    p = _decompose(arr, s)
    name = _canon(d)
    if name in FLOAT_FORMATS:
        f = FLOAT_FORMATS[name]
        out = np.asarray(_encode_float(p, f, rnd, bool(sat)), dtype=f.code).view(d.np)
    elif _is_int(d):
        out = _encode_int(p, d, rnd, bool(sat))
    elif name == "hif8" and (s.is_float or s.name == "hif8"):
        out = _encode_hif8(p, rnd, bool(sat))
    else:
        raise DtypeError(f"conversions from {s.name} to {d.name} are not supported",
                         op="convert", operand="dst")
    return np.asarray(out, dtype=d.np).reshape(arr.shape)   # 0-d in, 0-d array out


def _fp4_format(packed: DType | str, op: str) -> FloatFormat:
    d = dtype(packed)
    if d.name not in FP4_FORMATS:
        raise DtypeError(f"{d.name} is not a packed FP4 type ({', '.join(FP4_FORMATS)})",
                         op=op, operand="dtype")
    return FP4_FORMATS[d.name]


def fp4_encode(x: np.ndarray, src: DType | str, packed: DType | str, *, rnd: str = "R"
               ) -> np.ndarray:
    """Round every element of ``x`` (a float type's carrier) to the 4-bit codes of a packed
    FP4 type (uint8, one code per element, not yet packed). Overflow and infinities give
    the largest finite code of their sign, NaN gives +0, zero keeps its sign: the format
    has neither infinity nor NaN, so the saturation mode cannot change anything."""
    s = dtype(src)
    _check_rnd(rnd)
    f = _fp4_format(packed, "fp4_encode")
    if not s.is_float:
        raise DtypeError(f"fp4_encode converts float types, got {s.name}", op="fp4_encode",
                         operand="src")
    arr = _as_carrier(x, s)
    codes = _encode_float(_decompose(arr, s), f, rnd, True)
    return np.asarray(codes, dtype=np.uint8).reshape(arr.shape)


def fp4_decode(codes: np.ndarray, packed: DType | str, dst: DType | str = "f32"
               ) -> np.ndarray:
    """The values of 4-bit codes of a packed FP4 type as ``dst`` elements (exact for f32,
    f16 and bf16, which hold every FP4 value)."""
    f = _fp4_format(packed, "fp4_decode")
    d = dtype(dst)
    c = np.asarray(codes, dtype=np.uint8) & 0x0F
    p = _decompose_float(c, f)
    name = _canon(d)
    if name not in FLOAT_FORMATS:
        raise DtypeError(f"fp4_decode produces a float type, got {d.name}",
                         op="fp4_decode", operand="dst")
    g = FLOAT_FORMATS[name]
    out = np.asarray(_encode_float(p, g, "R", False), dtype=g.code).view(d.np)
    return out.reshape(c.shape)


def trunc_float(x: np.ndarray, dt: DType | str, rnd: str) -> np.ndarray:
    """Round each element of a float array to an integral value of the same type
    (``vtrc``; A5 f32->f32 ``TCVT``). NaN, infinities and zeros keep their bits."""
    d = dtype(dt)
    _check_rnd(rnd)
    name = _canon(d)
    if name not in FLOAT_FORMATS:
        raise DtypeError(f"trunc_float needs a float type, got {d.name}", op="trunc_float",
                         operand="dt")
    f = FLOAT_FORMATS[name]
    arr = _as_carrier(x, d)
    p = _decompose(arr, d)
    frac = (p.e < 0) & ~p.nan & ~p.inf
    n, _ = _round_at(p, np.zeros(p.m.shape, np.int64), rnd)
    q = _Parts(p.neg, np.where(frac, n, p.m), np.where(frac, 0, p.e), p.nan, p.inf,
               p.nan_payload)
    out = np.asarray(_encode_float(q, f, rnd, False), dtype=f.code).view(d.np)
    return np.asarray(np.where(frac, out, arr), dtype=d.np).reshape(arr.shape)


def _as_carrier(x: object, d: DType) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        return np.asarray(x, dtype=d.np)
    if x.dtype != d.np:
        raise DtypeError(f"input array has dtype {x.dtype}, but {d.name} elements are "
                         f"carried as {d.np}", op="convert", operand="x")
    return x


# --- micro vcvt: legal pairs and the attributes each requires ------------------------------

@dataclass(frozen=True)
class VcvtRule:
    """One legal ``vcvt`` pair. ``rnd``/``sat``/``part``: the attribute is REQUIRED (the
    lowering fails without it) — and, by the same table, meaningless for pairs that do not
    list it. ``mask_bits``: the predicate granularity (b8/b16/b32). ``sat_before_rnd``: the
    hardware clamps before rounding (bf16->f16); with a representable limit and monotone
    rounding the result is the same either way, so the engine needs no special case."""

    src: str
    dst: str
    rnd: bool
    sat: bool
    part: bool
    mask_bits: int
    sat_before_rnd: bool = False

    @property
    def ratio(self) -> int:
        """Lane-width ratio between the wider and the narrower type (1, 2 or 4)."""
        a, b = dtype(self.src).size, dtype(self.dst).size
        return max(a, b) // min(a, b)

    @property
    def narrowing(self) -> bool:
        return dtype(self.dst).size < dtype(self.src).size


def _rules(text: str) -> dict[tuple[str, str], VcvtRule]:
    out: dict[tuple[str, str], VcvtRule] = {}
    for line in text.strip().splitlines():
        pair, attrs, bits = line.split()
        s, d = pair.split("->")
        out[(s, d)] = VcvtRule(s, d, "R" in attrs, "S" in attrs, "P" in attrs, int(bits),
                               "!" in attrs)
    return out


# The 36 pairs of PTOAS's vcvt lowering contract (lib/PTO/Transforms/VPTOLLVMEmitter.cpp,
# lookupVcvtContract): R = rnd required, S = sat required, P = part required, ! = the
# hardware saturates before rounding; last column the mask granularity. Type names are
# ptosim's; signless integers (i8 ...) read as signed.
VCVT_RULES: dict[tuple[str, str], VcvtRule] = _rules("""
f32->f16 RSP 32
f32->bf16 RSP 32
f32->si16 RSP 32
f32->si32 RS- 32
f32->si64 RSP 32
f16->f32 --P 16
f16->si32 R-P 16
f16->si16 RS- 16
f16->si8 RSP 16
f16->ui8 RSP 16
bf16->f16 RS-! 16
bf16->f32 --P 16
bf16->si32 RSP 16
ui8->f16 --P 8
ui8->ui16 --P 8
ui8->ui32 --P 8
si8->f16 --P 8
si8->si16 --P 8
si8->si32 --P 8
ui16->ui8 -SP 16
ui16->ui32 --P 16
si16->f16 R-- 16
si16->f32 --P 16
si16->ui8 -SP 16
si16->ui32 --P 16
si16->si32 --P 16
ui32->ui8 -SP 32
ui32->ui16 -SP 32
ui32->si16 -SP 32
si32->f32 R-- 32
si32->ui8 -SP 32
si32->ui16 -SP 32
si32->si16 -SP 32
si32->si64 --P 32
si64->f32 R-P 32
si64->si32 -SP 32
""")

# vcvt ``part`` spellings -> lane index within a group of ``ratio`` lanes. EVEN/ODD are
# P0/P1 (the lowering encodes them with the same immediates).
VCVT_PARTS: dict[str, int] = {"EVEN": 0, "ODD": 1, "P0": 0, "P1": 1, "P2": 2, "P3": 3}


def vcvt_rule(src: DType | str, dst: DType | str) -> VcvtRule | None:
    """The contract row of a ``vcvt`` pair, or None when the pair is not legal."""
    return VCVT_RULES.get((_canon(dtype(src)), _canon(dtype(dst))))


def part_index(part: str, ratio: int) -> int:
    """Lane index of a ``part`` attribute for a conversion whose lane widths differ by
    ``ratio`` (2: EVEN/ODD, also P0/P1; 4: P0..P3, also EVEN/ODD for P0/P1)."""
    if part not in VCVT_PARTS:
        raise PtoValueError(f"part {part!r} is not one of {', '.join(VCVT_PARTS)}",
                            op="vcvt", operand="part")
    i = VCVT_PARTS[part]
    if i >= ratio:
        raise PtoValueError(f"part {part} selects lane {i} of {ratio}; a conversion "
                            f"between widths differing by {ratio}x has parts "
                            f"{', '.join(k for k, v in VCVT_PARTS.items() if v < ratio)}",
                            op="vcvt", operand="part")
    return i


def place_part(values: np.ndarray, part: str, ratio: int) -> np.ndarray:
    """Narrowing ``vcvt``: lay the converted values (one per wide source lane) into the
    narrow view: value i goes to lane ``ratio*i + part``, every other lane is 0."""
    i = part_index(part, ratio)
    out = np.zeros(values.shape[:-1] + (values.shape[-1] * ratio,), values.dtype)
    out[..., i::ratio] = values
    return out


def select_part(lanes: np.ndarray, part: str, ratio: int) -> np.ndarray:
    """Widening ``vcvt``: the narrow source lanes it converts, ``lanes[ratio*i + part]``."""
    i = part_index(part, ratio)
    return lanes[..., i::ratio]


# --- CTRL saturation bits -------------------------------------------------------------

CTRL_SAT_ENABLE = 60    # 1: CTRL[59] decides saturation for the pairs below
CTRL_SAT_OFF = 59       # with CTRL[60]=1: 1 non-saturating, 0 saturating
CTRL_NOSAT_F16 = 48     # f16 <-> bf16: 1 non-saturating, 0 saturating


def ctrl_sat(src: DType | str, dst: DType | str, ctrl: int) -> bool | None:
    """Saturation the CTRL register dictates for a conversion, or None when CTRL does not
    govern it (the instruction's own ``sat`` stands).

    Following pto-isa's A5 TCVT (include/pto/npu/a5/TCvt.hpp, SaturationCtrlTraits): with
    dst != f32, CTRL[60]=1 hands float->int, narrowing int->int, f32->f16/bf16 and
    narrowing int->float to CTRL[59] (1 = off); f16<->bf16 follow CTRL[48] (1 = off).
    Conversions to f32 never saturate; widening integer conversions cannot overflow.
    CTRL[48] has no enable bit and is set at kernel entry (`machine.ENTRY_CTRL`): whether
    it overrides a bf16->f16 ``vcvt``'s own ``sat`` is undocumented."""
    s, d = dtype(src), dtype(dst)
    if _canon(d) == "f32":
        return None
    sf, df = s.is_float or s.name == "hif8", d.is_float
    narrow = s.size >= d.size
    half = {"f16", "bf16"}
    if s.name in half and d.name in half:
        return not (ctrl >> CTRL_NOSAT_F16) & 1
    governed = ((sf and not df) or (not sf and not df and narrow)
                or (_canon(s) == "f32" and d.name in half) or (not sf and df and narrow))
    if governed and (ctrl >> CTRL_SAT_ENABLE) & 1:
        return not (ctrl >> CTRL_SAT_OFF) & 1
    return None


# --- tile TCVT ---------------------------------------------------------------------------

# Tile RoundMode spellings (PTOAS include/PTO/IR/PTOAttrs.td; PTO-Gym
# docs/PTO-tile-Instruction-SPEC.md "RoundMode") -> micro rounding mode. NONE and ODD are
# resolved per pair by `tile_rnd`.
TILE_ROUND_MODES: dict[str, str | None] = {
    "NONE": None, "RINT": "R", "ROUND": "A", "FLOOR": "F", "CEIL": "C", "TRUNC": "Z",
    "ODD": "O", "CAST_RINT": "R",
}


def tile_rnd(round_mode: str, src: DType | str, dst: DType | str) -> str:
    """The micro rounding mode A5's TCVT uses for a tile ``RoundMode``.

    pto-isa's dispatch (include/pto/npu/a5/TCvt.hpp, tcvtDispatchByRound) honours ODD only
    for f32->f16; NONE and an unsupported ODD fall back to Z for float->int and R
    otherwise."""
    key = round_mode.upper()
    if key.startswith("CAST_") and key != "CAST_RINT":
        key = key[len("CAST_"):]
    if key not in TILE_ROUND_MODES:
        raise PtoValueError(f"round mode {round_mode!r} is not one of "
                            f"{', '.join(TILE_ROUND_MODES)}", op="tcvt", operand="rmode")
    s, d = dtype(src), dtype(dst)
    rnd = TILE_ROUND_MODES[key]
    if rnd == "O" and not (_canon(s) == "f32" and d.name == "f16"):
        rnd = None
    if rnd is None:
        rnd = "Z" if (s.is_float and _is_int(d)) else "R"
    return rnd


# A5 TCVT default saturation (include/pto/npu/a5/TCvt.hpp, the TCVT_IMPL overload without
# a SaturationMode; mirrored by PTO-Gym examples/tileop/src/testcase/tcvt/gen_data.py
# default_saturation_off): these pairs wrap by default, every other pair saturates.
TCVT_DEFAULT_NOSAT: frozenset[tuple[str, str]] = frozenset({
    ("f16", "ui8"), ("f16", "si8"), ("f32", "si16"), ("f16", "si16"), ("si64", "si32"),
    ("si32", "si16"),
})


def _pairs(text: str) -> frozenset[tuple[str, str]]:
    out = set()
    for row in text.strip().splitlines():
        src, dsts = row.split(":")
        out |= {(src.strip(), d) for d in dsts.split()}
    return frozenset(out)


# Legal TCVT pairs per target family (pto-isa docs/isa/tile/ops/elementwise-tile-tile/
# tcvt.md, "Supported Conversions"), for a target profile field; a2a3's s4 (int4b_t) has no
# ptosim type. `tcvt` converts every pair but the packed FP4 ones, whose codes come from
# `fp4_encode` / `fp4_decode` (packing and the footprint are the tile op's).
TCVT_PAIRS_A2A3: frozenset[tuple[str, str]] = _pairs("""
f32: f16 f32 bf16 si16 si32 si64
f16: f32 si32 si16 si8 ui8
bf16: f32 si32
si16: f16 f32
si32: f32 si16 si64 f16
si64: f32 si32
ui8: f16
si8: f16
""")
TCVT_PAIRS_A5: frozenset[tuple[str, str]] = _pairs("""
f32: f32 f16 bf16 si16 si32 si64 f8E4M3FN f8E5M2 hif8
f16: f32 si32 si16 si8 ui8 hif8
bf16: f32 si32 f16 f4E1M2x2 f4E2M1x2
si16: ui8 f16 f32 ui32 si32
si32: f32 si16 ui16 si64 ui8
si64: f32 si32
ui8: f16 ui16
si8: f16 si16 si32
ui32: ui8 ui16 si16
f8E4M3FN: f32
f8E5M2: f32
hif8: f32
f4E1M2x2: bf16
f4E2M1x2: bf16
""")


def tcvt_default_sat(src: DType | str, dst: DType | str) -> bool:
    """Whether A5's TCVT saturates ``src -> dst`` when no saturation mode is given.
    Conversions to f32 never saturate (the hardware has only the non-saturating form)."""
    s, d = _canon(dtype(src)), _canon(dtype(dst))
    return d != "f32" and (s, d) not in TCVT_DEFAULT_NOSAT


def tcvt(x: np.ndarray, src: DType | str, dst: DType | str, *, round_mode: str = "CAST_RINT",
         sat_mode: str | None = None) -> np.ndarray:
    """Element semantics of the tile ``TCVT`` on A5: `tile_rnd` rounding (hif8 results
    always ``A``), saturation ``sat_mode`` ``"ON"``/``"OFF"`` or the per-pair default
    (`tcvt_default_sat`); f32->f32 rounds to integral (A5 lowers it to ``vtrc``). The
    pair's legality is the caller's check (`TCVT_PAIRS_A5`)."""
    s, d = dtype(src), dtype(dst)
    rnd = tile_rnd(round_mode, s, d)
    if d.name == "hif8":        # A5 issues hif8 conversions with ROUND_A whatever the mode
        rnd = "A"
    if sat_mode is None:
        sat = tcvt_default_sat(s, d)
    elif sat_mode in ("ON", "OFF"):
        sat = sat_mode == "ON" and _canon(d) != "f32"
    else:
        raise PtoValueError(f"saturation mode {sat_mode!r} is not ON or OFF", op="tcvt",
                            operand="sat_mode")
    if _canon(s) == _canon(d) == "f32":
        return trunc_float(x, s, rnd)
    return convert(x, s, d, rnd=rnd, sat=sat)
