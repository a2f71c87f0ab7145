"""Webhooks for events over real HTTP: an endpoint from `LATCHKEY_WEBHOOK_URL` and one added
through the admin API get the events they subscribe to, signed (Standard Webhooks); a delivery that
fails is retried with the same `webhook-id`, one queued when the server stops is delivered after
it starts again, and `latchkey webhooks list|replay` show and resend them."""

from __future__ import annotations

import json
import subprocess
import time
import uuid

import httpx

from conftest import _find_binary as binary_path
from test_cli import _start_server
from test_hooks import HOOK_SECRET, PASSWORD, Receiver
from test_supabase_admin import SECRET, service_headers


def wait_for(receiver: Receiver, path: str, kind: str, count: int = 1, timeout: float = 20) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [p for p in receiver.payloads(path) if p["type"] == kind]
        if len(found) >= count:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no {kind} at {path}: {[p['type'] for p in receiver.payloads(path)]}")


def test_events_are_delivered_signed_retried_and_survive_a_restart(tmp_path):
    receiver = Receiver()
    state = {"events": "down-once"}

    def events(payload):
        if state["events"] == "down" or state["events"] == "down-once":
            if state["events"] == "down-once":
                state["events"] = "up"
            return 500, {"error": "not now"}
        return 200, {}

    receiver.answers = {"/events": events, "/second": lambda p: (204, None)}
    env = {"GOTRUE_JWT_SECRET": SECRET, "GOTRUE_MAILER_AUTOCONFIRM": "true", "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10",
           "LATCHKEY_MAIL_RETRY_BASE": "1", "LATCHKEY_WEBHOOK_URL": receiver.url("/events"), "LATCHKEY_WEBHOOK_SECRET": HOOK_SECRET}
    data = tmp_path / "data"
    data.mkdir()
    process, url, log = _start_server(data, env=env)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=20)
        email = f"hooked-{uuid.uuid4().hex[:6]}@example.com"
        signed_up = client.post("/signup", json={"email": email, "password": PASSWORD})
        assert signed_up.status_code == 200, signed_up.text
        user_id = signed_up.json()["user"]["id"]

        # The first attempt at the first event fails; it is tried again with the same webhook-id.
        created = wait_for(receiver, "/events", "user.created", count=2)
        first, retry = [i for (path, payload, _), i in zip(receiver.calls, receiver.ids)
                        if path == "/events" and payload["type"] == "user.created"][:2]
        assert first == retry
        assert created[-1]["data"]["user_id"] == user_id and created[-1]["data"]["action"] == "user_signedup"
        signed_in = wait_for(receiver, "/events", "user.signed_in")
        assert signed_in[0]["data"]["details"]["method"] == "password" and signed_in[0]["timestamp"]
        assert all(ok for _, _, ok in receiver.calls)

        # An endpoint added through the admin API gets only what it subscribes to; its secret is
        # answered once.
        generated = client.post("/admin/webhooks", json={"url": receiver.url("/unused")}, headers=service_headers())
        assert generated.status_code == 201 and generated.json()["secret"].startswith("v1,whsec_"), generated.text
        assert client.delete(f"/admin/webhooks/{generated.json()['id']}", headers=service_headers()).status_code == 200
        refused = client.post("/admin/webhooks", json={"url": "http://hooks.example.com/x"}, headers=service_headers())
        assert refused.status_code == 422 and refused.json()["error_code"] == "validation_failed"
        second = client.post("/admin/webhooks", json={"url": receiver.url("/second"), "secret": HOOK_SECRET,
                                                      "events": ["user.deleted"]}, headers=service_headers()).json()
        listed = client.get("/admin/webhooks", headers=service_headers()).json()["webhooks"]
        assert {w["source"] for w in listed} == {"env", "api"} and all("secret" not in w for w in listed)
        assert client.post("/token?grant_type=password", json={"email": email, "password": PASSWORD}).status_code == 200
        assert client.delete(f"/admin/users/{user_id}", headers=service_headers()).status_code == 200
        deleted = wait_for(receiver, "/second", "user.deleted")
        assert deleted[0]["data"]["user_id"] == user_id
        assert all(p["type"] == "user.deleted" for p in receiver.payloads("/second"))
        wait_for(receiver, "/events", "user.deleted")
        deliveries = client.get(f"/admin/webhooks/{second['id']}/deliveries", headers=service_headers()).json()["deliveries"]
        assert [d["state"] for d in deliveries] == ["delivered"]

        # The endpoint goes down; a sign-up is queued, and the server stops before it is delivered.
        state["events"] = "down"
        other = f"later-{uuid.uuid4().hex[:6]}@example.com"
        assert client.post("/signup", json={"email": other, "password": PASSWORD}).status_code == 200
        wait_for(receiver, "/events", "user.created", count=3)  # one failed attempt
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()

    state["events"] = "up"
    process, url, log = _start_server(data, env=env)
    try:
        delivered = wait_for(receiver, "/events", "user.created", count=4)
        assert any(p["data"]["actor"] == other for p in delivered)

        # The CLI lists the deliveries, and replays one with its webhook-id.
        listing = subprocess.run([str(binary_path()), "webhooks", "list", "--json", "--data-dir", str(data), "--limit", "50"],
                                 capture_output=True, text=True, timeout=60, env={**env, "PATH": "/usr/bin:/bin"})
        assert listing.returncode == 0, listing.stderr
        shown = json.loads(listing.stdout)
        assert len(shown["webhooks"]) == 2
        # A command run without the server's webhook variables leaves the environment's endpoint alone.
        bare = {k: v for k, v in env.items() if not k.startswith("LATCHKEY_WEBHOOK_")}
        again = subprocess.run([str(binary_path()), "webhooks", "list", "--json", "--data-dir", str(data)],
                               capture_output=True, text=True, timeout=60, env={**bare, "PATH": "/usr/bin:/bin"})
        assert again.returncode == 0 and {w["source"] for w in json.loads(again.stdout)["webhooks"]} == {"env", "api"}
        done = [d for d in shown["deliveries"] if d["state"] == "delivered" and d["type"] == "user.signed_in"]
        assert done, shown["deliveries"]
        before = receiver.ids.count(done[0]["id"])
        replay = subprocess.run([str(binary_path()), "webhooks", "replay", done[0]["id"], "--data-dir", str(data)],
                                capture_output=True, text=True, timeout=60, env={**env, "PATH": "/usr/bin:/bin"})
        assert replay.returncode == 0 and "Queued 1 delivery again" in replay.stdout, replay.stderr + replay.stdout
        deadline = time.monotonic() + 20
        while receiver.ids.count(done[0]["id"]) == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert receiver.ids.count(done[0]["id"]) == before + 1
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
        receiver.close()


def test_unusable_webhook_settings_refuse_to_start(tmp_path):
    import os

    from conftest import _free_port
    for extra, says in [({"LATCHKEY_WEBHOOK_URL": "https://hooks.example.com/x"}, "LATCHKEY_WEBHOOK_SECRET"),
                        ({"LATCHKEY_WEBHOOK_URL": "ftp://hooks.example.com/x", "LATCHKEY_WEBHOOK_SECRET": HOOK_SECRET}, "LATCHKEY_WEBHOOK_URL"),
                        ({"LATCHKEY_WEBHOOK_URL": "https://hooks.example.com/x", "LATCHKEY_WEBHOOK_SECRET": HOOK_SECRET,
                          "LATCHKEY_WEBHOOK_EVENTS": "user.created,user.exploded"}, "user.exploded")]:
        result = subprocess.run([str(binary_path()), "serve", "--data-dir", str(tmp_path), "--port", str(_free_port())],
                                capture_output=True, text=True, timeout=30, env={**os.environ, **extra})
        assert result.returncode != 0 and says in result.stderr + result.stdout, (extra, result.stderr)
