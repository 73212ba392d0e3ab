"""TSYNC's and SYNCALL's Python faces; TSYNC: the barrier form ``TSYNC<Op>()``.

Both targets' TSync.hpp issue ``pipe_barrier`` on the pipe pto-isa's op table gives the op
(event.hpp ``OpPipeEntry``); a5 allows only a MTE2 / MTE3 / ALL barrier there, a2a3 every
pipe. The Python face runs ops in program order, so the barrier is checked and changes
nothing; in ``.pto`` the event form (pto.record_event / pto.wait_event) and barrier_sync
order pipes for the hazard checker (frontend/event_ops.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import DtypeError, PtoTypeError, PtoValueError, TargetError

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


_KINDS = ("aiv_only", "aic_only", "mix")


def syncall(m: TileOps, core_type: str = "aiv_only", *, mode: str = "hard",
            gm_workspace: object = None, used_cores: int = 0) -> None:
    """``SYNCALL<CoreType>()`` / the soft ``SYNCALL<Soft, CoreType>(gmWorkspace,
    usedCores)``, as one core issues it: the Python face is one program, so there is no
    one to wait for; a soft SYNCALL makes its arrival (gm_workspace[0] += 1, an i32
    counter). The rendezvous of many cores is a `.pto` launch's (``pto.syncall``)."""
    op = "SYNCALL"
    if not isinstance(core_type, str) or core_type not in _KINDS:
        raise PtoValueError(f"core_type must be one of {', '.join(_KINDS)}, got "
                            f"{core_type!r}", op=op, operand="core_type")
    if not isinstance(mode, str) or mode not in ("hard", "soft"):
        raise PtoValueError(f"mode must be 'hard' or 'soft', got {mode!r}", op=op,
                            operand="mode")
    if (mode, core_type) in m.target.syncall_missing:
        raise TargetError(f"{mode} SYNCALL of core type {core_type} does not exist on "
                          f"{m.target.name}", op=op, operand="mode")
    if isinstance(used_cores, bool) or not isinstance(used_cores, int) or used_cores < 0:
        raise PtoValueError(f"used_cores must be a non-negative int, got {used_cores!r}",
                            op=op, operand="used_cores")
    if mode == "hard":
        if gm_workspace is not None or used_cores:
            raise PtoValueError("a hard SYNCALL takes no gm_workspace or used_cores", op=op,
                                operand="gm_workspace")
        return
    from .tensor import GlobalTensor
    if not isinstance(gm_workspace, GlobalTensor):
        raise PtoTypeError(f"a soft SYNCALL needs gm_workspace, a GlobalTensor, got "
                           f"{type(gm_workspace).__name__}", op=op, operand="gm_workspace")
    ptr = gm_workspace.ptr
    if ptr.dtype.name not in ("i32", "si32"):
        raise DtypeError(f"gm_workspace must hold i32, got {ptr.dtype.name}", op=op,
                         operand="gm_workspace")
    before = int(m.read(ptr, 1)[0])
    m.write(ptr, np.array([before + 1], np.int32))
