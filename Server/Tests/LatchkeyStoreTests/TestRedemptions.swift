import Foundation
import LatchkeyAPI
import LatchkeyCore

/// Redemption rules for the store suites: a code (or a link) that signs the user in, decided
/// on a clock that stands at the given time.
enum TestRedemptions {
    /// Writes a message's kind: enough to tell messages apart.
    struct Renderer: MessageRenderer {
        func render(_ kind: MessageKind, _ values: TemplateValues) -> (subject: String, text: String, html: String) {
            ("\(kind)", "\(kind)", "<p>\(kind)</p>")
        }
    }

    static let client = ClientInfo(ip: "192.0.2.1", userAgent: "store-tests")

    /// Records whose clock stands at `now`.
    static func records(now: Date) -> Records {
        let time = ManualTimeSource(now)
        let composer = EmailComposer(
            appName: "Latchkey", externalURL: "http://localhost:9999", siteURL: "http://localhost:3000", templates: Renderer(),
            validMinutes: 5)
        return Records(
            issuer: InMemoryTokenIssuer(time: time), serverSecret: [UInt8](repeating: 7, count: 32), jwt: JWTSettings(),
            externalURL: "http://localhost:9999", accounts: NoAccounts(), composer: composer, signal: OutboxSignal(), time: time,
            random: SystemRandomSource())
    }

    /// `code` typed for the token `selector` names: a match signs in with a session.
    static func code(
        _ code: String, _ selector: OneTimeTokenSelector, now: Date, maxAttempts: Int = 5,
        completion: CodeRedemption.Completion = .emailSignIn(method: "otp")
    ) -> CodeRedemption {
        CodeRedemption(
            selector: selector, proof: .code(code), completion: completion, maxAttempts: maxAttempts, client: client,
            records: records(now: now))
    }

    /// The link whose secret hashes to `hash`; in a browser (`authCodeHash`), a PKCE link gives a
    /// flow state with that code hash instead of a session.
    static func link(_ hash: String, kinds: [OneTimeTokenKind], now: Date, authCodeHash: String? = nil) -> CodeRedemption {
        CodeRedemption(
            selector: .linkHash(hash, kinds: kinds), proof: .link, completion: .emailSignIn(method: "magiclink"), maxAttempts: 5,
            client: client, browserFlow: authCodeHash.map { CodeRedemption.BrowserFlow(authCodeHash: $0, lifetime: 300) },
            records: records(now: now))
    }

    /// Session answers are not built in the store suites.
    struct NoAccounts: AccountReading {
        func account(userID: UUID, sessionID: UUID?) async throws -> AccountRecords {
            AccountRecords(user: nil, session: nil, identities: [], factors: [])
        }
    }
}
