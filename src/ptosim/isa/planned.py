"""PTO ops that ptosim knows by name but does not implement yet.

Two lists, both shown in the README's support table: ops of the pto-isa manual (their
Python face raises `NotImplementedOpError` instead of `AttributeError`, their ``.pto``
spelling a not-implemented diagnostic instead of "unknown op"), and ops that only PTOAS's
``pto`` dialect defines (SIMT, communication, pipes ...). A name leaves these lists when
its op lands; tests/test_planned.py keeps the lists and the implementation apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlannedOp:
    """One manual op: its page name, the Python method it will have (None when its Python
    face is another op's form), the ``.pto`` mnemonics PTOAS gives it, and its area."""

    name: str
    method: str | None
    mnemonics: tuple[str, ...]
    area: str


def _op(name: str, area: str, *mnemonics: str, method: bool = True) -> PlannedOp:
    return PlannedOp(name, name if method else None, mnemonics, area)


MANUAL: tuple[PlannedOp, ...] = (
    _op("TPACK", "vector tile"),
    _op("TGET_SCALE_ADDR", "cube tile", "pto.tget_scale_addr", method=False),
    # a5's local pipes run (Python face, .pto frontend and handle forms); TALLOC is GM only
    _op("TALLOC", "pipes and sync", "pto.talloc", "pto.talloc_to_aic", "pto.talloc_to_aiv"),
)

# Ops of PTOAS's ``pto`` dialect outside the manual's op pages (its SIMT layer, scalar
# memory and atomics, communication collectives, buffer reservation, register-level cube
# forms ...). Names only; none of them runs in ptosim.
PTOAS_ONLY: frozenset[str] = frozenset(f"pto.{n}" for n in str.split("""
    absf atomic_add atomic_and atomic_cas atomic_exch
    atomic_max atomic_min atomic_or atomic_sub atomic_xor bind_tile bitcast ceil
    comm.build_async_session comm.tbroadcast comm.test_async_event comm.tgather comm.tget
    comm.tget_async comm.tnotify comm.tput comm.tput_async comm.treduce comm.tscatter
    comm.ttest comm.twait convert copy_gm_to_cbuf_multi_dn2nz
    copy_gm_to_cbuf_multi_nd2nz copy_matrix_cc_to_cbuf copy_matrix_cc_to_gm
    copy_matrix_cc_to_ub declare_eventid_array declare_global declare_local_array
    declare_tile_memref eventid_array_get eventid_array_set floor fma
    initialize_l2g2l_pipe
    inttoptr keep ldg load load_cbuf_to_ca_s4 load_cbuf_to_cb_mx load_cbuf_to_cb_s4
    local_array_get local_array_set mad_bias_raw mad_mx_bias_raw mad_mx_raw mad_raw
    materialize_tile mul_i32toi64 mulhi pointer_cast prmt ptrtoint redux_add
    redux_max redux_min resume rint round set_atomic_s32 set_atomic_s8 set_ffts
    shuffle_bfly shuffle_down shuffle_idx shuffle_up simd.tile_to_memref simt_launch sqrt stg
    store store_vfsimt_info syncthreads threadfence
    threadfence_block trap uvld vdintlvv2 vintlvv2
    vote_all vote_any vote_ballot vote_uni vselrv2
    """))


def planned_tile_methods() -> frozenset[str]:
    """Python methods of manual ops that are not implemented yet."""
    return frozenset(p.method for p in MANUAL if p.method is not None)


def planned_mnemonic(name: str) -> str | None:
    """What to say of a ``.pto`` op name PTO defines and ptosim does not implement; None
    for a name nobody defines (a typo: "unknown op")."""
    for p in MANUAL:
        if name in p.mnemonics:
            return f"'{name}' ({p.name}) is a PTO op that ptosim does not implement yet"
    if name in PTOAS_ONLY:
        return f"'{name}' is a PTOAS op that ptosim does not implement yet"
    return None
