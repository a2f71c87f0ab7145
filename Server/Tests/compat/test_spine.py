"""Issue #38's bounds on the spine, counted by scripts/spine-check from the sources of both
packages: no type holds more than 8 dependencies, no protocol has more than 15 requirements
(counted through what it refines), no use case or service names the AuthStore union, and no
source file passes 400 lines but the one the script names, and Core imports no framework of the
edges (docs/architecture.md's "Frameworks stay at the edges")."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCRIPT = str(ROOT / "scripts" / "spine-check")


def check(root=None):
    arguments = [sys.executable, SCRIPT, "--check"] + (["--root", str(root)] if root else [])
    return subprocess.run(arguments, capture_output=True, text=True, timeout=120)


def test_the_sources_keep_the_bounds():
    result = check()
    assert result.returncode == 0, result.stderr


def write(root, name, text):
    path = root / "Server" / "Sources" / "LatchkeyCore" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_check_counts_what_it_should(tmp_path):
    """Nine collaborators fail, nine values do not; sixteen requirements through a parent fail,
    and a use case holding AuthStore fails; a typealias union is not a protocol."""
    (tmp_path / "Sources").mkdir()
    collaborators = "\n".join(f"    let part{i}: any Part{i}" for i in range(9))
    protocols = "\n".join(f"public protocol Part{i}: Sendable {{ func run() }}" for i in range(9))
    values = "\n".join(f"    let field{i}: [String: Int]?" for i in range(9))
    write(tmp_path, "Big.swift", f"{protocols}\nstruct Big {{\n{collaborators}\n}}\n")
    write(tmp_path, "Plain.swift", f"struct Plain {{\n{values}\n    var nested: Inner\n}}\nstruct Inner {{ let at: Date }}\n")
    requirements = "\n".join(f"    func step{i}() async throws" for i in range(8))
    write(tmp_path, "Wide.swift", f"protocol Parent {{\n{requirements}\n}}\nprotocol Child: Parent {{\n{requirements.replace('step', 'more')}\n}}\n")
    write(tmp_path, "Union.swift", "public typealias AuthStore = Part0 & Part1\n")
    write(tmp_path, "Holder.swift", "struct Holder {\n    let store: any AuthStore\n}\n")
    result = check(tmp_path)
    assert result.returncode == 1
    assert "Big holds 9 dependencies" in result.stderr
    assert "Plain holds" not in result.stderr
    assert "Child has 16 requirements" in result.stderr and "Parent has" not in result.stderr
    assert "names AuthStore: Server/Sources/LatchkeyCore/Holder.swift:2" in result.stderr
    assert "AuthStore has" not in result.stderr
    write(tmp_path, "Long.swift", "// a line\n" * 401)
    assert "Long.swift has 401 lines" in check(tmp_path).stderr
    write(tmp_path, "Long.swift", "// a line\n" * 400)
    write(tmp_path, "Edge.swift", "import Foundation\n@preconcurrency import NIOCore\n")
    assert "Core imports a framework: Server/Sources/LatchkeyCore/Edge.swift:2" in check(tmp_path).stderr
    (tmp_path / "Server" / "Sources" / "LatchkeyCore" / "Edge.swift").unlink()
    for name in ("Big.swift", "Wide.swift", "Holder.swift"):
        (tmp_path / "Server" / "Sources" / "LatchkeyCore" / name).unlink()
    assert check(tmp_path).returncode == 0
