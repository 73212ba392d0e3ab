"""TSYNC's Python face: the barrier form ``TSYNC<Op>()``.

Both targets' TSync.hpp issue ``pipe_barrier`` on the pipe pto-isa's op table gives the op
(event.hpp ``OpPipeEntry``); a5 allows only a MTE2 / MTE3 / ALL barrier there, a2a3 every
pipe. The Python face runs ops in program order, so the barrier is checked and changes
nothing; in ``.pto`` the event form (pto.record_event / pto.wait_event) and barrier_sync
order pipes for the hazard checker (frontend/event_ops.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import PtoTypeError, PtoValueError, TargetError

if TYPE_CHECKING:
    from .ops import TileOps

# pto-isa event.hpp: each Op's pipe
_OPS_BY_PIPE: dict[str, str] = {
    "MTE2": "TLOAD TEXPANDS_MAT TPREFETCH TFILLPAD_MAT MGATHER_MAT",
    "MTE3": "TSTORE_VEC TSTORE_MAT",
    "S": "SCALAR TRESHAPE TCI SETFMATRIX SET_IMG2COL_RPT SET_IMG2COL_PADDING",
    "V": "VECTOR TADD TADDS TAXPY TSUB TMUL TMULS TDIV TDIVS TMIN TMINS TMAX TAND TOR TSEL "
         "TSHL TSHR TEXP TSELS TSQRT TRSQRT TEXPANDS TPARTADD TPARTMUL TPARTMAX TPARTMIN TPOW "
         "TPOWS TCMPS TMRGSORT TSORT32 TGATHER TGATHERB TCVT TROWSUM TROWPROD TROWMAX TROWMIN "
         "TROWEXPAND TRANDOM TCOLSUM TCOLPROD TCOLMAX TCOLMIN TTRANS TTRI TREM TFMOD TREMS "
         "TFMODS TSUBS TMAXS TLRELU TPRELU TMOV_V2V TANDS TORS TSHLS TSHRS TXOR TXORS TCONCAT "
         "TDEQUANT TADDDEQRELU TABS TNEG TRELU TNOT TLOG TRECIP TCMP TSCATTER TCOLEXPAND "
         "TCOLEXPANDDIV TCOLEXPANDMUL TCOLEXPANDADD TCOLEXPANDMAX TCOLEXPANDMIN TCOLEXPANDSUB "
         "TCOLEXPANDEXPDIF TROWEXPANDDIV TROWEXPANDMUL TROWEXPANDSUB TROWEXPANDADD "
         "TROWEXPANDMAX TROWEXPANDMIN TROWEXPANDEXPDIF TPAIRREDUCESUM TSUBRELUCONV "
         "TADDRELUCONV TFUSEDMULADD TMULADDDST TSUBRELU TFUSEDMULADDRELU TPARTARGMAX "
         "TPARTARGMIN TCOLARGMAX TCOLARGMIN TROWARGMAX TROWARGMIN TFILLPAD_VEC MGATHER_VEC "
         "MSCATTER TQUANT THISTOGRAM TINTERLEAVE TDEINTERLEAVE",
    "FIX": "TMOV_V2M TEXTRACT_V2M TMOV_M2S TMOV_A2V TMOV_A2M TSTORE_ACC TEXTRACT_A2M "
           "TINSERT_A2M",
    "MTE1": "TMOV_M2B TMOV_M2L TMOV_M2R TEXTRACT_M2LR TIMG2COL",
    "M": "TMATMUL TGEMV",
}
OP_PIPE: dict[str, str] = {op: pipe for pipe, ops in _OPS_BY_PIPE.items()
                           for op in ops.split()}


def tsync(m: TileOps, op: str | None = None) -> None:
    """``TSYNC<Op>()`` with ``op`` (an ``Op`` name of pto-isa's event.hpp, e.g. "TLOAD"):
    a barrier on that op's pipe. ``TSYNC()`` with no events is a no-op."""
    if op is None:
        return
    if not isinstance(op, str):
        raise PtoTypeError(f"op must be an Op name, got {type(op).__name__}", op="TSYNC",
                           operand="op")
    pipe = OP_PIPE.get(op)
    if pipe is None:
        raise PtoValueError(f"op {op!r} is no Op of pto-isa's event table (e.g. TLOAD, "
                            f"TSTORE_VEC, TADD)", op="TSYNC", operand="op")
    allowed = m.target.tsync_barrier_pipes
    if pipe not in allowed:
        raise TargetError(f"TSYNC<{op}> on {m.target.name} barriers only "
                          f"{' / '.join(f'PIPE_{p}' for p in allowed)}; {op} runs on "
                          f"PIPE_{pipe}", op="TSYNC", operand="op")
