"""TPREFETCH_ASYNC: an SDMA cache-maintenance prefetch of a flat GM range into L2, as both
targets' TPrefetchAsync.hpp issue it (comm/async/sdma/TPrefetchAsyncImpl.hpp).

ptosim models no L2 cache, so no byte of GM or of a tile changes. What the vector core does
to issue it is modelled: the context's 256-byte UB scratch tile sits at UB address 0
(``TASSIGN(scratchTile, 0x0)``), and building the SDMA session, posting the SQEs and waiting
on the event move the queue's metadata (host-prepared in the workspace) through it with
``copy_gm_to_ubuf`` / scalar stores between PIPE_ALL barriers. Those bytes are the
workspace's, which ptosim does not model: the scratch is left holding the Machine's fill
byte (0, or ``poison``), so a kernel that kept data there sees it lost, and
``ptosim run --initcheck`` names outputs that depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import dtype as _dtype
from ..errors import DtypeError, PtoTypeError, SpaceError, VerifyError
from ..machine import Ptr
from .tensor import GlobalTensor

if TYPE_CHECKING:
    from .ops import TileOps

SCRATCH_BYTES = 256          # comm::sdma::UB_ALIGN_SIZE: the context's scratch tile
SCRATCH_ADDR = 0             # TASSIGN(ctx.scratchTile, 0x0)


@dataclass
class AsyncSession:
    """``comm::AsyncSession``: valid once the first TPREFETCH_ASYNC built it."""

    valid: bool = False


@dataclass
class PrefetchAsyncContext:
    """``pto::PrefetchAsyncContext(workspace)``: the SDMA workspace (a GM pointer to 8-bit
    data) and the session the first TPREFETCH_ASYNC builds. ``subblock`` / ``block``: the
    vector core whose UB holds the scratch tile (a `.pto` run sets them to the issuing
    core's)."""

    workspace: Ptr
    subblock: int = 0
    block: int = 0
    session: AsyncSession = field(default_factory=AsyncSession)

    def __post_init__(self) -> None:
        op = "PrefetchAsyncContext"
        if not isinstance(self.workspace, Ptr):
            raise PtoTypeError(f"workspace must be a GM pointer, got "
                               f"{type(self.workspace).__name__}", op=op, operand="workspace")
        if self.workspace.space != "gm":
            raise SpaceError(f"workspace must be in GM, got {self.workspace.space}", op=op,
                             operand="workspace")
        if self.workspace.dtype.size != 1 or self.workspace.dtype.kind not in ("int", "uint"):
            raise DtypeError(f"workspace element type must be an 8-bit integer, got "
                             f"{self.workspace.dtype.name}", op=op, operand="workspace")


@dataclass
class AsyncEvent:
    """``comm::AsyncEvent`` of an SDMA post. ``Wait(session)`` polls the post's completion
    through the scratch tile (pto-isa's empty event, handle 0, is never made: every GM view
    has elements)."""

    handle: int
    machine: TileOps | None = None
    context: PrefetchAsyncContext | None = None

    def Wait(self, session: AsyncSession) -> bool:
        if not isinstance(session, AsyncSession):
            raise PtoTypeError(f"session must be an AsyncSession, got "
                               f"{type(session).__name__}", op="AsyncEvent.Wait",
                               operand="session")
        if self.handle and self.machine is not None and self.context is not None:
            clobber_scratch(self.machine, self.context)
        return True


def clobber_scratch(m: TileOps, ctx: PrefetchAsyncContext) -> None:
    """The scratch tile's bytes after the SDMA bookkeeping: the Machine's fill byte."""
    ub = Ptr("ub", _dtype("ui8"), SCRATCH_ADDR, ctx.subblock, ctx.block)
    m.write(ub, np.full(SCRATCH_BYTES, m._fill, np.uint8))


def flat_1d(g: GlobalTensor) -> bool:
    """TPrefetchAsyncIsFlatContiguous1D: one packed row (Shape[0..3] = 1, Stride[4] = 1)."""
    s0, s1, s2, s3, s4 = g.shape
    t0, t1, t2, t3, t4 = g.stride
    packed = t4 == 1 and t3 == s4 and t2 == s3 * t3 and t1 == s2 * t2 and t0 == s1 * t1
    return packed and (s0, s1, s2, s3) == (1, 1, 1, 1)


_events = iter(range(1, 1 << 62))


def tprefetch_async(m: TileOps, src: GlobalTensor, ctx: PrefetchAsyncContext) -> AsyncEvent:
    """``TPREFETCH_ASYNC(src, ctx)``: see the module docstring. Returns the event to
    ``Wait(ctx.session)`` on."""
    op = "TPREFETCH_ASYNC"
    if not isinstance(src, GlobalTensor):
        raise PtoTypeError(f"src must be a GlobalTensor, got {type(src).__name__}", op=op,
                           operand="src")
    if not isinstance(ctx, PrefetchAsyncContext):
        raise PtoTypeError(f"ctx must be a PrefetchAsyncContext, got {type(ctx).__name__}",
                           op=op, operand="ctx")
    if not flat_1d(src):
        # pto-isa's code posts nothing then (an empty event); PTOAS refuses such a view
        raise VerifyError(f"src must be a flat contiguous 1-D GM view (shape "
                          f"[1, 1, 1, 1, n], unit stride), got shape {src.shape} stride "
                          f"{src.stride}", op=op, operand="src")
    clobber_scratch(m, ctx)        # the session's build (first call) and the SQE post
    ctx.session.valid = True
    return AsyncEvent(next(_events), m, ctx)
