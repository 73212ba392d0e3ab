"""MX micro-ops: `mte_l1_l0a_mx` / `mte_l1_l0b_mx` stage e8m0 scales into ScaleLeft /
ScaleRight (at the data address >> 4), `mad_mx*` multiply fp8 operands with them. The data
here varies along every axis (unlike the public goldens, whose B is constant), so a wrong
operand, scale or group layout changes the result."""

import ml_dtypes
import numpy as np
import pytest

import ptosim

F8 = "f8E4M3FN"
rng = np.random.default_rng(7)


def fp8(shape: tuple[int, int]) -> np.ndarray:
    return rng.choice(np.array([-2, -1, -0.5, 0.25, 0.5, 1, 1.5, 3], np.float32),
                      size=shape).astype(ml_dtypes.float8_e4m3fn)


def e8m0(shape: tuple[int, int]) -> np.ndarray:
    return rng.integers(120, 135, size=shape).astype(np.uint8)


def pad(x: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros((rows, cols), x.dtype)
    out[:x.shape[0], :x.shape[1]] = x
    return out


def staged(m_: int, n: int, k: int, a: np.ndarray, b: np.ndarray, sa: np.ndarray,
           sb: np.ndarray, machine: ptosim.Machine) -> None:
    """Write the operands in their L0 images and the scales in L1 with numpy reshapes, then
    move the scales with the micro-ops (data at L0A 1024 / L0B 2048: scales at 64 / 128)."""
    a16, n16, g = -(-m_ // 16) * 16, -(-n // 16) * 16, k // 32
    nz_a = pad(a, a16, k).reshape(a16, k // 32, 32).transpose(1, 0, 2)       # [K1][M][32]
    zn_b = pad(b, k, n16).reshape(k // 32, 32, n16).transpose(0, 2, 1)       # [K1][N][32]
    zz_sa = pad(sa, a16, g).reshape(a16 // 16, 16, g // 2, 2).transpose(0, 2, 1, 3)
    nn_sb = pad(sb, g, n16).reshape(g // 2, 2, n16 // 16, 16).transpose(2, 0, 3, 1)
    machine.write(machine.ptr("l0a", "ui8", 1024), nz_a.view(np.uint8).ravel())
    machine.write(machine.ptr("l0b", "ui8", 2048), zn_b.view(np.uint8).ravel())
    machine.write(machine.ptr("l1", "ui8", 0), zz_sa.ravel())
    machine.write(machine.ptr("l1", "ui8", 4096), nn_sb.ravel())
    machine.mte_l1_l0a_mx(machine.ptr("l1", F8, 0), machine.ptr("l0a", F8, 1024), m_, k)
    machine.mte_l1_l0b_mx(machine.ptr("l1", F8, 4096), machine.ptr("l0b", F8, 2048), k, n)


def golden(a: np.ndarray, b: np.ndarray, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    out = np.zeros((a.shape[0], b.shape[1]), np.float64)
    for grp in range(a.shape[1] // 32):
        ks = slice(32 * grp, 32 * grp + 32)
        out += (a[:, ks].astype(np.float64) * 2.0 ** (sa[:, grp:grp + 1].astype(int) - 127)) \
            @ (b[ks].astype(np.float64) * 2.0 ** (sb[grp:grp + 1].astype(int) - 127))
    return out.astype(np.float32)


def acc(machine: ptosim.Machine, m_: int, n: int) -> np.ndarray:
    a16, n16 = -(-m_ // 16) * 16, -(-n // 16) * 16
    nz = machine.read(machine.ptr("l0c", "f32", 0), a16 * n16).reshape(n16 // 16, a16, 16)
    return nz.transpose(1, 0, 2).reshape(a16, n16)[:m_, :n]


@pytest.mark.parametrize("m_, n, k", [(20, 24, 128), (16, 16, 64), (33, 40, 192)])
def test_mad_mx_matches_group_by_group_loops(m_, n, k):
    a, b, sa, sb = fp8((m_, k)), fp8((k, n)), e8m0((m_, k // 32)), e8m0((k // 32, n))
    mc = ptosim.Machine(poison=0xCD)
    staged(m_, n, k, a, b, sa, sb, mc)
    lhs, rhs, dst = mc.ptr("l0a", F8, 1024), mc.ptr("l0b", F8, 2048), mc.ptr("l0c", "f32", 0)
    mc.mad_mx(lhs, rhs, dst, m_, n, k, disable_gemv=True)
    want = golden(a, b, sa, sb)
    np.testing.assert_allclose(acc(mc, m_, n), want, rtol=1e-6)
    mc.mad_mx_acc(lhs, rhs, dst, m_, n, k, disable_gemv=True)
    np.testing.assert_allclose(acc(mc, m_, n), 2 * want, rtol=1e-6)
    bias = np.arange(n, dtype=np.float32)
    mc.write(mc.ptr("bt", "f32", 0), bias)
    mc.mad_mx_bias(lhs, rhs, dst, mc.ptr("bt", "f32", 0), m_, n, k, disable_gemv=True)
    np.testing.assert_allclose(acc(mc, m_, n), want + bias, rtol=1e-6)


def test_scale_loads_write_what_tmov_writes_into_scale_tiles():
    """The micro scale load and the tile level's Mat ZZ-32 -> ScaleLeft TMOV agree."""
    sa = e8m0((32, 4))
    a, b = ptosim.Machine(), ptosim.Machine()
    zz = sa.reshape(2, 16, 2, 2).transpose(0, 2, 1, 3).ravel()
    for mc in (a, b):
        mc.write(mc.ptr("l1", "ui8", 0), zz)
    a.mte_l1_l0a_mx(a.ptr("l1", F8, 0), a.ptr("l0a", F8, 512), 32, 128)
    mat = b.tile("Mat", "f8E8M0FNU", 32, 4, blayout="RowMajor", slayout="RowMajor",
                 fractal=32, addr=0)
    left = b.tile("ScaleLeft", "f8E8M0FNU", 32, 4, addr=32)
    b.TMOV(left, mat)
    np.testing.assert_array_equal(a.read(a.ptr("l0a_mx", "ui8", 32), 128),
                                  b.read(b.ptr("l0a_mx", "ui8", 32), 128))


def test_mx_rules():
    mc = ptosim.Machine()
    l1, l0a, l0b = mc.ptr("l1", F8, 0), mc.ptr("l0a", F8, 0), mc.ptr("l0b", F8, 0)
    l0c = mc.ptr("l0c", "f32", 0)
    with pytest.raises(ptosim.VerifyError, match=r"^mte_l1_l0a_mx: k = 32 must be a multiple "
                       r"of 64"):
        mc.mte_l1_l0a_mx(l1, l0a, 16, 32)
    with pytest.raises(ptosim.DtypeError, match=r"^mte_l1_l0b_mx: scales are e8m0 bytes: src "
                       r"needs a 1-byte element type, got f16"):
        mc.mte_l1_l0b_mx(mc.ptr("l1", "f16", 0), l0b, 64, 16)
    with pytest.raises(ptosim.SpaceError, match=r"^mte_l1_l0a_mx: dst must point into l0a"):
        mc.mte_l1_l0a_mx(l1, l0b, 16, 64)
    with pytest.raises(ptosim.DtypeError, match=r"^mad_mx: MX operands are fp8 .* got f16 x "
                       r"f16 -> f32"):
        mc.mad_mx(mc.ptr("l0a", "f16", 0), mc.ptr("l0b", "f16", 0), l0c, 16, 16, 64)
    with pytest.raises(ptosim.NotImplementedOpError, match=r"^mad_mx: mad_mx with fp4"):
        mc.mad_mx(mc.ptr("l0a", "f4E2M1x2", 0), l0b, l0c, 16, 16, 64)
    with pytest.raises(ptosim.VerifyError, match=r"^mad_mx_acc: k = 96 must be a multiple of "
                       r"64"):
        mc.mad_mx_acc(l0a, l0b, l0c, 16, 16, 96)
    with pytest.raises(ptosim.VerifyError, match=r"^mad_mx: tf32_mode applies to f32 x f32"):
        mc.mad_mx(l0a, l0b, l0c, 16, 16, 64, tf32_mode="round_even")
    with pytest.raises(ptosim.DtypeError, match=r"^mad_mx_bias: the bias of an MX matmul is "
                       r"f32, got f16"):
        mc.mad_mx_bias(l0a, l0b, l0c, mc.ptr("bt", "f16", 0), 16, 16, 64)
    with pytest.raises(ptosim.OutOfBoundsError, match=r"^mte_l1_l0a_mx: dst touches l0a_mx"):
        mc.mte_l1_l0a_mx(l1, mc.ptr("l0a", F8, 65024), 512, 128)
    with pytest.raises(ptosim.VerifyError, match=r"^mad_mx: sat must be 'sat' or 'nosat', got "
                       r"'clamp'"):
        mc.mad_mx(l0a, l0b, l0c, 16, 16, 64, sat="clamp")
    with pytest.raises(ptosim.VerifyError, match=r"^mad_mx: unit_flag must be"):
        mc.mad_mx(l0a, l0b, l0c, 16, 16, 64, unit_flag="always")
    with pytest.raises(ptosim.FieldRangeError, match=r"^mad_mx: disable_gemv must be a boolean"):
        mc.mad_mx(l0a, l0b, l0c, 16, 16, 64, disable_gemv=1)
    a2 = ptosim.Machine(target="a2a3")
    with pytest.raises(ptosim.TargetError, match=r"^mad_mx: does not exist on target a2a3"):
        a2.mad_mx(a2.ptr("l0a", "f16", 0), a2.ptr("l0b", "f16", 0), a2.ptr("l0c", "f32", 0),
                  16, 16, 64)
