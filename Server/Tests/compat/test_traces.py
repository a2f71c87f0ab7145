"""Traces over OTLP/HTTP (`OTEL_*`), received by a stand-in collector in the test: a request that
sends a W3C `traceparent` gets a server span in the caller's trace, named by method and route,
with the handler's span (the use case) beneath it and the store's transactions beneath that; one
without starts a trace of its own; each outbox delivery (here a webhook) gets a span."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from test_cli import _start_server
from test_hooks import HOOK_SECRET, PASSWORD


class Collector:
    """Records the spans posted to /v1/traces (OTLP JSON)."""

    def __init__(self):
        self.spans: list[dict] = []
        self.paths: list[str] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                collector.paths.append(self.path)
                for resource in body.get("resourceSpans", []):
                    service = {a["key"]: a["value"] for a in resource.get("resource", {}).get("attributes", [])}
                    for scope in resource.get("scopeSpans", []):
                        for span in scope.get("spans", []):
                            collector.spans.append({**span, "service": service})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def hex_id(value: str) -> str:
    """OTLP/JSON ids are hex; a protobuf JSON writer may send base64 instead."""
    if all(c in "0123456789abcdefABCDEF" for c in value) and len(value) in (16, 32):
        return value.lower()
    return base64.b64decode(value).hex()


def test_a_request_span_continues_the_callers_trace_with_transactions_beneath(tmp_path):
    collector = Collector()
    env = {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
           "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_SERVICE_NAME": "auth-test",
           "LATCHKEY_PASSWORD_SCRYPT_LOG_N": "10", "GOTRUE_MAILER_AUTOCONFIRM": "true",
           "LATCHKEY_WEBHOOK_URL": collector.url + "/hook", "LATCHKEY_WEBHOOK_SECRET": HOOK_SECRET}
    process, url, log = _start_server(tmp_path, env=env)
    try:
        trace_id, parent_id = uuid.uuid4().hex, uuid.uuid4().hex[:16]
        email = f"traced-{uuid.uuid4().hex[:6]}@example.com"
        answer = httpx.post(f"{url}/signup", json={"email": email, "password": PASSWORD},
                            headers={"traceparent": f"00-{trace_id}-{parent_id}-01"}, trust_env=False, timeout=20)
        assert answer.status_code == 200, answer.text
        assert httpx.get(f"{url}/settings", trust_env=False).status_code == 200

        deadline = time.monotonic() + 20
        mine: list[dict] = []
        while time.monotonic() < deadline:
            mine = [s for s in collector.spans if hex_id(s["traceId"]) == trace_id]
            if any(s["name"] == "POST /signup" for s in mine) and any(s["name"] == "db.transaction" for s in mine):
                break
            time.sleep(0.1)
        request = next(s for s in mine if s["name"] == "POST /signup")
        assert hex_id(request["parentSpanId"]) == parent_id
        assert request["kind"] in (2, "SPAN_KIND_SERVER")
        attributes = {a["key"]: a["value"] for a in request.get("attributes", [])}
        assert attributes["http.route"] == {"stringValue": "/signup"}
        assert request["service"]["service.name"] == {"stringValue": "auth-test"}
        handler = next(s for s in mine if s["name"] == "handle POST /signup")
        assert hex_id(handler["parentSpanId"]) == hex_id(request["spanId"])
        transactions = [s for s in mine if s["name"] == "db.transaction"]
        assert transactions and all(hex_id(s["parentSpanId"]) == hex_id(handler["spanId"]) for s in transactions)
        assert "/v1/traces" in collector.paths
        # The sign-up's webhook event leaves the outbox in a span of its own.
        deadline = time.monotonic() + 20
        while not any(s["name"] == "outbox.deliver" for s in collector.spans) and time.monotonic() < deadline:
            time.sleep(0.1)
        delivery = next(s for s in collector.spans if s["name"] == "outbox.deliver")
        assert {"key": "latchkey.outbox.channel", "value": {"stringValue": "webhook"}} in delivery["attributes"]
        # A request without a traceparent starts a trace of its own.
        settings = [s for s in collector.spans if s["name"] == "GET /settings"]
        deadline = time.monotonic() + 10
        while not settings and time.monotonic() < deadline:
            time.sleep(0.1)
            settings = [s for s in collector.spans if s["name"] == "GET /settings"]
        assert settings and hex_id(settings[0]["traceId"]) != trace_id and not settings[0].get("parentSpanId")
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()
        collector.server.shutdown()
