import Foundation

/// A message waiting in the outbox.
///
/// It is written in the same transaction as the code or change it announces, so a message is
/// never lost and never sent for something that was rolled back; ``OutboxDelivery`` sends it from
/// there, with retries.
public struct OutboxRecord: Sendable, Equatable {
    /// How the message travels.
    public enum Channel: String, Sendable {
        case email
        /// An event for a webhook endpoint: ``recipient`` is the endpoint's id, ``payload`` the
        /// event's JSON (kept after delivery, for replays).
        case webhook
    }

    public var id: UUID
    public var channel: Channel
    /// Who receives it, for logs and operators (a webhook endpoint's id); an email's content is
    /// sealed in ``payload``.
    public var recipient: String
    /// The message, sealed by ``OutboxSealer`` (it carries codes and links, which are secrets), or
    /// a webhook event's JSON.
    public var payload: String
    /// Delivery attempts made so far.
    public var attempts: Int
    /// When the next attempt is due.
    public var nextAttemptAt: Date
    public var createdAt: Date
    /// Why the last attempt failed.
    public var lastError: String?
    /// The message in the clear, as the service that sealed ``payload`` made it, for a store that
    /// files it at once (the development mailbox) without opening the payload again. Never
    /// stored: a record read back from the store has none.
    public var message: EmailMessage?

    public init(
        id: UUID = UUID(), channel: Channel = .email, recipient: String, payload: String, attempts: Int = 0,
        nextAttemptAt: Date, createdAt: Date, lastError: String? = nil
    ) {
        self.id = id
        self.channel = channel
        self.recipient = recipient
        self.payload = payload
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.lastError = lastError
    }
}

/// How a delivery attempt ended, as the store records it.
public enum OutboxOutcome: Sendable, Equatable {
    /// Handed over; the sealed payload is erased.
    case sent(at: Date)
    /// Failed for now; try again at `next`.
    case retry(attempts: Int, next: Date, error: String)
    /// Failed for good (a permanent refusal, or out of attempts); the payload is erased.
    case failed(attempts: Int, at: Date, error: String)
}
