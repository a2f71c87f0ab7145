"""Issue #38: the tables of docs/architecture.md that the sources can give are generated from them,
and a committed table that differs fails here (run the script with --write)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_the_endpoint_table_is_the_one_the_sources_give():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "routes-table"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_check_notices_a_stale_table(tmp_path):
    """The check compares what it should: a copy of the document with one row of any of its three
    tables changed fails it."""
    copy = tmp_path / "architecture.md"
    original = (ROOT / "docs" / "architecture.md").read_text()
    for row, changed in [("| `GET /health` | MetaController.swift |", "| `GET /health` | Elsewhere.swift |"),
                         ("| `key_vaults` | `SQLAuthStore+KeyVaults.swift` |", "| `key_vaults` | `SQLAuthStore+Users.swift` |"),
                         ("| Server/Package.swift | `LatchkeyWebAuthn` | `LatchkeyAPI` |",
                          "| Server/Package.swift | `LatchkeyWebAuthn` | `LatchkeyAPI`, `LatchkeyCore` |")]:
        assert row in original, row
        copy.write_text(original.replace(row, changed, 1))
        result = subprocess.run([sys.executable, str(ROOT / "scripts" / "routes-table"), "--check", "--doc", str(copy)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode != 0 and "--write" in result.stderr, row
    copy.write_text(original)
    unchanged = subprocess.run([sys.executable, str(ROOT / "scripts" / "routes-table"), "--check", "--doc", str(copy)],
                               capture_output=True, text=True, timeout=60)
    assert unchanged.returncode == 0, unchanged.stderr
