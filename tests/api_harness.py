"""Hostile-argument harness for the Python API (used by test_api_hostile.py).

Every public `Machine` method gets one valid baseline call; the harness then replaces one
argument at a time (each positional, each keyword, each element of a clause tuple) by a
hostile value and calls again on a fresh copy of the machine. A refusal must be a
`PtoError` and must leave every byte of machine memory (on-chip buffers and GM) as it was.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import ptosim


class Opaque:
    """An object of no expected type."""


HOSTILE: list[Any] = [None, -1, 0, 2**70, -2**70, 1.5, math.nan, math.inf, "x", "", b"x",
                      (), (1,), [None], {}, Opaque(), True, np.int64(-1), np.float32(math.nan),
                      np.array([1, 2]), (2**40, 2**40), ("a", "b", "c")]


@dataclass
class Case:
    method: str
    args: list[Any]
    kwargs: dict[str, Any]
    where: str                   # which argument was replaced


def machine() -> ptosim.Machine:
    return ptosim.Machine(target="a5")


def setup() -> tuple[ptosim.Machine, dict[str, tuple[list[Any], dict[str, Any]]]]:
    """A machine and one valid call per public method (they all succeed on it)."""
    m = machine()
    a = np.arange(40 * 50, dtype=np.float16).reshape(40, 50)
    src = m.gm(a)
    out16 = m.gm_empty(40 * 50, "f16")
    out32 = m.gm_empty(40 * 64, "f32")
    new = m.gm_new("f32", reach=1 << 20)
    l1 = m.ptr("l1", "f16", 0)
    ub = m.ptr("ub", "f16", 0)
    l0a, l0b = m.ptr("l0a", "f16", 0), m.ptr("l0b", "f16", 0)
    l0c = m.ptr("l0c", "f32", 0)
    mat = m.tile("Mat", "f16", 48, 64, blayout="ColMajor", slayout="RowMajor", valid=(40, 50),
                 addr=0)
    matb = m.tile("Mat", "f16", 64, 64, blayout="ColMajor", slayout="RowMajor",
                  valid=(50, 64), addr=65536)
    left = m.tile("Left", "f16", 48, 64, valid=(40, 50))
    right = m.tile("Right", "f16", 64, 64, valid=(50, 64))
    acc = m.tile("Acc", "f32", 48, 64, valid=(40, 64))
    bias = m.tile("Bias", "f32", 1, 64, valid=(1, 64))
    fp = m.tile("Scaling", "ui64", 1, 64)
    vleft = m.tile("Left", "f16", 1, 64, valid=(1, 50))          # a GEMV row
    acc16 = m.tile("Acc", "f32", 16, 64, valid=(1, 64))
    vec = m.tile("Vec", "f16", 40, 64, valid=(40, 50))
    vec2 = m.tile("Vec", "f16", 40, 64, valid=(40, 50), addr=16384, pad="Zero")
    g = m.global_tensor(src, shape=(1, 1, 1, 40, 50), stride=(2000, 2000, 2000, 50, 1))
    # an 8 x 8 x 16-channel feature map, 2 x 2 kernel: 49 output rows x 64 columns
    fmap = m.conv_tile("f16", "NC1HWC0", (1, 1, 8, 8, 16), tile_type="Mat", addr=131072,
                       img2col=ptosim.Img2colConfig(fmap_h=8, fmap_w=8, filter_h=2,
                                                    filter_w=2, channel_size=16,
                                                    dst_stride=3, pad_value=1.0))
    g32 = m.global_tensor(out32, shape=(1, 1, 1, 40, 64), stride=(0, 0, 0, 64, 1))
    calls: dict[str, tuple[list[Any], dict[str, Any]]] = {
        "gm": ([a], {"dtype": "f16"}),
        "gm_empty": ([16, "f32"], {}),
        "gm_new": (["f32"], {"reach": 4096, "name": "%x"}),
        "gm_new_bytes": ([new], {}),
        "gm_shares": ([src, a], {}),
        "gm_stored": ([src], {}),
        "ptr": (["l1", "f16", 32], {"subblock": 0, "block": 0}),
        "read": ([src, 16], {}),
        "write": ([ub, np.ones(16, np.float16)], {}),
        "tile": (["Vec", "f16", 16, 64], {"valid": (16, 50), "pad": "Zero", "addr": 32768}),
        "conv_tile": (["f16", "NC1HWC0", (1, 2, 2, 8, 16)], {"nbytes": 1024, "addr": 65536,
                                                            "subblock": 0}),
        "global_tensor": ([src, (1, 1, 1, 40, 50), (2000, 2000, 2000, 50, 1)],
                          {"layout": "ND"}),
        "read_tile": ([vec], {}),
        "release_block": ([0], {}),
        "require_dtype": ([ptosim.dtype("f16")], {}),
        "region": ([src, 16], {"access": "R", "op": "x", "operand": "y"}),
        **{name: ([256, 256], {}) for name in (
            "set_loop1_stride_outtoub", "set_loop2_stride_outtoub",
            "set_loop1_stride_ubtoout", "set_loop2_stride_ubtoout")},
        # loop counts of 1: the register-level copies below read them
        **{name: ([1, 1], {}) for name in ("set_loop_size_outtoub", "set_loop_size_ubtoout")},
        "set_loop_size_outtol1": ([1 << 21 | 1], {}),
        **{name: ([256], {}) for name in ("set_loop1_stride_outtol1", "set_loop2_stride_outtol1")},
        "mte_gm_ub": ([src, ub, 0, 100], {"nburst": (40, 100, 128), "pad": (0.0,),
                                          "loop": [(1, 0, 0)]}),
        "mte_ub_gm": ([ub, out16, 100], {"nburst": (40, 128, 100)}),
        "mte_ub_ub": ([ub, ub + 64 * 40, 4], {"nburst": (10, 0, 0)}),
        "mte_gm_l1": ([src, l1, 100], {"nburst": (40, 100, 128)}),
        "mte_ub_l1": ([ub, l1, 4], {"nburst": (10, 0, 0)}),
        "mte_l1_ub": ([l1, ub, 4], {"nburst": (10, 0, 0)}),
        "mte_gm_l1_frac": ([src, l1, "nd2nz"], {"shape": (40, 50), "src_layout": (100,),
                                                "dst_group": (1, 1, 48, 0), "ctrl": (0, False)}),
        # register-level forms (ptosim.ops.legacy)
        "set_mov_pad_val": ([np.float16(1.0)], {"value_type": "f16"}),
        "copy_gm_to_ubuf": ([src, ub, 0, 40, 100, 0, 0, False, 0, 100, 128], {}),
        "copy_ubuf_to_gm": ([ub, out16, 0, 40, 100, 0, 100, 128], {}),
        "copy_ubuf_to_ubuf": ([ub, ub + 64 * 40, 0, 10, 4, 0, 0], {}),
        "copy_ubuf_to_cbuf": ([ub, l1, 0, 10, 4, 0, 0], {}),
        "copy_cbuf_to_ubuf": ([l1, ub, 1, 10, 4, 0, 0], {}),
        "copy_gm_to_cbuf": ([src, l1, 40, 100, 100, 128], {}),
        "copy_cbuf_to_bt": ([m.ptr("l1", "f32", 0), m.ptr("bt", "f32", 0), False, 1, 2, 0,
                             0], {}),
        "copy_cbuf_to_fbuf": ([m.ptr("l1", "ui64", 0), m.ptr("fb", "ui64", 0), 1, 2, 0, 0],
                              {}),
        "load_cbuf_to_ca_mx": ([m.ptr("l1", "f8E4M3FN", 0), m.ptr("l0a", "f8E4M3FN", 0), 16,
                                64], {}),
        "load_cbuf_to_ca": ([l1, l0a, 0, 0, 3, 4, 3, 3], {"transpose": False}),
        "load_cbuf_to_cb": ([l1, l0b, 0, 0, 3, 4, 3, 3], {}),
        "mte_l1_l0a": ([l1, l0a, 40, 50], {"transpose": False}),
        "mte_l1_l0b": ([l1, l0b, 50, 40], {"transpose": True}),
        "mte_l1_bt": ([m.ptr("l1", "f32", 0), m.ptr("bt", "f32", 0), 2], {"nburst": (1, 0, 0)}),
        "mte_l1_fb": ([m.ptr("l1", "ui64", 0), m.ptr("fb", "ui64", 0), 2],
                      {"nburst": (1, 0, 0)}),
        "mte_l1_l0a_mx": ([m.ptr("l1", "f8E4M3FN", 0), m.ptr("l0a", "f8E4M3FN", 0), 16, 64],
                          {}),
        "mte_l1_l0b_mx": ([m.ptr("l1", "f8E4M3FN", 0), m.ptr("l0b", "f8E4M3FN", 0), 64, 16],
                          {}),
        **{name: ([m.ptr("l0a", "f8E4M3FN", 0), m.ptr("l0b", "f8E4M3FN", 0), l0c,
                   *([m.ptr("bt", "f32", 0)] if name == "mad_mx_bias" else []), 16, 16, 64],
                  {"disable_gemv": False, "sat": "sat"})
           for name in ("mad_mx", "mad_mx_acc", "mad_mx_bias")},
        "mad": ([l0a, l0b, l0c, 40, 40, 50], {"sat": "sat"}),
        "mad_acc": ([l0a, l0b, l0c, 40, 40, 50], {}),
        "mad_bias": ([l0a, l0b, l0c, m.ptr("bt", "f32", 0), 40, 40, 50], {}),
        "mte_l0c_gm": ([l0c, out32, 40, 64, 48, 64, 0, 0], {"layout": "nz2nd"}),
        "mte_l0c_l1": ([l0c, m.ptr("l1", "f16", 0), 40, 64, 48, 48],
                       {"pre_quant": (0.5, "qf322f16_pre_scalar")}),
        "mte_l0c_ub": ([l0c, m.ptr("ub", "f32", 0), 40, 60, 48, 64],
                       {"dst_mode": 1, "layout": "nz2nd", "sat": "sat",
                        "pre_relu": (0.1, "scalar_relu", None)}),
        "TLOAD": ([mat, g], {"cpu_sim_compat": False}),
        "TSTORE": ([g32, acc], {}),
        "TMOV": ([left, mat], {}),
        "TEXTRACT": ([left, mat, 0, 0], {}),
        "SETFMATRIX": ([fmap], {"fmatrix_mode": "B_MANUAL"}),
        "SET_IMG2COL_RPT": ([fmap], {"fmatrix_mode": "A_MANUAL"}),
        "SET_IMG2COL_PADDING": ([fmap], {"fmatrix_mode": "A_MANUAL"}),
        "TIMG2COL": ([left, fmap, 0, 0], {"fmatrix_mode": "A_AUTO"}),
        "TINSERT": ([vec2, vec, 0, 0], {}),
        "TFILLPAD": ([vec2, vec], {"mode": "plain"}),
        "TMATMUL": ([acc, left, right], {}),
        "TMATMUL_ACC": ([acc, left, right], {}),
        "TMATMUL_BIAS": ([acc, left, right, bias], {}),
        "TGET_SCALE_ADDR": ([m.tile("ScaleLeft", "e8m0", 48, 2), left], {}),
        "TPREFETCH": ([m.tile("Vec", "f32", 40, 64, addr=81920), g32], {}),
        "SET_QUANT_SCALAR": (["i8", 0.5], {}),
        "SET_QUANT_VECTOR": ([fp], {}),
        "TSYNC": (["TLOAD"], {}),
        "TPREFETCH_ASYNC": ([m.global_tensor(out32, shape=(1, 1, 1, 1, 2560),
                                             stride=(2560, 2560, 2560, 2560, 1)),
                             ptosim.PrefetchAsyncContext(m.gm(np.zeros(64, np.int8)))], {}),
        "SYNCALL": (["aiv_only"], {"mode": "soft", "used_cores": 2,
                                   "gm_workspace": m.global_tensor(
                                       m.gm(np.zeros(8, np.int32)), shape=(1, 1, 1, 1, 8),
                                       stride=(8, 8, 8, 8, 1))}),
        "MGATHER": ([m.tile("Vec", "f16", 4, 64, valid=(4, 50), addr=110592), g,
                     m.tile("Vec", "i32", 1, 8, valid=(1, 4), addr=111104)], {"oob": "Clamp"}),
        "MSCATTER": ([g32, m.tile("Vec", "f32", 4, 64, addr=111616),
                      m.tile("Vec", "i32", 1, 8, valid=(1, 4), addr=112640)], {"oob": "Clamp"}),
        **{name: ([acc16, vleft, right, *([bias] if name == "TGEMV_BIAS" else [])], {})
           for name in ("TGEMV", "TGEMV_ACC", "TGEMV_BIAS")},
        # the _FP exits: an f32 accumulator quantised to f16 with per-channel FB words
        "TSTORE_FP": ([m.global_tensor(m.gm_empty(40 * 64, "f16"), shape=(1, 1, 1, 40, 64),
                                       stride=(0, 0, 0, 64, 1)), acc, fp], {}),
        "TMOV_FP": ([m.tile("Vec", "f16", 48, 64, valid=(40, 64), addr=32768), acc, fp], {}),
        "TEXTRACT_FP": ([m.tile("Vec", "f16", 16, 64, addr=49152), acc, fp, 16, 0], {}),
        "TINSERT_FP": ([m.tile("Vec", "f16", 64, 64, addr=65536), acc, fp, 0, 0], {}),
        # MX ops: baselines with fp16 tiles are refused; every hostile variant must be too
        "TMATMUL_MX": ([acc, left, left, right, right], {}),
        "TMATMUL_MX_ACC": ([acc, left, left, right, right], {}),
        "TMATMUL_MX_BIAS": ([acc, left, left, right, right, bias], {}),
        **{name: ([acc16, vleft, vleft, right, right, *([bias] if "BIAS" in name else [])], {})
           for name in ("TGEMV_MX", "TGEMV_MX_ACC", "TGEMV_MX_BIAS")},
        **vector_calls(m),
    }
    del matb
    calls.update(vector_baselines(m))
    calls.update(sort_baselines(m))
    calls.update(stream_calls(m))
    calls.update(pipe_calls(m, acc))
    return m, calls


def pipe_calls(m: ptosim.Machine, acc: Any) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """a5 tile pipes (tile.pipe): the cube's and AIV0's TPipe of one split-M C2V pipe; a
    TPipe baseline on the cube (no flags set), then push / pop / free on that pipe."""
    fifo = {"c2v_consumer_buf": 192 * 1024, "slot_num": 2, "slot_size": 8192}
    cube_pipe = m.TPipe(0, "DIR_C2V", core="cube", **fifo)
    aiv0_pipe = m.TPipe(0, "DIR_C2V", core="vector", subblock=0, **fifo)
    m.TPipe(0, "DIR_C2V", core="vector", subblock=1, **fifo)
    return {
        "TPipe": ([2, "DIR_C2V", 4096, 2], {"c2v_consumer_buf": 0, "core": "cube"}),
        "TPUSH": ([cube_pipe, acc], {"split": "TILE_UP_DOWN"}),
        "TPOP": ([aiv0_pipe, m.tile("Vec", "f32", 24, 64, subblock=0)],
                 {"split": "TILE_UP_DOWN"}),
        "TFREE": ([aiv0_pipe], {"split": "TILE_UP_DOWN"}),
    }


def sort_baselines(m: ptosim.Machine) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """One valid call per irregular tile op (ptosim.isa.tile_sort rows), tiles placed from
    byte 160 Ki of UB."""
    top = [160 * 1024]

    def tile(dt: str, rows: int, cols: int, valid: tuple[int, int] | None = None) -> Any:
        t = m.tile("Vec", dt, rows, cols, valid=valid, addr=top[0])
        top[0] += -(-t.nbytes // 32) * 32
        return t

    f32 = tile("f32", 1, 64)
    recs = tile("f32", 1, 256)
    return {
        "TSORT32": ([tile("f32", 2, 64), tile("f32", 2, 16, (2, 13)), tile("ui32", 2, 32),
                     tile("f32", 1, 32)], {}),
        "TMRGSORT": ([tile("f32", 1, 128), tile("f32", 1, 128), f32, tile("f32", 1, 64)],
                     {"exhausted": True}),
        "TRANDOM": ([tile("i32", 2, 64, (2, 50)), 1, 2, 3, 4, 5, 6], {"rounds": 7}),
        "TGATHERB": ([tile("f32", 2, 16), recs, tile("ui32", 2, 8)], {}),
        "TSCATTER": ([tile("f32", 2, 8), tile("f32", 2, 8), tile("ui32", 2, 8)], {}),
        "TGATHER": ([tile("f32", 2, 8), tile("f32", 2, 8), tile("i32", 2, 8)], {}),
        "TINTERLEAVE": ([tile("f32", 2, 8), tile("f32", 2, 8), tile("f32", 2, 8),
                         tile("f32", 2, 8)], {}),
        "TDEINTERLEAVE": ([tile("f32", 2, 8), tile("f32", 2, 8), tile("f32", 2, 16)], {}),
        "TQUANT": ([tile("ui8", 2, 32), tile("f32", 2, 8), tile("f32", 1, 8), tile("f32", 1, 8)],
                   {"quant_type": "INT8_ASYM"}),
        "TDEQUANT": ([tile("f32", 2, 8), tile("i16", 2, 16, (2, 8)), tile("f32", 2, 8, (2, 1)),
                      tile("f32", 2, 8, (2, 1))], {}),
        "THISTOGRAM": ([tile("ui32", 2, 256), tile("ui16", 2, 16),
                        m.tile("Vec", "ui8", 32, 1, blayout="ColMajor")],
                       {"byte": 0}),
        "TPRINT": ([tile("f16", 1, 16, (1, 2))], {"format": "w8p2"}),
        # further tile ops (isa.tile_extra, isa.tile_shape)
        "TTRANS": ([tile("f32", 8, 8), tile("f32", 4, 8, (4, 6)), tile("f32", 8, 16)], {}),
        "TADDC": ([f32, f32, f32, f32], {"cpu_sim_compat": True}),
        "TADDSC": ([f32, f32, 0.5, f32], {"cpu_sim_compat": True}),  # no NPU code
        "TTRI": ([f32, 1], {"upper_or_lower": 1}),
        "TPAIRREDUCESUM": ([f32, f32], {}),
        "TPOW": ([f32, f32, f32, f32], {}),
        "TPOWS": ([f32, f32, 2.0, f32], {"algo": "HIGH_PRECISION"}),
        "TADDRELUCONV": ([tile("f16", 1, 64), f32, f32], {}),
        "TSUBRELUCONV": ([tile("f16", 1, 64), f32, f32], {}),
        "TADDDEQRELU": ([tile("f16", 2, 16, (2, 8)), tile("i32", 2, 8), tile("i32", 2, 8), 0.5,
                         tile("i32", 2, 8)], {}),
        "TSUBSC": ([f32, f32, 0.5, f32], {"cpu_sim_compat": True}),
        **{name: ([f32, f32, f32], {}) for name in ("TFUSEDMULADD", "TFUSEDMULADDRELU",
                                                   "TMULADDDST", "TSUBRELU")},
        "TSUBC": ([f32, f32, f32, f32], {"cpu_sim_compat": True}),
        "TAXPY": ([tile("f32", 2, 8), tile("f16", 2, 16, (2, 8)), 0.5], {}),
        "TPARTARGMAX": ([tile("f32", 2, 8), tile("f32", 2, 8), tile("f32", 1, 8, (1, 8)),
                         tile("i32", 2, 8), tile("i32", 2, 8), tile("i32", 1, 8)], {}),
        "TPARTARGMIN": ([tile("f16", 2, 16), tile("f16", 2, 16), tile("f16", 2, 16),
                         tile("i16", 2, 16), tile("i16", 2, 16), tile("i16", 2, 16)], {}),
        "TCONCAT": ([tile("f32", 2, 16), tile("f32", 2, 8, (2, 5)), tile("f32", 2, 8, (2, 7))],
                    {}),
        "TCONCATIDX": ([tile("f32", 2, 16), tile("f32", 2, 8), tile("f32", 2, 8),
                        tile("i32", 2, 8, (2, 1)), tile("i32", 2, 8, (2, 1))], {}),
        "TRESHAPE": ([recs, "f16", 2, 256], {}),
        "TSUBVIEW": ([recs, 0, 0, 1, 256], {"valid": (1, 8)}),
        # a tile handle's address and one element through the scalar unit (tile.handle)
        "TASSIGN": ([f32, 200 * 1024], {}),
        "TGETVAL": ([f32, 3], {}),
        "TSETVAL": ([f32, 3, 1.5], {}),
    }


def vector_baselines(m: ptosim.Machine) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """One valid call per vector tile op row, built from the row (family, element types)."""
    from ptosim.isa.tile_vector import ROWS
    out: dict[str, tuple[list[Any], dict[str, Any]]] = {}
    pool: dict[tuple, Any] = {}
    top = [98304]

    def tile(dt: str, rows: int, cols: int, valid: tuple[int, int] | None = None,
             n: int = 0) -> Any:
        """Tiles shared between the baselines, placed from byte 96 Ki of UB."""
        key = (dt, rows, cols, valid, n)
        if key not in pool:
            pool[key] = m.tile("Vec", dt, rows, cols, valid=valid, addr=top[0])
            top[0] += -(-pool[key].nbytes // 32) * 32
        return pool[key]

    for spec in ROWS:
        rule = spec.impl
        dt = next(d for d in ("f32", "i32", "f16", "i16") if d in rule.dtypes)
        o = next(d for d in ("ui8", "i32") if rule.out is None or d in rule.out) \
            if rule.out else dt
        if rule.family in ("rowarg", "colarg"):
            o = "i32"
        if rule.family == "cvt":
            o = "f16"                                   # an f32 -> f16 TCVT
        if rule.family == "trans":
            o = dt                                      # a transpose keeps the element
        full = tile(dt, 8, 64, (8, 50))
        fam = rule.family
        if fam in ("rowreduce", "rowarg"):
            dst = tile(o, 8, 8, (8, 1))
        elif fam in ("colreduce", "colarg"):
            dst = tile(o, 1, 64, (1, 50))
        elif fam in ("cmp", "cmps"):
            dst = tile(o, 8, 32)
        elif fam == "ci":
            dst = tile(o, 1, 64, (1, 50))
        elif fam == "trans":                            # holds the 50 x 8 transpose
            dst = tile(o, 64, 8)
        else:
            dst = tile(o, 8, 64, (8, 50), 2)
        scalar = 3 if dt.startswith("i") else 1.5
        kinds = {"src": full, "src0": full, "src1": tile(dt, 8, 64, (8, 50), 1),
                 "tmp": tile(dt, 8, 64), "scalar": scalar,
                 "mask": tile("ui8", 8, 32)}
        if fam in ("rowexpand", "rowexpandop"):
            kinds["src" if fam == "rowexpand" else "src1"] = tile(dt, 8, 8, (8, 1))
        if fam in ("colexpand", "colexpandop"):
            kinds["src" if fam == "colexpand" else "src1"] = tile(dt, 1, 64, (1, 50))
        args = [dst] + [kinds[x.name] for x in spec.operands[1:]]
        kw = {"mode": "lt"} if fam in ("cmp", "cmps") else {}
        out[spec.method] = (args, kw)
    return out


def vector_calls(m: ptosim.Machine) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """Baselines of the vector micro ops (rows of ptosim.isa.vector)."""
    from ptosim.vector import Align, Mask, VReg
    ub32, ub8 = m.ptr("ub", "f32", 65536), m.ptr("ub", "ui8", 98304)
    v = VReg.from_lanes(np.arange(64, dtype=np.float32), "f32")
    k = Mask.from_lanes(np.arange(64) < 20, 32)
    calls: dict[str, tuple[list[Any], dict[str, Any]]] = {
        "vlds": ([ub32, 64], {"dist": "BRC_B16", "dtype": "f32", "post_update": False}),
        "vldsx2": ([ub32, 0, "DINTLV_B32"], {"dtype": "f32"}),
        "vsts": ([v, ub32, 64, k], {"dist": "NORM_B32", "post_update": True}),
        "vstsx2": ([v, v, ub32, 0, "INTLV_B32", k], {}),
        "plds": ([ub8, 0, "US"], {"g": 32}), "pldi": ([ub8, 32, "DS"], {"g": 16}),
        "psts": ([k, ub8, 0, "NORM"], {}), "psti": ([k, ub8, 64, "PK"], {}),
        "pand": ([k, k, k], {}), "por": ([k, k, k], {}), "pxor": ([k, k, k], {}),
        "pnot": ([k, k], {}), "psel": ([k, k, k], {}),
        "ppack": ([k, "LOWER"], {}), "punpack": ([k, "HIGHER"], {}),
        "pbitcast": ([k], {"g": 16}),
        "vbr": ([3], {"dtype": "i16"}),
        "vdup": ([v, k], {"position": "HIGHEST", "dtype": "f32"}),
        "vci": ([5], {"order": "DESC", "dtype": "i32"}),
        "init_align": ([], {}), "sprclr": (["AR"], {}),
        "load_scalar": ([ub32, 3], {}), "store_scalar": ([1.5, ub32, 3], {}),
        # conversions and reductions (rows of ptosim.isa.vector_convert / vector_reduce)
        "vcvt": ([v, k], {"rnd": "R", "sat": "SAT", "part": "ODD", "dtype": "f16"}),
        "vtrc": ([v, k, "F"], {}), "vbitcast": ([v], {"dtype": "ui16"}),
        **{n: ([v, k], {}) for n in ("vcadd", "vcmax", "vcmin", "vcgadd", "vcgmax",
                                     "vcgmin", "vcpadd")},
    }
    for g in (8, 16, 32):
        calls[f"pset_b{g}"] = (["PAT_M3"], {})
        calls[f"pge_b{g}"] = (["PAT_VL8"], {})
        calls[f"plt_b{g}"] = ([100], {})
        calls[f"pintlv_b{g}"] = ([k.view(g), k.view(g)], {})
        calls[f"pdintlv_b{g}"] = ([k.view(g), k.view(g)], {})
    del Align
    from ptosim.isa import alu
    from ptosim.isa.vector import ROWS
    i16 = VReg.from_lanes(np.arange(128, dtype=np.int16), "i16")
    k16 = Mask.from_lanes(np.arange(128) < 20, 16)
    for row in ROWS:                       # elementwise rows: one call each
        if row.lane is None:
            continue
        floats = "f32" in alu.OP_DTYPES.get(row.name, {"f32"})
        reg, mask = (v, k) if floats else (i16, k16)
        srcs = [reg] * sum(o.kind == "vreg" for o in row.operands)
        scalar = [np.float32(2) if floats else 2] if any(o.kind == "scalar"
                                                         for o in row.operands) else []
        calls[row.name] = (srcs + scalar + [mask], {})
    calls.update(dsa_calls(m, v, k))
    calls.update(cmp_calls(v, k))
    # rearrangement and gathers / scatter (ptosim.isa.vector_rearrange / vector_gather)
    i32 = VReg.from_lanes(np.arange(64, dtype=np.int32) * 3, "i32")
    calls.update({
        "vintlv": ([v, v], {}), "vdintlv": ([v, v], {}),
        "vpack": ([i32, "HIGHER"], {"dtype": "ui16"}),
        "vsunpack": ([i16, 1], {"dtype": "i32"}), "vzunpack": ([i16, 0], {"dtype": "ui32"}),
        "vperm": ([v, i32], {}), "vshift": ([v, 3], {}), "vslide": ([v, v, 5], {}),
        "vsqz": ([v, k], {}), "vusqz": ([i32, k], {}),
        "vgather2": ([ub32, i32, k], {"dtype": "f32"}),
        "vgather2_bc": ([ub32, i32, k], {"dtype": "f32"}),
        "vgatherb": ([ub32, VReg.from_lanes(np.arange(64, dtype=np.int32) * 32, "i32"), k],
                     {"dtype": "f32"}),
        "vscatter": ([v, ub32, i32, k], {}),
    })
    return calls


def cmp_calls(v: Any, k: Any) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """Baselines of the compare / select / carry rows (ptosim.isa.vector_cmp)."""
    from ptosim.vector import VReg
    u32 = VReg.from_lanes(np.arange(64, dtype=np.uint32) * 0x0400_0000, "ui32")
    idx = VReg.from_lanes(np.arange(64, dtype=np.int32)[::-1], "i32")
    return {
        "vcmp": ([v, v, k, "lt"], {}), "vcmps": ([v, np.float32(1), k, "gt"], {}),
        "vsel": ([v, v, k], {}), "vselr": ([v, idx], {}),
        "vaddc": ([u32, u32, k], {}), "vsubc": ([u32, u32, k], {}),
        "vaddcs": ([u32, u32, k, k], {}), "vsubcs": ([u32, u32, k, k], {}),
    }


def dsa_calls(m: ptosim.Machine, v: Any, k: Any) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """Baselines of the DSA / SFU rows (ptosim.isa.vector_dsa)."""
    from ptosim.vector import VReg
    i32 = VReg.from_lanes(np.arange(64, dtype=np.int32) - 7, "i32")
    scores, ids = m.ptr("ub", "f32", 32768), m.ptr("ub", "ui32", 33024)
    out = m.ptr("ub", "f32", 33280)
    return {
        "vprelu": ([v, v, k], {}), "vexpdif": ([v, v, k, "ODD"], {}),
        "vaxpy": ([v, v, np.float32(2), k], {}), "vmula": ([v, v, v, k], {}),
        "vmull": ([i32, i32, k], {}),
        "vaddreluconv": ([v, v], {"dtype": "f32"}), "vmulconv": ([v, v], {}),
        "vbitsort": ([out, scores, ids, 1], {}),
        "vmrgsort4": ([out, scores, scores + 2, scores + 4, scores + 6, 0x0001_0001_0001_0001,
                       0x1F01], {}),
        "get_vms4_sr": ([], {}),
    }


REFUSED_BASELINES = {"TMATMUL_MX", "TMATMUL_MX_ACC", "TMATMUL_MX_BIAS", "TGEMV_MX",
                     "TGEMV_MX_ACC", "TGEMV_MX_BIAS"}


def cases(calls: dict[str, tuple[list[Any], dict[str, Any]]],
          values: list[Any] = HOSTILE) -> Iterator[Case]:
    """One hostile value at a time in every argument and clause element."""
    for name, (args, kwargs) in calls.items():
        for i, arg in enumerate(args):
            for v in values:
                yield Case(name, args[:i] + [v] + args[i + 1:], kwargs, f"arg {i}")
            if isinstance(arg, tuple):
                for j in range(len(arg)):
                    for v in values:
                        bad = arg[:j] + (v,) + arg[j + 1:]
                        yield Case(name, args[:i] + [bad] + args[i + 1:], kwargs,
                                   f"arg {i}[{j}]")
        for key, val in kwargs.items():
            for v in values:
                yield Case(name, args, {**kwargs, key: v}, key)
            parts = val if isinstance(val, tuple) else val[0] if isinstance(val, list) \
                and val and isinstance(val[0], tuple) else None
            if parts is not None:
                for j in range(len(parts)):
                    for v in values:
                        bad = parts[:j] + (v,) + parts[j + 1:]
                        yield Case(name, args, {**kwargs, key: [bad] if isinstance(val, list)
                                                else bad}, f"{key}[{j}]")
        for v in values[:3]:
            yield Case(name, args, {**kwargs, "no_such_keyword": v}, "unknown keyword")
        yield Case(name, args[:-1], kwargs, "missing argument")


def buffers(m: ptosim.Machine) -> list[np.ndarray]:
    """Every byte array of the machine: on-chip buffers, FB banks, GM allocations."""
    out = []
    for blk in m.blocks:
        out += list(blk.cube.values()) + list(blk.ub) + list(blk.fb_banks.values())
    return out + [a.data for a in m._gm]


def _words(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint64) if a.size % 8 == 0 else a


@dataclass
class Outcome:
    case: Case
    error: BaseException | None    # None: the call was accepted
    wrote: bool                    # memory changed although the call was refused


def run(values: list[Any] = HOSTILE, methods: set[str] | None = None) -> Iterator[Outcome]:
    """Every case on a fresh machine per method; refused calls are checked byte for byte
    against a copy of every buffer taken before them."""
    import warnings
    names = list(setup()[1])
    for name in names:
        if methods is not None and name not in methods:
            continue
        m, calls = setup()
        saved = [b.copy() for b in buffers(m)]
        for case in cases({name: calls[name]}, values):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    getattr(m, case.method)(*case.args, **case.kwargs)
                except BaseException as err:  # noqa: BLE001 - the harness classifies all
                    now = buffers(m)
                    wrote = len(now) != len(saved) or any(
                        not np.array_equal(_words(x), _words(y)) for x, y in zip(now, saved))
                    yield Outcome(case, err, wrote)
                    if wrote:
                        saved = [b.copy() for b in buffers(m)]
                    continue
            saved = [b.copy() for b in buffers(m)]
            yield Outcome(case, None, False)


def stream_calls(m: ptosim.Machine) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """Baselines of the unaligned-stream and block-strided ops (ptosim.isa.vector_stream)."""
    from ptosim.vector import Align, Mask, VReg
    ub32, ubu = m.ptr("ub", "f32", 65536 + 4), m.ptr("ub", "ui32", 65536 + 2048)
    v = VReg.from_lanes(np.arange(64, dtype=np.float32), "f32")
    k = Mask.from_lanes(np.arange(64) < 20, 32)
    m.regs["SQZN"] = (32,)                 # what a vsqz of 8 f32 lanes leaves
    tail = m.vstus(Align(), 3, v, ub32)    # 12 bytes pending, the stream ends at ub32 + 3
    return {
        "vldas": ([ub32], {}), "vldus": ([ub32, m.vldas(ub32)], {"dtype": "f32"}),
        "vstus": ([Align(), 5, v, ub32], {}),
        "vstur": ([Align(), v, ub32, "NO_POST_UPDATE"], {}),
        "pstu": ([Align(), k, ubu], {}),
        "vstas": ([tail, ub32, 3], {}), "vstar": ([Align(), ub32], {}),
        "vsldb": ([ub32 - 1, 2, 4, k], {"dtype": "f32"}),
        "vsstb": ([v, ub32 - 1, 2, 4, k], {"post_update": True}),
    }
