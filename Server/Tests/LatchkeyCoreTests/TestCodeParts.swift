import Foundation
import LatchkeyAPI
import Logging

@testable import LatchkeyCore

/// Records, a limiter and a code sender over an in-memory store, for tests of the use cases that
/// send codes (the messages carry their code, so a test can read what it was sent).
struct TestCodeParts {
    let records: Records
    let limiter: RateLimiter
    let redirects = RedirectPolicy(siteURL: "http://localhost:3000", allowList: [])
    let codes: Codes

    /// Parts on `time` and randomness seeded with `seed`; `codeStore` stands in for `memory` where
    /// codes are stored (a test store that lands another request's write).
    init(
        memory: InMemoryStore, codeStore: (any CodeStore)? = nil, time: any TimeSource, sms: any SMSSender,
        configuration: AuthConfiguration, seed: UInt64
    ) {
        let composer = EmailComposer(
            appName: "Latchkey", externalURL: "http://localhost:9999", siteURL: "http://localhost:3000", templates: CodeRenderer(),
            validMinutes: 10)
        records = Records(
            issuer: InMemoryTokenIssuer(time: time), serverSecret: TestSessionParts.serverSecret, jwt: JWTSettings(),
            externalURL: "http://localhost:9999", accounts: memory, composer: composer, signal: OutboxSignal(), time: time,
            random: SeededRandomSource(seed: seed))
        limiter = RateLimiter(store: memory, time: time)
        codes = Codes(
            store: codeStore ?? memory, settings: Codes.Settings(configuration), records: records, redirects: redirects, limiter: limiter,
            sms: sms, logger: Logger(label: "test"))
    }

    /// Writes the message kind and its code.
    struct CodeRenderer: MessageRenderer {
        func render(_ kind: MessageKind, _ values: TemplateValues) -> (subject: String, text: String, html: String) {
            ("\(kind)", "code=\(values.code ?? "")", "")
        }
    }
}
