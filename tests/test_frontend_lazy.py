"""The rarely named hand-written ops load with their module on first use (start-up)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

from ptosim.frontend.dialect import LAZY_MODULES


@pytest.mark.parametrize("module", sorted(LAZY_MODULES))
def test_lazy_names_are_the_modules_classes(module: str) -> None:
    mod = importlib.import_module(f"ptosim.frontend.{module}")
    names = {v.name for v in vars(mod).values()
             if isinstance(v, type) and v.__module__ == mod.__name__
             and isinstance(getattr(v, "name", None), str) and v.name.startswith("pto.")}
    assert names == set(LAZY_MODULES[module])


def test_a_kernel_loads_only_the_lazy_modules_it_names() -> None:
    script = textwrap.dedent('''
        import sys
        from ptosim.kernel import Kernel
        plain = """module attributes {pto.target_arch = "a5"} {
          func.func @k() attributes {pto.aicore, pto.kernel_kind = #pto.kernel_kind<vector>} {
            return
          }
        }"""
        Kernel.from_text(plain, "plain.pto")
        mods = [m for m in ("event_ops", "pipe_ops", "prefetch_async_ops", "syncall_ops")
                if f"ptosim.frontend.{m}" in sys.modules]
        print(mods)
        events = plain.replace("return", 'pto.barrier_sync [#pto.sync_op_type<TVEC>]\\n    return')
        Kernel.from_text(events, "events.pto")
        print([m for m in ("event_ops", "pipe_ops") if f"ptosim.frontend.{m}" in sys.modules])
    ''')
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "['event_ops']"
