"""The ptosim command line: demo, usage and version."""

import subprocess
import sys

import ptosim
from ptosim.cli import main


def test_demo_passes_and_reports_each_op(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for op in ("mte_gm_l1_frac", "mte_gm_ub", "mte_ub_l1", "mte_l1_ub", "mte_ub_gm",
               "mte_l1_l0a/l0b + mad + mte_l0c_gm", "mte_l0c_ub split_m"):
        assert f"ok  {op}" in out
    assert "A[0,16] -> 1536" in out          # column block 1 starts after 48 rows x 32 B
    assert out.rstrip().endswith("PASS")


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "usage: ptosim" in capsys.readouterr().err


def test_module_entry_point_and_version():
    done = subprocess.run([sys.executable, "-m", "ptosim", "--version"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0
    assert done.stdout.strip() == f"ptosim {ptosim.__version__}"
