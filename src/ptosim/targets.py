"""Target profiles as data: buffer capacities, alignment, element types and ops per target.

Numbers follow pto-isa's buffer_limits.hpp / tassign.md (see docs/semantics.md, "Capacities").
Code asks the profile; op bodies never test the target's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cost import CostModel
from .dtypes import DTYPES
from .errors import PtoValueError
from .isa import target_ops
from .isa.convert import TCVT_PAIRS_A2A3, TCVT_PAIRS_A5

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

# FIXPIPE quantisation modes whose math the sources pin down (docs/semantics.md, FIXPIPE).
_QUANT_COMMON = frozenset({
    "f32_f16", "f32_bf16", "qf322f16_pre_scalar", "qf322f16_pre_vec", "qf322bf16_pre_scalar",
    "qf322bf16_pre_vec", "qf322b8_pre_scalar", "qf322b8_pre_vec", "req8_scalar", "req8_vec",
    "deqf16_scalar", "deqf16_vec"})
_QUANT_A5 = frozenset({"qf322f32_pre_scalar", "qf322f32_pre_vec", "qf322fp8_pre_scalar",
                       "qf322fp8_pre_vec", "qs322bf16_pre_scalar", "qs322bf16_pre_vec"})

# GM traffic shares HBM between cores, on-chip paths are wide; the cube does 16x16x16 f16
# MACs per cycle at ~1.8 GHz (8-bit twice, f32 a quarter).
_PEAK = {"1": 29491.0, "2": 14746.0, "4": 3686.0}
_FALLBACK_COST = CostModel({}, _PEAK)   # every pipe at the model's fallback 64 B/ns


@dataclass(frozen=True)
class Target:
    """A hardware profile. ``capacity`` is bytes per buffer (UB: per vector sub-block)."""

    name: str
    capacity: dict[str, int]
    dtypes: frozenset[str]
    ops: frozenset[str]             # micro-ops that exist here (from the op registry)
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
    # Vec TFILLPAD counts the bottom pad rows as an unsigned dst valid rows - src valid
    # rows (a5), so a dst with fewer valid rows wraps it into a fill far past the tile; else
    # (a2a3) a negative count fills no row
    fillpad_rows_unsigned: bool = False
    max_blocks: int = 24            # AI cores (one AIC + two AIV each) of the largest part
    # How TMATMUL keeps a one-row Left tile off mad's GEMV path: "disable_gemv" (the a5
    # library sets the clause) or "m16" (the a2a3 library issues m = 16 instead).
    matmul_no_gemv: str = "disable_gemv"
    # (layout name, fractal) pairs each TileType may use (research notes §1.3; a5's NZ-1024
    # Vec / Mat tiles receive accumulators, research "Acc exit paths" §2, §6)
    tile_layouts: dict[str, frozenset[tuple[str, int]]] = field(default_factory=dict)
    # (view layout, tile layout) pairs a TLOAD may move, per destination TileType
    tload_pairs: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    tload_mat_null_pad_zero: bool = False  # Mat ND / DN TLOAD zero-fills each burst's last
                                           # 32 B block even when the tile's pad is Null
    tload_mat_one_row_nd2nz: bool = False  # a one-row ND Mat TLOAD moves by nd2nz into C0
                                           # blocks (zero-filled tail) instead of one burst
    tload_mat_whole_blocks: bool = False   # Mat ND / DN TLOAD bursts are whole 32 B blocks
    tload_view_over_valid: bool = False    # a same-layout TLOAD view may exceed the valid
                                           # region (up to the tile's shape)
    tstore_mat: bool = False        # TSTORE has a Mat (L1) -> GM path
    # (src, dst) layouts a Vec -> Vec TMOV rewrites through the vector unit (ND -> ND is a DMA;
    # ND -> ZZ: the 3-operand MX exponent repack)
    tmov_vec_layouts: frozenset[tuple[str, str]] = frozenset()
    tinsert_vec_col_block: bool = False    # Vec -> Vec TINSERT's column starts a 32 B block
    acc_to_vec: bool = False        # Acc -> Vec moves exist (FIXPIPE L0C -> UB)
    # tile layouts an Acc writes per (kind, destination TileType); kind: move (TMOV),
    # insert (TINSERT), extract (TEXTRACT)
    acc_dst_layouts: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    bt_bf16: bool = False           # mte_l1_bt widens bf16 to f32
    semaphores_paired: bool = False  # a cube set reaches both AIVs, a cube wait needs both
                                     # (else cube ids 0-15 address AIV0, 16-31 AIV1)
    # Vector tile ops: element types an op is narrowed to here (op -> names; absent: the
    # row's list); TCMP compares whole 256 B repeats under a full mask, so the mask bits
    # past the valid columns come from the bytes there (else: zeroing predicate, 0 bits).
    tile_vector_dtypes: dict[str, frozenset[str]] = field(default_factory=dict)
    tcmp_whole_repeats: bool = False
    # TEXPANDS fills one run of valid rows x cols elements from the tile start whenever the
    # valid width is static (or one row), 8-bit types as 16-bit pairs (A2A3 TExpandS.hpp
    # TExpandsVec1D / B82B16Trait; tile/expands_a2a3.py); else exactly the valid region
    texpands_flat_fill: bool = False
    # 8-bit ops run on 16-bit pairs: an odd valid width also computes the next column
    # (A2A3 TAnd.hpp / TOr.hpp / TUnaryOp.hpp TNOT_IMPL / TRowExpand.hpp, B82B16Trait;
    # tile/b8pairs_a2a3.py)
    tile_b8_pair_ops: frozenset[str] = frozenset()
    # TMOV Vec -> Vec (ND) stores exactly the common valid region with vector stores (A5
    # TMovVecToVec); else copy_ubuf_to_ubuf in 32 B blocks, whole rows when the widths
    # allow (A2A3 TMovToVecImpl)
    tmov_vec_exact: bool = False
    # PTOAS compiles a `.pto` tmov between Vec DN tiles as TMOV of ND tiles of the
    # transposed shapes (its A5 normalise-TMOV pass)
    tmov_dn_as_nd: bool = False
    # TTRANS needs both tiles' rows to be whole 32-byte blocks (A5 TTrans.hpp)
    ttrans_row_blocks: bool = False
    # TTRANS conv-tile forms ("SRC->DST" layout pairs) the target's TTrans.hpp has code for
    # (tile/conv_trans.py); a pair pto-isa defines but the target lacks is NotImplementedOpError
    ttrans_conv_forms: frozenset[str] = frozenset()
    # the aligned NCHW -> NC1HWC0 slab transpose gathers 1- / 2-byte elements with 16-bit
    # offsets that wrap past 65535 (A5 TTransB8 / B16ColWise; no static_assert guards it)
    ttrans_conv_index16: bool = False
    # TCVT (src, dst) pairs, canonical names (signless integers read as signed)
    tcvt_pairs: frozenset[tuple[str, str]] = frozenset()
    # TPARTARGMAX / MIN test src0 >= src1 (<=) and keep src0 on true (else: src1 > src0,
    # src1 < src0, take src1 on true): the two differ only where a NaN is compared
    tpartarg_src0_ge: bool = False
    # UB -> UB staging copies of TCONCAT / TTRANS move whole 32 B blocks per row
    vec_block_copies: bool = False
    # TGATHER's comparison form runs the a5 vsqz / vstur stream code (else a2a3's staging
    # in and past tmp with vcmpvs + vreducev2: tile/gather_cmp_a2a3.py)
    tgather_cmp: bool = False
    # TTRI's second pass stores its prefix (ones of a lower, zeros of an upper triangle)
    # unclamped: up to the whole repeats of the row, past the valid columns and the last
    # valid row (A5 TTri.hpp; a2a3 clamps every row to the valid columns)
    ttri_unclamped: bool = False
    # TPAIRREDUCESUM on fully valid tiles runs one flat vcpadd stream (pair sums packed
    # from dst's start; A5 TPairReduceSum.hpp 1D path), else row by row (a2a3 always)
    vcpadd_flat_tiles: bool = False
    # TADDRELUCONV composed of vadd, vmaxs and vcvt (A5 TAddReluConv.hpp); else one fused
    # vaddreluconv_* instruction whose conversion is not published
    addreluconv_composed: bool = False
    # TPOW / TPOWS: exp(ln(x) * y) with vln, vmul(s), vexp and scalar fix-ups, integers by
    # scalar squaring, PowAlgorithm ignored (A2A3 TPow.hpp); else a5's vector code
    # (tile/pow_a5.py: DEFAULT and HIGH_PRECISION, integers by vector squaring)
    tpow_ln_exp: bool = False
    # element types TPOW / TPOWS take with algo=HIGH_PRECISION (empty: algo is ignored)
    tpow_high_precision_types: frozenset[str] = frozenset()
    # TDIV / TDIVS / TROWEXPANDDIV / TCOLEXPANDDIV / TSQRT / TRSQRT / TEXP / TLOG / TRECIP
    # (f16 / f32) and TFMOD(S) / TREM(S) (f32) run pto-isa's HIGH_PRECISION vector code (a5
    # custom/Div754.hpp, TSqrtHp.hpp, TExp_Custom.hpp, TLog_Custom.hpp, TFmodRemHp.hpp:
    # tile/div_a5.py, explog_a5.py, fmod_a5.py); else the precision is ignored (a2a3 has
    # no HIGH_PRECISION branch)
    div_high_precision: bool = False
    # DEFAULT TREM / TREMS / TFMOD / TFMODS run a2a3's code (tile/rem_fmod.py: TREMS with
    # the sign fix, i32 TREM(S) through f32); else a5's (f16 through f32, 64-bit ints)
    rem_fmod_a2a3: bool = False
    # TPREFETCH packs a slice's rows at their byte length in UB (A5 copy_gm_to_ubuf_align_v2
    # with ubStride = lenBurst); else at 32 B boundaries (A2A3 through the TLOAD DMA)
    prefetch_packed_rows: bool = False
    # the _FP overloads' vector pre-quant mode per (Acc type, destination type): to GM and
    # on chip (Mat / Vec); pto-isa GetVectorPreQuantModeGm / GetVectorPreQuantMode
    vector_quant_gm: dict[tuple[str, str], str] = field(default_factory=dict)
    vector_quant_chip: dict[tuple[str, str], str] = field(default_factory=dict)
    # the preQuantScalar overloads' (TSTORE / TMOV(dst, src, preQuantScalar)) scalar modes
    scalar_quant_gm: dict[tuple[str, str], str] = field(default_factory=dict)
    scalar_quant_chip: dict[tuple[str, str], str] = field(default_factory=dict)
    # TADDDEQRELU staged in place: tmp, src0 and src1 are overwritten (A2A3 TAddDeqRelu.hpp)
    adddeqrelu_in_place: bool = False
    # manual tile ops this target's NPU code does not implement (pto-isa has them in its CPU
    # simulator only): they raise NotImplementedOpError unless called with cpu_sim_compat
    npu_missing_tile_ops: frozenset[str] = frozenset()
    # tile ops this target does not have at all (pto-isa has no implementation under its
    # include/pto/npu/<target>/ and PTOAS refuses them there): a TargetError
    absent_tile_ops: frozenset[str] = frozenset()
    # TSYNC<Op>(): the pipes its pipe_barrier may drain (TSync.hpp static asserts)
    tsync_barrier_pipes: tuple[str, ...] = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX",
                                            "ALL")
    # PTOAS erases a PIPE_V barrier_sync (a single-pipe V barrier is no instruction there)
    drops_v_barrier: bool = False
    # .pto (PTOAS-only rules): trowexpandmax / min / expdif refuse their tmp operand (PTOAS
    # would lower it to a2a3's 4-operand call); the frontend pipe init's local_slot_num is
    # taken (PTOAS: a2/a3 frontend lowering only)
    ptoas_rowexpand_no_tmp: bool = False
    ptoas_local_slot_num: bool = True
    # SYNCALL (mode, core type) pairs the target lacks (the manual's support matrix)
    syncall_missing: frozenset[tuple[str, str]] = frozenset()
    # MGATHER / MSCATTER: a5's SIMT kernels (rows packed at the valid width, Row capacity
    # Shape[3], a [R, 1] ColMajor index tile, ND tables only, a ScatterConflict policy),
    # else a2a3's scalar walk (Stride[3] rows, capacity Shape[0..3], NZ table / tile pairs)
    gm_index_simt: bool = False
    # ... their data element types, the pipes they run on (PTOAS getPipe: V for a5's SIMT
    # kernels, MTE2 / MTE3 for a2a3's DMAs), and MSCATTER's atomic element types
    gm_index_dtypes: frozenset[str] = frozenset({"i8", "si8", "ui8", "i16", "si16", "ui16",
                                                 "i32", "si32", "ui32", "f16", "bf16", "f32"})
    mgather_pipe: str = "MTE2"
    mscatter_pipe: str = "MTE3"
    scatter_atomic_dtypes: dict[str, frozenset[str]] = field(default_factory=lambda: {
        "add": frozenset({"i8", "si8", "i16", "si16", "i32", "si32", "f16", "bf16", "f32"}),
        "max": frozenset(), "min": frozenset()})
    # TIMG2COL (pto-isa TImg2col.hpp / SetImg2col*.hpp): the Left element types, and
    # whether the target has the B repeat / padding registers and the L3D_RPT dst stride /
    # M position fields (a5; a2a3's code has one repeat and one padding register)
    img2col_dtypes: frozenset[str] = frozenset({"i8", "f16", "bf16", "f32"})
    img2col_b_pair: bool = False
    # a2a3's TEXTRACT / TMOV Mat -> Left / Right issue the load-3D themselves for their
    # non-transposing (Left) / transposing non-b8 forms and reprogram FMATRIX (A or B)
    # (textract_common.hpp); a5's use other instructions
    extract_sets_fmatrix: bool = False
    # TLOAD GM -> Mat conv tile (pto-isa a5 TLoad.hpp CheckConvTileData; a2a3 TLoad.hpp):
    # the (GM layout, tile layout) pairs and the tile element types
    conv_load_pairs: frozenset[tuple[str, str]] = frozenset({
        ("NC1HWC0", "NC1HWC0"), ("FRACTAL_Z", "FRACTAL_Z"), ("FRACTAL_Z_3D", "FRACTAL_Z_3D"),
        ("NDC1HWC0", "NDC1HWC0")})
    conv_load_dtypes: frozenset[str] = frozenset({"i8", "si8", "ui8", "i16", "si16", "ui16",
                                                  "i32", "si32", "ui32", "f16", "bf16", "f32"})
    # a2a3 copies the conv loads' runs as 32 B-block bursts with 16-bit gaps counted in
    # blocks (a5: byte strides, loop registers)
    conv_load_block_gaps: bool = False
    # TSTORE Acc -> GM conv views (pto-isa a2a3 CheckAcc2gm: NC1HWC0, NDC1HWC0 (not
    # implemented); a5 CheckStaticAcc: NHWC / NCHW / NCDHW), each one FIXPIPE writeback
    # (ptosim.tile.conv_store)
    acc_conv_stores: frozenset[str] = frozenset({"NC1HWC0", "NDC1HWC0"})
    cost: CostModel = _FALLBACK_COST    # the timeline's cost model

    def has_dtype(self, name: str) -> bool:
        return name in self.dtypes

    def has_op(self, name: str) -> bool:
        return name in self.ops


_MAD_COMMON = frozenset({("i8", "i8", "i32"), ("f16", "f16", "f32"), ("bf16", "bf16", "f32"),
                         ("f32", "f32", "f32")})
_MAD_A5 = frozenset({(a, b, "f32") for a in ("f8E4M3FN", "f8E5M2")
                     for b in ("f8E4M3FN", "f8E5M2")} | {("hif8", "hif8", "f32")})

# Tile layouts and TLOAD pairs shared by both targets.
_VEC_LAYOUTS = frozenset({("ND", 512), ("DN", 512), ("NZ", 512)})
_MAT_LAYOUTS = frozenset({("ND", 512), ("DN", 512), ("NZ", 512), ("ZN", 512)})
_TILE_LAYOUTS_COMMON = {"Right": frozenset({("ZN", 512)}), "Acc": frozenset({("NZ", 1024)}),
                        "Bias": frozenset({("ND", 512)}), "Scaling": frozenset({("ND", 512)})}
_SAME = frozenset({("ND", "ND"), ("DN", "DN"), ("NZ", "NZ")})
_NZ_ONLY = ("NZ",)
_ACC_ANY = ("NZ", "ND", "DN")

# TADDC / TSUBC / TADDSC / TSUBSC: pto-isa's a2a3 and a5 headers have no *_IMPL for them
# (its include/README.md marks A2 / A3 / A5 "TODO"); only include/pto/cpu implements them.
_CPU_SIM_ONLY = frozenset({"taddc", "tsubc", "taddsc", "tsubsc"})

# a2a3 vector tile ops accept fewer element types than a5 (the static_asserts of pto-isa
# include/pto/npu/a2a3/T<Op>.hpp; ops not listed: the a5 list).
_A2_BASIC = frozenset({"f16", "f32", "i16", "i32"})
_VQ_A2A3 = {("f32", "i8"): "qf322b8_pre_vec", ("f32", "ui8"): "qf322b8_pre_vec",
            ("i32", "i8"): "req8_vec", ("i32", "ui8"): "req8_vec", ("i32", "f16"): "deqf16_vec",
            ("i32", "i16"): "deqs16_vec"}
_VQ_A5_CHIP = {("f32", "i8"): "qf322b8_pre_vec", ("f32", "ui8"): "qf322b8_pre_vec",
               ("f32", "hif8"): "qf322hif8_pre_vec", ("f32", "f16"): "qf322f16_pre_vec",
               ("f32", "bf16"): "qf322bf16_pre_vec", ("f32", "f8E4M3FN"): "qf322fp8_pre_vec",
               ("i32", "i8"): "req8_vec", ("i32", "ui8"): "req8_vec",
               ("i32", "f16"): "deqf16_vec", ("i32", "bf16"): "qs322bf16_pre_vec"}
_VQ_A5_GM = {**_VQ_A5_CHIP, ("f32", "f32"): "qf322f32_pre_vec"}
# the preQuantScalar overloads' scalar modes (pto-isa GetScalarPreQuantMode / ...Gm): a2a3
# one table (i32 -> i16 is SHIFTS322S16, which FIXPIPE does not implement); a5's on-chip
# table names the *vector* fp8 mode for f32 -> f8E4M3FN (VQF322FP8_PRE), kept as written
_SQ_A2A3 = {("f32", "i8"): "qf322b8_pre_scalar", ("f32", "ui8"): "qf322b8_pre_scalar",
            ("f32", "f16"): "qf322f16_pre_scalar", ("f32", "bf16"): "qf322bf16_pre_scalar",
            ("i32", "i8"): "req8_scalar", ("i32", "ui8"): "req8_scalar",
            ("i32", "f16"): "deqf16_scalar", ("i32", "i16"): "shifts322s16_scalar"}
_SQ_A5_CHIP = {("f32", "i8"): "qf322b8_pre_scalar", ("f32", "ui8"): "qf322b8_pre_scalar",
               ("f32", "hif8"): "qf322hif8_pre_scalar", ("f32", "f16"): "qf322f16_pre_scalar",
               ("f32", "bf16"): "qf322bf16_pre_scalar", ("f32", "f8E4M3FN"): "qf322fp8_pre_vec",
               ("i32", "i8"): "req8_scalar", ("i32", "ui8"): "req8_scalar",
               ("i32", "f16"): "deqf16_scalar", ("i32", "bf16"): "qs322bf16_pre_scalar"}
_SQ_A5_GM = {**_SQ_A5_CHIP, ("f32", "f8E4M3FN"): "qf322fp8_pre_scalar",
             ("f32", "f32"): "qf322f32_pre_scalar"}

_A2A3_VECTOR_DTYPES: dict[str, frozenset[str]] = {
    **{op: _A2_BASIC for op in ("tadd", "tsub", "tmul", "tmax", "tmin", "tadds", "tsubs",
                                "tmuls", "tdivs", "tmaxs", "tmins", "trowsum", "trowmax",
                                "trowmin", "tcolsum", "tcolmax", "tcolmin")},
    "tdiv": frozenset({"f16", "f32"}), "tprelu": frozenset({"f16", "f32"}),
    "tlrelu": frozenset({"f16", "f32"}), "trem": frozenset({"f32", "i32"}),
    "trems": frozenset({"f32", "i32"}), "tfmod": frozenset({"f32"}),
    "tfmods": frozenset({"f32"}),
    "tshl": frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32"}),
    "tshr": frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32"}),
    "tcmp": frozenset({"i32", "f16", "f32"}),
    "ttri": frozenset({"i16", "ui16", "i32", "ui32", "f16", "f32"}),
    "tpow": frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32", "f32"}),
    "tpows": frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32", "f32"}),
}

# the conv-tile TTRANS forms of A5 TTrans.hpp (TTransImplConvTile); a2a3 adds the reverse
# NC1HWC0 -> NCHW pair and NCDHW -> FRACTAL_Z_3D
_CONV_FORMS_A5 = frozenset({"NCHW->NC1HWC0", "NC1HWC0->FRACTAL_Z", "GNCHW->GNC1HWC0",
                            "GNC1HWC0->FRACTAL_Z"})

A2A3 = Target(
    name="a2a3",
    rem_fmod_a2a3=True,
    capacity={"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 128 * KIB,
              "ub": 192 * KIB, "bt": 1 * KIB, "fb": 2 * KIB, "l0a_mx": 0, "l0b_mx": 0},
    dtypes=_COMMON_DTYPES,
    ops=target_ops("a2a3"),
    l0a_layout="ZZ",
    extract_sets_fmatrix=True,
    conv_load_block_gaps=True,
    mad_types=_MAD_COMMON,
    bt_unit=64,
    fb_unit=128,
    quant_modes=_QUANT_COMMON,
    tload_max_rows=4095,
    max_blocks=24,
    matmul_no_gemv="m16",
    tile_layouts={**_TILE_LAYOUTS_COMMON, "Vec": _VEC_LAYOUTS, "Mat": _MAT_LAYOUTS,
                  "Left": frozenset({("ZZ", 512)}), "ScaleLeft": frozenset(),
                  "ScaleRight": frozenset()},
    tload_pairs={"Vec": _SAME, "Mat": _SAME | {("ND", "NZ"), ("DN", "ZN")}},
    tload_mat_one_row_nd2nz=True,
    tload_mat_whole_blocks=True,
    tstore_mat=True,
    tinsert_vec_col_block=True,
    acc_dst_layouts={("move", "Mat"): _NZ_ONLY, ("insert", "Mat"): _NZ_ONLY,
                     ("extract", "Mat"): _NZ_ONLY},
    semaphores_paired=True,
    tile_vector_dtypes=_A2A3_VECTOR_DTYPES,
    tcmp_whole_repeats=True,
    texpands_flat_fill=True,
    tile_b8_pair_ops=frozenset({"tand", "tor", "tnot", "trowexpand"}),
    tcvt_pairs=TCVT_PAIRS_A2A3,
    tpartarg_src0_ge=True,
    adddeqrelu_in_place=True,
    vector_quant_gm=_VQ_A2A3,
    vector_quant_chip=_VQ_A2A3,
    scalar_quant_gm=_SQ_A2A3,
    scalar_quant_chip=_SQ_A2A3,
    tpow_ln_exp=True,
    vec_block_copies=True,
    ttrans_conv_forms=_CONV_FORMS_A5 | {"NC1HWC0->NCHW", "GNC1HWC0->GNCHW",
                                        "NCDHW->FRACTAL_Z_3D"},
    npu_missing_tile_ops=_CPU_SIM_ONLY,
    absent_tile_ops=frozenset({"thistogram", "tinterleave", "tdeinterleave", "trandom"}),
    cost=CostModel({"MTE2": 64.0, "MTE1": 256.0, "M": 256.0, "FIX": 128.0, "MTE3": 64.0,
                    "V": 256.0}, _PEAK),
)

A5 = Target(
    tsync_barrier_pipes=("MTE2", "MTE3", "ALL"),
    syncall_missing=frozenset({("hard", "mix"), ("soft", "aic_only")}),
    drops_v_barrier=True,
    ptoas_rowexpand_no_tmp=True,
    ptoas_local_slot_num=False,
    name="a5",
    gm_index_simt=True,
    gm_index_dtypes=frozenset({"i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32",
                               "ui32", "f16", "bf16", "f32", "hif8", "f8E4M3FN", "f8E5M2"}),
    mgather_pipe="V",
    mscatter_pipe="V",
    scatter_atomic_dtypes={"add": frozenset({"i32", "si32", "ui32", "f32", "f16", "bf16"}),
                           "max": frozenset({"i32", "si32", "ui32", "f32"}),
                           "min": frozenset({"i32", "si32", "ui32", "f32"})},
    tgather_cmp=True,
    ttrans_conv_forms=_CONV_FORMS_A5,
    ttrans_conv_index16=True,
    ttri_unclamped=True,
    vcpadd_flat_tiles=True,
    prefetch_packed_rows=True,
    vector_quant_gm=_VQ_A5_GM,
    vector_quant_chip=_VQ_A5_CHIP,
    scalar_quant_gm=_SQ_A5_GM,
    scalar_quant_chip=_SQ_A5_CHIP,
    addreluconv_composed=True,
    tpow_high_precision_types=frozenset({"f16", "f32", "bf16"}),
    div_high_precision=True,
    ttrans_row_blocks=True,
    npu_missing_tile_ops=_CPU_SIM_ONLY,
    capacity={"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 256 * KIB,
              "ub": 256 * KIB, "bt": 4 * KIB, "fb": 4 * KIB, "l0a_mx": 4 * KIB,
              "l0b_mx": 4 * KIB},
    dtypes=_COMMON_DTYPES | _A5_ONLY_DTYPES,
    ops=target_ops("a5"),
    l0a_layout="NZ",
    img2col_dtypes=frozenset({"i8", "ui8", "i16", "ui16", "i32", "ui32", "f16", "bf16", "f32"}),
    img2col_b_pair=True,
    conv_load_pairs=frozenset({("NC1HWC0", "NC1HWC0"), ("FRACTAL_Z", "FRACTAL_Z"),
                               ("NHWC", "NC1HWC0"), ("NCHW", "NC1HWC0"), ("NCHW", "FRACTAL_Z"),
                               ("NCDHW", "FRACTAL_Z_3D"), ("NCDHW", "NDC1HWC0")}),
    conv_load_dtypes=frozenset({"i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32",
                                "ui32", "f16", "bf16", "f32", "f8E4M3FN", "f8E5M2"}),
    acc_conv_stores=frozenset({"NHWC", "NCHW", "NCDHW"}),
    mad_types=_MAD_COMMON | _MAD_A5,
    quant_modes=_QUANT_COMMON | _QUANT_A5,
    fixpipe_layouts=frozenset({"nz2nd", "nz2dn", "nz2nz"}),
    tload_b64_pads=frozenset({"Null", "Zero"}),
    fillpad_from_valid_col=True,
    fillpad_rows_unsigned=True,
    tmov_vec_exact=True,
    tmov_dn_as_nd=True,
    max_blocks=36,
    tile_layouts={**_TILE_LAYOUTS_COMMON,
                  "Vec": _VEC_LAYOUTS | {("ZN", 512), ("NZ", 1024), ("ZZ", 32)},
                  "Mat": _MAT_LAYOUTS | {("NZ", 1024), ("ZZ", 32), ("NN", 32)},
                  "Left": frozenset({("NZ", 512)}), "ScaleLeft": frozenset({("ZZ", 32)}),
                  "ScaleRight": frozenset({("NN", 32)})},
    tload_pairs={"Vec": _SAME, "Mat": _SAME | {("ND", "NZ"), ("DN", "ZN"), ("DN", "NZ")}},
    tload_mat_null_pad_zero=True,
    tload_view_over_valid=True,
    tmov_vec_layouts=frozenset({("ND", "NZ"), ("ND", "ZN"), ("ND", "ZZ")}),
    acc_to_vec=True,
    acc_dst_layouts={("move", "Mat"): _ACC_ANY, ("move", "Vec"): _ACC_ANY,
                     ("insert", "Mat"): _NZ_ONLY, ("insert", "Vec"): _ACC_ANY,
                     ("extract", "Mat"): _NZ_ONLY, ("extract", "Vec"): ("ND",)},
    bt_bf16=True,
    tcvt_pairs=TCVT_PAIRS_A5,
    cost=CostModel({"MTE2": 96.0, "MTE1": 384.0, "M": 384.0, "FIX": 192.0, "MTE3": 96.0,
                    "V": 384.0}, _PEAK),
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
