#!/usr/bin/env python3
"""A stand-in for Twilio's Messages API, for Latchkey's tests.

Every request is written to DIR as <ns>.json: method, path, the Authorization and Content-Type
headers and the form fields exactly as received. Messages to a number given with --fail get
Twilio's 400 error body; all others a 201 with a message SID. It writes its port to DIR/ready
and runs until SIGTERM.

  twilio_fake.py --dir DIR [--fail +15550000000]
"""
import argparse
import json
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fail", action="append", default=[])
    args = parser.parse_args()
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
            form = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(raw, keep_blank_values=True).items()}
            record = {
                "method": "POST",
                "path": self.path,
                "authorization": self.headers.get("Authorization"),
                "content_type": self.headers.get("Content-Type"),
                "form": form,
            }
            stamp = time.time_ns()
            tmp = directory / f"{stamp}.json.tmp"
            tmp.write_text(json.dumps(record))
            tmp.rename(directory / f"{stamp}.json")
            to = str(form.get("To", "")).removeprefix("whatsapp:")
            if to in args.fail:
                status, body = 400, {"code": 21211, "message": f"The 'To' number {to} is not a valid phone number.", "status": 400}
            else:
                status, body = 201, {"sid": "SM" + uuid.uuid4().hex, "status": "queued", "to": form.get("To")}
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    (directory / "ready").write_text(str(server.server_address[1]))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
