"""The `latchkey` CLI against the data folder of a running server."""

import json
import subprocess
import time
import uuid

import supabase_auth

from conftest import _find_binary as binary_path


def run_cli(*args):
    return subprocess.run([str(binary_path()), *args], capture_output=True, text=True, timeout=60)


def test_mailbox_and_migrate_read_the_data_folder(latchkey_server):
    client = supabase_auth.SyncGoTrueClient(url=latchkey_server.url, auto_refresh_token=False, persist_session=False)
    email = f"cli-{uuid.uuid4().hex[:8]}@example.com"
    client.sign_up({"email": email, "password": "correct horse battery staple " + uuid.uuid4().hex[:6]})

    # The server delivers from its outbox in the background: wait for the message to arrive.
    deadline = time.monotonic() + 10
    while True:
        result = run_cli("mailbox", "--data-dir", str(latchkey_server.data_dir), "--to", email, "--json")
        assert result.returncode == 0, result.stderr
        messages = json.loads(result.stdout)["messages"]
        if messages or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert messages[0]["to"] == [email]
    assert messages[0]["subject"] == "Confirm your email address"
    assert latchkey_server.latest_code(email) in messages[0]["text"]

    text = run_cli("mailbox", "--data-dir", str(latchkey_server.data_dir), "--to", email)
    assert "Confirm your email address" in text.stdout

    migrate = run_cli("migrate", "--data-dir", str(latchkey_server.data_dir))
    assert migrate.returncode == 0, migrate.stderr
    assert "applied 1:" in migrate.stdout


def test_cli_reports_a_missing_database(tmp_path):
    result = run_cli("mailbox", "--data-dir", str(tmp_path / "nowhere"))
    assert result.returncode != 0
    assert "No database" in result.stderr
