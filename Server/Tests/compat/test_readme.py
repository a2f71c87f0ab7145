"""The README's "Try it" section, run as a new user would run it (issue #35): every command of its
shell block through bash against a live server started with embedded defaults and no setting at
all. Three things are filled in as the reader fills them in: the port (a free one, not 9999), the
placeholders (`123456` and `<code>` from the dev mailbox, `<refresh_token>` and `<access_token>`
from the answers before), and `swift run --package-path Server latchkey`, which is the binary the
suite already built. Each answer is checked for what the README's comment above it promises."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CODE_RE
from test_cli import _inherited, _start_server, binary_path

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="the README's commands use curl: apt-get install curl")


def readme_commands() -> list[str]:
    """The commands of the first shell block under "## Try it", continuation lines joined."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Try it", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands, pending = [], ""
    for line in block.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            commands.append(pending.strip())
            pending = ""
    return commands


def test_the_readme_commands_work_verbatim(tmp_path):
    commands = readme_commands()
    assert len(commands) >= 10, commands
    # A fresh machine: no Latchkey or GoTrue setting in the environment.
    clean = _inherited(False)
    process, url, log = _start_server(tmp_path, inherit=False)
    port = url.rsplit(":", 1)[1]
    state: dict[str, str] = {}

    def newest_code() -> str:
        mailbox = subprocess.run([str(binary_path()), "mailbox", "--limit", "1", "--data-dir", str(tmp_path)],
                                 capture_output=True, text=True, timeout=30, env=clean)
        found = CODE_RE.search(mailbox.stdout)
        assert found, mailbox.stdout + mailbox.stderr
        return found.group(1)

    try:
        for command in commands:
            line = command.replace("localhost:9999", f"localhost:{port}")
            if line.startswith("swift run --package-path Server latchkey "):
                line = f"'{binary_path()}' " + line.removeprefix("swift run --package-path Server latchkey ")
                line += f" --data-dir '{tmp_path}'"
            if '"token":"123456"' in line or '"token":"<code>"' in line:
                state["code"] = newest_code()
                line = line.replace('"token":"123456"', f'"token":"{state["code"]}"').replace("<code>", state["code"])
            for name in ("refresh_token", "access_token"):
                line = line.replace(f"<{name}>", state.get(name, f"<{name}>"))
            assert "<" not in line.replace("'", ""), f"a placeholder is left in: {line}"
            run = subprocess.run(["bash", "-c", line + " -w '\\n%{http_code}'" if line.startswith("curl") else line],
                                 capture_output=True, text=True, timeout=60, cwd=ROOT, env=clean)
            assert run.returncode == 0, (command, run.stdout, run.stderr)
            if not line.startswith("curl"):
                assert "ada@example.com" in run.stdout, (command, run.stdout)
                continue
            body, status = run.stdout.rsplit("\n", 1)
            assert status in ("200", "204"), (command, status, body)
            answer = json.loads(body) if body.strip() else {}
            print(f"{status} {command[:90]}")
            if "access_token" in answer:
                state["access_token"], state["refresh_token"] = answer["access_token"], answer["refresh_token"]
                assert answer["user"]["email"] == "ada@example.com"
            if "/signup" in command:
                assert answer["email"] == "ada@example.com" and answer["user_metadata"]["name"] == "Ada", answer
            if "/verify" in command or "grant_type" in command:
                assert "access_token" in answer, (command, answer)
            if "-X PUT" in command:
                assert answer["user_metadata"]["name"] == "Ada" and answer["user_metadata"]["team"] == "core", answer
            if "/logout" in command:
                assert status == "204"
        # Signed out: the access token's session is gone.
        after = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", f"localhost:{port}/user",
                                "-H", f"Authorization: Bearer {state['access_token']}"], capture_output=True, text=True)
        assert after.stdout == "403"
        assert re.search(r"/logout\?scope=global", commands[-1])
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
