/// Delivers email. The development mailbox is one implementation; SMTP is another.
public protocol Mailer: Sendable {
    /// Sends one message, or throws when it could not be handed over.
    func send(_ message: EmailMessage) async throws
}

/// A mailer that keeps messages in the store's development mailbox, for when no transport is
/// configured.
public struct DevMailbox: Mailer {
    let store: any AuthStore
    let time: any TimeSource

    public init(store: any AuthStore, time: any TimeSource) {
        self.store = store
        self.time = time
    }

    public func send(_ message: EmailMessage) async throws {
        try await store.appendMailbox(message, at: time.now())
    }
}
