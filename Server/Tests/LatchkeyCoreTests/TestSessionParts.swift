import Foundation

@testable import LatchkeyCore

/// The shared pieces a use case that answers with sessions or queues mail needs, built for tests
/// that run without HTTP: an in-memory token issuer, a renderer that writes the message kind, and
/// the given clock and randomness.
enum TestSessionParts {
    static let serverSecret = [UInt8](repeating: 7, count: 32)

    /// Writes a message's kind and its values' code: enough to tell messages apart.
    struct Renderer: MessageRenderer {
        func render(_ kind: MessageKind, _ values: TemplateValues) -> (subject: String, text: String, html: String) {
            ("\(kind)", "\(kind)", "<p>\(kind)</p>")
        }
    }

    static func answers(accounts: any AccountReading, time: any TimeSource, random: any RandomSource) async throws -> SessionAnswers {
        SessionAnswers(
            issuer: InMemoryTokenIssuer(time: time), serverSecret: serverSecret, jwt: JWTSettings(), externalURL: "http://localhost:9999",
            accounts: accounts,
            time: time, random: random)
    }

    static func records(accounts: any AccountReading, time: any TimeSource, random: any RandomSource) -> Records {
        Records(
            issuer: InMemoryTokenIssuer(time: time), serverSecret: serverSecret, jwt: JWTSettings(), externalURL: "http://localhost:9999",
            accounts: accounts, composer: composer, signal: OutboxSignal(), time: time, random: random)
    }

    static let composer = EmailComposer(
        appName: "Latchkey", externalURL: "http://localhost:9999", siteURL: "http://localhost:3000", templates: Renderer(),
        validMinutes: 5)

    static func notices(time: any TimeSource) -> Notices {
        let composer = EmailComposer(
            appName: "Latchkey", externalURL: "http://localhost:9999", siteURL: "http://localhost:3000", templates: Renderer(),
            validMinutes: 5)
        return Notices(
            composer: composer, sealer: OutboxSealer(serverSecret: serverSecret), signal: OutboxSignal(), time: time,
            random: SeededRandomSource(seed: 8))
    }
}
