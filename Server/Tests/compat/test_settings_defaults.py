"""Issue #38: each setting's default is written once, in the catalogue (`Settings*.swift`,
`Setting.defaultValue`, which docs/configuration.md is made from), and the loader reads it from
there (`reader.int(orDefault:)` and its kin) instead of typing it again as a literal."""
import pathlib
import re
import sys

FOLDER = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "LatchkeyServer" / "Configuration"


def catalogue():
    defaults = {}
    for path in FOLDER.glob("Settings*.swift"):
        for m in re.finditer(r'key: "([^"]+)",\s*environment: \[[^\]]*\],?\s*defaultValue:\s*"((?:[^"\\]|\\.)*)"',
                             path.read_text(), re.S):
            defaults[m.group(1)] = m.group(2)
    return defaults


def loader_text():
    return "\n".join(p.read_text() for p in FOLDER.glob("*.swift") if not p.name.startswith("Settings"))


def test_no_default_is_typed_again_in_the_loader():
    # (An empty string is no default but "unset", handed on: `jwt-issuer`'s, which Core resolves to
    # the external URL when it signs.)
    again = re.findall(r'reader\.\w+\("([a-z0-9-]+)"[^)\n]*\)(?:\?\.\w+\(\))? \?\? (-?\d+|true|false|"[^"\\]+"|\.init\(count:)',
                       loader_text())
    assert not again, f"defaults written again in the loader (read them with orDefault:): {again}"


FORMS = {
    "int": r"\d+",
    "bool": r"true|false",
    "seconds": r"\d+|(\d+(\.\d+)?(ns|us|ms|s|m|h))+",
    "string": r".+",
    "limit": r"\d+|off|\d+/(\d+(ns|us|ms|s|m|h))+",
}


def test_every_default_the_loader_reads_is_one_its_reader_reads():
    defaults = catalogue()
    reads = re.findall(r'reader\.(int|bool|seconds|string|limit)\(orDefault: "([a-z0-9-]+)"', loader_text())
    reads += [("seconds", key) for key in re.findall(r'reader\.positiveSeconds\("([a-z0-9-]+)"\)', loader_text())]
    assert len(reads) > 70
    for kind, key in reads:
        assert key in defaults, f"{key} is read with a default but is not in the catalogue"
        assert re.fullmatch(FORMS[kind], defaults[key]), f"{key}'s default {defaults[key]!r} is not a {kind}"


def test_the_check_finds_a_default_typed_again(monkeypatch):
    """The first check is not vacuous: a literal default put back is found."""
    text = loader_text() + '\nlet port = try reader.int("port") ?? 9999\n'
    monkeypatch.setattr(sys.modules[__name__], "loader_text", lambda: text)
    try:
        test_no_default_is_typed_again_in_the_loader()
    except AssertionError as error:
        assert "'port'" in str(error)
    else:
        raise AssertionError("a literal default went unnoticed")
