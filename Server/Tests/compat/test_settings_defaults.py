"""Issue #38: each setting is declared once, typed (`Setting.Of<Value>` in Settings*.swift: key,
variables, default, GoTrue's default, range), and the loader reads it through its declaration
(`reader[\\.otpLength]`), so no default, range or name is typed again in the loader. What the compiler
cannot hold, this holds: no setting read by a string key, no default written again beside a read,
no range checked again, and every declaration listed in the catalogue."""
import pathlib
import re
import sys

FOLDER = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "LatchkeyServer" / "Configuration"


def catalogue_text():
    return "\n".join(p.read_text() for p in sorted(FOLDER.glob("Settings*.swift")))


def loader_text():
    return "\n".join(p.read_text() for p in sorted(FOLDER.glob("*.swift")) if not p.name.startswith("Setting"))


def problems(loader):
    found = []
    found += [f"read by a string key: {m}" for m in re.findall(r'reader\.\w+\((?:orDefault: )?"[a-z0-9-]+"', loader)]
    # A default written again: a typed read followed by `?? <literal>`.
    found += [f"default written again: {m}" for m in re.findall(
        r'reader(?:\.ifSet\(|\.explicit\(|\[)\\\.\w+[)\]](?:\?\.\w+\(\))? \?\? (-?\d+|true|false|"[^"\\]+"|\[")', loader)]
    # A range checked again: `(a...b).contains(` on a value just read (the declaration's `in:` holds it).
    found += [f"range checked again: {m}" for m in re.findall(r'(?:guard|if let \w+,) !?\((\d+\.\.\.\d+)\)\.contains', loader)]
    return found


def test_the_loader_reads_each_setting_through_its_declaration():
    assert not problems(loader_text())


def test_every_declaration_is_in_the_catalogue():
    text = catalogue_text()
    declared = re.findall(r"static let (\w+) = (?:flag|count|seconds|text|list|limit)\(", text)
    listed = set()
    for body in re.findall(r"static let \w+: \[any SettingDeclaration\] =\s*((?:\w+ \+ )*\[[^\]]*)\]", text):
        listed.update(re.findall(r"\w+", body))
    assert len(declared) > 200
    assert sorted(set(declared) - listed) == [], "declared but not listed, so neither documented nor checked"


def test_the_check_finds_what_it_forbids(monkeypatch):
    """Not vacuous: each forbidden form put back is found."""
    for line, kind in [
        ('let port = try reader.int("port")', "string key"),
        ('let port = try reader.ifSet(\\.port) ?? 9999', "written again"),
        ('let name = reader[\\.appName] ?? "Latchkey"', "written again"),
        ('guard (1...500).contains(poolSize) else { throw x }', "range checked again"),
        ('if let port, !(1...65535).contains(port) { throw x }', "range checked again"),
    ]:
        found = problems(loader_text() + "\n" + line + "\n")
        assert any(kind in problem for problem in found), (line, found)
