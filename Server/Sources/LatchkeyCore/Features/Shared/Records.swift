import Foundation

/// The shared piece use cases make their records with: session records and answers
/// (``SessionAnswers``), outbox rows (``Notices``) and audit events (``AuditEvents``), and the
/// clock, ids and randomness they all come from. Everything is injected, so a test with a manual
/// clock and seeded randomness gets the same records on every run.
public struct Records: Sendable {
    public let answers: SessionAnswers
    public let notices: Notices

    /// Records whose answers and notices share one clock and one source of randomness.
    public init(
        issuer: any TokenIssuing, serverSecret: [UInt8], jwt: JWTSettings, externalURL: String, accounts: any AccountReading,
        composer: EmailComposer, signal: OutboxSignal, time: any TimeSource, random: any RandomSource, hooks: Hooks = .none
    ) {
        answers = SessionAnswers(
            issuer: issuer, serverSecret: serverSecret, jwt: jwt, externalURL: externalURL, accounts: accounts, time: time, random: random,
            hooks: hooks)
        notices = Notices(
            composer: composer, sealer: OutboxSealer(serverSecret: serverSecret), signal: signal, time: time, random: random)
    }

    /// The operator's hooks.
    public var hooks: Hooks { answers.hooks }
    /// The clock.
    public var time: any TimeSource { answers.time }
    /// New ids and random bytes.
    public var random: any RandomSource { answers.random }
    /// Audit events, stamped by ``time``.
    public var events: AuditEvents { AuditEvents(time: time, random: random) }
}
