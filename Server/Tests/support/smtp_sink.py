#!/usr/bin/env python3
"""A real SMTP server for Latchkey's tests, on aiosmtpd.

Every message it accepts is written to DIR as <ns>.eml (the raw bytes) and <ns>.json (what
Python's standard `email` parser makes of it, plus the envelope and whether TLS and AUTH were
used), so a test checks both what arrived and that a standard parser reads it. When it listens,
it writes its port to DIR/ready. It runs until SIGTERM.

  smtp_sink.py --dir DIR [--port N] [--tls none|starttls|implicit] [--auth USER:PASS]
               [--reject SUBSTRING] [--silent]

--tls starttls/implicit make a throwaway CA with trustme and write its certificate to DIR/ca.pem.
--reject answers 550 to any recipient containing SUBSTRING. --silent accepts connections and
never answers (for timeout tests).
"""
import argparse
import asyncio
import email
import email.policy
import json
import signal
import socket
import ssl
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tls_context(directory: Path) -> ssl.SSLContext:
    import trustme

    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(directory / "ca.pem"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


class Sink:
    def __init__(self, directory: Path, reject: str | None):
        self.directory = directory
        self.reject = reject

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject and self.reject in address:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        stamp = time.time_ns()
        message = email.message_from_bytes(raw, policy=email.policy.default)
        text = message.get_body(preferencelist=("plain",))
        html = message.get_body(preferencelist=("html",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            "auth": session.auth_data.decode() if isinstance(session.auth_data, bytes) else session.auth_data,
            "from": str(message["From"]),
            "to": str(message["To"]),
            "subject": str(message["Subject"]),
            "date": str(message["Date"]),
            "message_id": str(message["Message-ID"]),
            "content_type": message.get_content_type(),
            "text": text.get_content() if text else None,
            "html": html.get_content() if html else None,
            "defects": [type(d).__name__ for d in message.defects],
        }
        (self.directory / f"{stamp}.eml").write_bytes(raw)
        tmp = self.directory / f"{stamp}.json.tmp"
        tmp.write_text(json.dumps(record))
        tmp.rename(self.directory / f"{stamp}.json")
        return "250 Message accepted"


async def silent(port: int, directory: Path) -> None:
    async def hold(reader, writer):
        await asyncio.sleep(3600)

    server = await asyncio.start_server(hold, "127.0.0.1", port)
    (directory / "ready").write_text(str(port))
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", choices=["none", "starttls", "implicit"], default="none")
    parser.add_argument("--auth")
    parser.add_argument("--reject")
    parser.add_argument("--silent", action="store_true")
    args = parser.parse_args()
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    port = args.port or free_port()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(SystemExit(0)))

    if args.silent:
        asyncio.run(silent(port, directory))
        return

    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    options = {}
    if args.tls != "none":
        context = tls_context(directory)
        if args.tls == "starttls":
            options.update(tls_context=context, require_starttls=True)
        else:
            options.update(ssl_context=context)
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = auth_data.login.decode() == user and auth_data.password.decode() == password
            return AuthResult(success=ok, handled=False, auth_data=auth_data.login if ok else None)

        options.update(authenticator=authenticator, auth_required=True, auth_require_tls=args.tls != "none")
    controller = Controller(Sink(directory, args.reject), hostname="127.0.0.1", port=port, **options)
    controller.start()
    (directory / "ready").write_text(str(port))
    try:
        signal.pause()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
