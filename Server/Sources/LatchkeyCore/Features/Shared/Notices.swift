import Foundation

/// Builds the outbox rows of messages (sealed, due now) and wakes the delivery once they are
/// stored. A use case stores the rows in the transaction of the change they announce, then calls
/// ``notify()``.
public struct Notices: Sendable {
    let composer: EmailComposer
    let sealer: OutboxSealer
    let signal: OutboxSignal
    let time: any TimeSource
    /// The rows' ids.
    let random: any RandomSource

    public init(composer: EmailComposer, sealer: OutboxSealer, signal: OutboxSignal, time: any TimeSource, random: any RandomSource) {
        self.composer = composer
        self.sealer = sealer
        self.signal = signal
        self.time = time
        self.random = random
    }

    /// Outbox rows for `messages`, sealed and due now.
    public func rows(_ messages: [EmailMessage]) throws -> [OutboxRecord] {
        let now = time.now()
        return try messages.map { message in
            var record = OutboxRecord(
                id: random.orderedUUID(at: now), recipient: message.to.joined(separator: ", "), payload: try sealer.seal(message),
                nextAttemptAt: now,
                createdAt: now)
            record.message = message
            return record
        }
    }

    /// A notice of `kind` to the user's email address, when it has one.
    public func notice(_ kind: MessageKind, to user: UserRecord, provider: String? = nil) throws -> [OutboxRecord] {
        try user.email.map { try rows([composer.email(kind, to: $0, user: user, provider: provider)]) } ?? []
    }

    /// Wakes the delivery after rows were stored.
    public func notify() { signal.notify() }
}
