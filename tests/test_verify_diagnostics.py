"""`ptosim check --verify-diagnostics`: expected-diagnostic comments, as MLIR reads them."""

import pytest

from ptosim.cli import main
from ptosim.interp.expected import Expectation, Seen, expectations, verify

HEAD = """module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<vector>} {
  func.func @k(%x: !pto.ptr<ui8, gm>) attributes {pto.aicore} {
    %c0 = arith.constant 0 : i64
    %c4 = arith.constant 4 : i64
    %c32 = arith.constant 32 : i64
    %c64 = arith.constant 64 : i64
    %big = arith.constant 70000 : i64
    %ub = pto.castptr %c0 : i64 -> !pto.ptr<ui8, ub>
"""
TAIL = """    return
  }
}
"""
TYPES = ": !pto.ptr<ui8, gm>, !pto.ptr<ui8, ub>, i64, i64, i64, i64, i64"
OVERLAP = f"    pto.mte_gm_ub %x, %ub, %c0, %c64 nburst(%c4, %c64, %c32) {TYPES}"
TOO_LONG = f"    pto.mte_gm_ub %x, %ub, %c0, %big nburst(%c4, %c64, %c32) {TYPES}"


def check(tmp_path, body: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / "k.pto"
    path.write_text(HEAD + body + TAIL)
    code = main(["check", str(path), "--verify-diagnostics"])
    out = capsys.readouterr()
    return code, out.out, out.err.replace(str(path), "k.pto")


def test_every_diagnostic_announced(tmp_path, capsys):
    body = ("    // expected-warning @+1 {{destination bursts may overlap}}\n" + OVERLAP + "\n" +
            TOO_LONG + "  // expected-error {{len_burst = 70000 is out of range}}\n")
    code, out, err = check(tmp_path, body, capsys)
    assert (code, err) == (0, "")
    assert out.endswith("all 2 expected diagnostic(s) seen, nothing else\n")


def test_offsets_below_and_above(tmp_path, capsys):
    body = (OVERLAP + "\n    // expected-warning @-1 {{bursts may overlap}}\n")
    assert check(tmp_path, body, capsys)[0] == 0


def test_a_wrong_text_is_both_unexpected_and_missing(tmp_path, capsys):
    body = TOO_LONG + "  // expected-error {{len_burst = 7 is out of range}}\n"
    code, _, err = check(tmp_path, body, capsys)
    assert code == 1
    assert err.splitlines() == [
        "k.pto:9: error: unexpected error: k.pto:9:5: error: mte_gm_ub: len_burst = 70000 is "
        "out of range [1, 65535] (16-bit field)",
        "k.pto:9: error: expected error on line 9 was not produced: "
        "{{len_burst = 7 is out of range}}",
        "k.pto: 2 diagnostic(s) did not match"]


def test_an_unannounced_warning_fails(tmp_path, capsys):
    code, _, err = check(tmp_path, OVERLAP + "\n", capsys)
    assert code == 1 and "k.pto:9: error: unexpected warning: k.pto:9:5: warning: " \
                         "mte_gm_ub: destination bursts may overlap" in err


def test_a_syntax_error_can_be_expected(tmp_path, capsys):
    body = ("    // expected-error @+1 {{expected ',' before nburst dst_stride}}\n"
            f"    pto.mte_gm_ub %x, %ub, %c0, %c64 nburst(%c4, %c64) {TYPES}\n")
    assert check(tmp_path, body, capsys)[0] == 0


@pytest.mark.parametrize("line, want", [
    ("x // expected-error {{a b}}", [("error", 3, "a b")]),
    ("// expected-note @+2 {{n}} // expected-warning@-1{{w}}",
     [("note", 5, "n"), ("warning", 2, "w")]),
    ("// expected-error {a}", []),
])
def test_comment_syntax(line, want):
    got = expectations("\n\n" + line)
    assert [(e.severity, e.line, e.text) for e in got] == want


def test_each_expectation_is_met_once():
    exp = [Expectation("error", 1, "x", 1)]
    seen = [Seen("error", 1, "x x", "a"), Seen("error", 1, "x", "b")]
    assert verify(exp, seen, "f") == ["f:1: error: unexpected error: b"]
