import Foundation
import LatchkeyAPI

/// Delivers email through the operator's `send-email` hook instead of SMTP: the outbox hands it
/// each message, and it posts the message's ``EmailMessage/hookPayload`` (GoTrue's `user` and
/// `email_data`). A hook that cannot be reached, times out or fails is tried again by the outbox
/// with back-off; one that refuses a message (`{"error": {"http_code": 4xx, …}}`) is not.
public struct HookMailer: Mailer {
    let hooks: Hooks

    public init(hooks: Hooks) {
        self.hooks = hooks
    }

    public func send(_ message: EmailMessage) async throws {
        guard let payload = message.hookPayload else {
            throw HookDeliveryFailure(isPermanent: true, reason: "queued before the send-email hook was on: it has no hook payload")
        }
        let userID = payload["user"]?.objectValue?["id"]?.stringValue.flatMap(UUID.init(text:))
        do {
            _ = try await hooks.invoke(.sendEmail, payload, userID: userID)
        } catch let error as AuthError {
            let refused = error.code == .hookRejected && (400..<500).contains(error.status ?? 500)
            throw HookDeliveryFailure(isPermanent: refused, reason: error.description)
        }
    }
}

/// Why the `send-email` hook did not take a message.
public struct HookDeliveryFailure: MailDeliveryFailure, CustomStringConvertible {
    public let isPermanent: Bool
    public let reason: String

    public var description: String { "send-email hook: \(reason)" }
}
