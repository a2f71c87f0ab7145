import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import Logging

/// `GET /_dev/mailbox`: what the development mailbox caught, newest first, as JSON or a page.
/// The messages carry sign-in codes, so it is there only when `LATCHKEY_DEV_MAILBOX_PUBLIC`
/// allows everyone, or when no mail transport is configured, the server listens on loopback and
/// no proxy header is trusted (`isEnabled`); and then it answers only requests from this machine
/// that came through no proxy: behind a reverse proxy on the same host every request's socket is
/// from 127.0.0.1, so a request carrying a forwarding header is refused, and the address is the
/// one the proxy header resolves to.
struct DevMailboxController {
    let store: any DevMailboxStore
    let allowRemote: Bool

    /// Whether the server offers the mailbox at all.
    static func isEnabled(smtpConfigured: Bool, host: String, trustedIPHeader: HTTPField.Name?, public: Bool) -> Bool {
        guard !smtpConfigured else { return false }
        return `public` || (isLoopbackHost(host) && trustedIPHeader == nil)
    }

    static func isLoopbackHost(_ host: String) -> Bool {
        host == "localhost" || isLoopback(host)
    }

    static let forwardingHeaders: [HTTPField.Name] = [
        HTTPField.Name("X-Forwarded-For")!, HTTPField.Name("Forwarded")!, HTTPField.Name("X-Real-IP")!,
        HTTPField.Name("X-Forwarded-Host")!,
    ]

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/_dev/mailbox") { request, context in
            let proxied = Self.forwardingHeaders.contains { request.headers[$0] != nil }
            guard allowRemote || (!proxied && Self.isLoopback(context.client.ip)) else {
                throw AuthError(.notFound, "Not found")
            }
            let to = request.queryValue("to").map { EmailAddress.canonical($0) ?? $0 }
            let limit = try request.queryValue("limit").map { raw -> Int in
                guard let limit = Int(raw), (1...100).contains(limit) else {
                    throw AuthError.validation("limit must be a whole number from 1 to 100")
                }
                return limit
            }
            let messages = try await store.mailbox(to: to, limit: limit ?? 100).map(Self.wire)
            if request.headers[.accept]?.contains("application/json") == true {
                let body = ByteBuffer(bytes: WireWriter.json(MailboxResponse(messages: messages)))
                return JSONResponse.make(bytes: body, noStore: true)
            }
            return DevMailboxPage.response(messages)
        }
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    static func wire(_ stored: StoredEmail) -> MailboxMessage {
        MailboxMessage(
            id: stored.id.lowercasedString, to: stored.message.to, subject: stored.message.subject,
            text: stored.message.text, html: stored.message.html, createdAt: WireJSON.formatDate(stored.createdAt))
    }
}
