import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The development mailbox as a page (`GET /_dev/mailbox` asked for HTML): every message the
/// server would have sent, newest first.
enum DevMailboxPage {
    static func response(_ messages: [MailboxMessage]) -> Response {
        let e = EmailComposer.escape
        let items = messages.map { message in
            """
            <article><h2>\(e(message.subject))</h2><p class="meta">To \(e(message.to.joined(separator: ", "))) · \(e(message.createdAt))</p>
            <pre>\(e(message.text))</pre></article>
            """
        }.joined(separator: "\n")
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Latchkey dev mailbox</title>
            <style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}
            article{border:1px solid #ddd;border-radius:.5rem;padding:0 1rem;margin:1rem 0}.meta{color:#666}
            pre{white-space:pre-wrap}</style></head><body>
            <h1>Dev mailbox</h1><p>Every email the server would have sent, newest first. No mail transport is configured.</p>
            \(messages.isEmpty ? "<p>No messages yet.</p>" : items)
            </body></html>
            """
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
