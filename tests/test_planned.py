"""Every op page of the manual is either implemented or named as not implemented: the
Python face raises NotImplementedOpError (not AttributeError) and the `.pto` spelling a
located not-implemented error (not "unknown op")."""

from __future__ import annotations

import pytest

import ptosim
from ptosim.errors import NotImplementedTextOpError, PtoSyntaxError
from ptosim.frontend.text import parse_module
from ptosim.isa.planned import MANUAL, PTOAS_ONLY, planned_tile_methods

# The op pages of pto-isa's docs/isa (upper-case page names) and docs/isa/tile (TPACK),
# spelled as the Python face names them.
MANUAL_PAGES = str.split("""
    MGATHER MSCATTER SETFMATRIX SET_IMG2COL_PADDING SET_IMG2COL_RPT SET_QUANT_SCALAR
    SET_QUANT_VECTOR SYNCALL TABS TADD TADDC TADDRELUCONV TADDS TADDSC TALLOC TAND TANDS
    TASSIGN TAXPY TADDDEQRELU TCI TCMP TCMPS TCOLARGMAX TCOLARGMIN TCOLEXPAND TCOLEXPANDADD
    TCOLEXPANDDIV TCOLEXPANDEXPDIF TCOLEXPANDMAX TCOLEXPANDMIN TCOLEXPANDMUL TCOLEXPANDSUB
    TCOLMAX TCOLMIN TCOLPROD TCOLSUM TCONCAT TCVT TDEINTERLEAVE TDEQUANT TDIV TDIVS TEXP
    TEXPANDS TEXTRACT TEXTRACT_FP TFILLPAD TFILLPAD_EXPAND TFILLPAD_INPLACE TFMOD TFMODS TFREE
    TFUSEDMULADD TFUSEDMULADDRELU TGATHER TGATHERB TGEMV TGEMV_ACC TGEMV_BIAS TGEMV_MX
    TGET_SCALE_ADDR THISTOGRAM TIMG2COL TINSERT TINSERT_FP TINTERLEAVE TLOAD TLOG TLRELU
    TMATMUL TMATMUL_ACC TMATMUL_BIAS TMATMUL_MX TMATMUL_MX_HIF4 TMAX TMAXS TMIN TMINS TMOV
    TMOV_FP TMRGSORT TMUL TMULADDDST TMULS TNEG TNOT TOR TORS TPACK TPARTADD TPARTARGMAX
    TPARTARGMIN TPARTMAX TPARTMIN TPARTMUL TPOP TPOW TPOWS TPREFETCH TPREFETCH_ASYNC TPRELU
    TPRINT TPUSH TPAIRREDUCESUM TQUANT TQUANT_DN TQUANT_HIF4 TRANDOM TRECIP TRELU TREM TREMS
    TRESHAPE TROWARGMAX TROWARGMIN TROWEXPAND TROWEXPANDADD TROWEXPANDDIV TROWEXPANDEXPDIF
    TROWEXPANDMAX TROWEXPANDMIN TROWEXPANDMUL TROWEXPANDSUB TROWMAX TROWMIN TROWPROD TROWSUM
    TRSQRT TSCATTER TSEL TSELS TSHL TSHLS TSHR TSHRS TSORT32 TSQRT TSTORE TSTORE_FP TSUB TSUBC
    TSUBRELU TSUBS TSUBSC TSUBVIEW TSYNC TTRANS TTRI TXOR TXORS
""")

# Pages that describe a form of another op's Python face.
FORMS = {"TFILLPAD_EXPAND": "TFILLPAD", "TFILLPAD_INPLACE": "TFILLPAD", "TQUANT_DN": "TQUANT",
         "TQUANT_HIF4": "TQUANT", "TMATMUL_MX_HIF4": "TMATMUL_MX"}


# Entries of ptosim.isa.planned whose ops have landed on a helper branch that may not edit
# that module (TGEMV_MX and the .pto MX forms: branch gemv); the lead drops them from
# planned.py at merge, and then this set.
LANDED = {"TGEMV_MX", "TMATMUL_MX"}
PLANNED = tuple(p for p in MANUAL if p.name not in LANDED)


def _planned_names() -> set[str]:
    return {p.name for p in MANUAL}


def _planned_methods() -> set[str]:
    return {p.method for p in PLANNED if p.method is not None}


def test_landed_entries_are_implemented() -> None:
    from ptosim.frontend.text import _context

    ctx = _context()
    for p in MANUAL:
        if p.name in LANDED:
            assert p.method is None or hasattr(ptosim.Machine("a5"), p.method)
            assert all(ctx.get_optional_op(n) is not None for n in p.mnemonics)


def test_every_manual_page_is_implemented_or_planned() -> None:
    methods = set(dir(ptosim.Machine))
    planned = _planned_names()
    unaccounted = [n for n in MANUAL_PAGES
                   if FORMS.get(n, n) not in methods and n not in planned]
    assert unaccounted == []


def test_planned_methods_are_not_implemented() -> None:
    methods = set(dir(ptosim.Machine))
    assert planned_tile_methods() & methods <= {p.method for p in MANUAL if p.name in LANDED}
    assert _planned_methods() & methods == set()


@pytest.mark.parametrize("name", sorted(_planned_methods()))
def test_planned_python_face_raises_not_implemented(name: str) -> None:
    m = ptosim.Machine("a5")
    with pytest.raises(ptosim.NotImplementedOpError, match=f"{name} is a PTO op that "
                       "ptosim does not implement yet"):
        getattr(m, name)


def test_typo_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="TPOWW"):
        ptosim.Machine("a5").TPOWW  # noqa: B018


def _kernel(op: str) -> str:
    return ("module {\n  func.func @k(%a: !pto.ptr<f32, gm>) attributes {pto.aicore} {\n"
            f"    {op} ins(%a : !pto.ptr<f32, gm>)\n    return\n  }}\n}}\n")


@pytest.mark.parametrize("mnemonic", sorted({n for p in PLANNED for n in p.mnemonics}))
def test_planned_manual_mnemonic_is_located_not_implemented(mnemonic: str) -> None:
    with pytest.raises(NotImplementedTextOpError) as info:
        parse_module(_kernel(mnemonic), "k.pto")
    err = info.value
    assert err.loc == "k.pto:3:5"
    assert f"'{mnemonic}' (" in str(err) and "does not implement yet" in str(err)
    assert isinstance(err, PtoSyntaxError) and isinstance(err, ptosim.NotImplementedOpError)


@pytest.mark.parametrize("mnemonic", ["pto.atomic_add", "pto.comm.tput", "pto.simt_launch"])
def test_ptoas_only_mnemonic_is_not_implemented(mnemonic: str) -> None:
    assert mnemonic in PTOAS_ONLY
    with pytest.raises(NotImplementedTextOpError,
                       match=f"'{mnemonic}' is a PTOAS op that ptosim does not implement"):
        parse_module(_kernel(mnemonic), "k.pto")


def test_unknown_mnemonic_stays_unknown() -> None:
    with pytest.raises(PtoSyntaxError, match=r"unknown op 'pto\.ttrii'") as info:
        parse_module(_kernel("pto.ttrii"), "k.pto")
    assert not isinstance(info.value, ptosim.NotImplementedOpError)


def test_planned_mnemonics_are_not_registered() -> None:
    """A name leaves the planned lists when its op lands (else the parser would never
    reach the not-implemented message, and the README would be wrong)."""
    from ptosim.frontend.text import _context

    ctx = _context()
    names = {n for p in PLANNED for n in p.mnemonics} | PTOAS_ONLY
    assert sorted(n for n in names if ctx.get_optional_op(n) is not None) == []
