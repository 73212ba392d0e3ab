"""BLAS threads during a run: default 1, $PTOSIM_BLAS_THREADS, explicit counts, 0 = leave
BLAS alone; the limit is real inside the block and undone after it."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import ptosim
from ptosim import blas
from ptosim.cli import main
from ptosim.errors import PtoValueError
from test_cli_run import MATMUL, mm_args, mm_files  # noqa: F401  (fixture)


def blas_threads_now() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_resolve_default_env_and_explicit(monkeypatch):
    monkeypatch.delenv(blas.ENV, raising=False)
    assert blas.resolve(None) == blas.DEFAULT_BLAS_THREADS == 1
    monkeypatch.setenv(blas.ENV, " 3 ")
    assert blas.resolve(None) == 3
    assert blas.resolve(2) == 2                     # an explicit count beats the variable
    assert blas.resolve(0) == 0


@pytest.mark.parametrize("value, message", [
    (-1, r"BLAS threads must be a whole number >= 0 \(0: BLAS's own setting\), got -1$"),
    (1.5, r"got 1.5$"), (True, r"got True$")])
def test_resolve_refuses_bad_counts(value, message):
    with pytest.raises(PtoValueError, match=message):
        blas.resolve(value)


def test_resolve_refuses_a_bad_environment_value(monkeypatch):
    monkeypatch.setenv(blas.ENV, "many")
    with pytest.raises(PtoValueError, match=r"\$PTOSIM_BLAS_THREADS must be a whole number "
                                            r"of threads, got 'many'$"):
        blas.resolve(None)


def test_the_limit_is_real_and_undone():
    before = blas_threads_now()
    assert before, "numpy's wheels bring OpenBLAS; threadpoolctl must see it"
    with ptosim.blas_threads(1):
        assert blas_threads_now() == [1] * len(before)
    assert blas_threads_now() == before
    with ptosim.blas_threads(0):                    # 0: untouched
        assert blas_threads_now() == before


@pytest.fixture
def limits(monkeypatch):
    """Record the counts runs pass to threadpoolctl (still applying them)."""
    seen: list[int] = []
    real = blas.limit

    def record(n):
        seen.append(n)
        return real(n)
    monkeypatch.setattr(blas, "limit", record)
    monkeypatch.delenv(blas.ENV, raising=False)
    return seen


def test_cli_run_limits_blas(mm_files, limits, capsys):  # noqa: F811
    files, shape, golden = mm_files
    assert main(["run", str(MATMUL), *mm_args(files, shape)]) == 0
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--blas-threads", "2"]) == 0
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--blas-threads", "0"]) == 0
    assert limits == [1, 2]
    got = np.fromfile(files["c"], np.float32).reshape(shape[:2])
    np.testing.assert_array_equal(got, golden)
    capsys.readouterr()
    assert main(["run", str(MATMUL), *mm_args(files, shape), "--blas-threads", "-2"]) == 2
    assert "--blas-threads: must not be negative, got -2" in capsys.readouterr().err
