import Foundation
import LatchkeyAPI

/// Sends SMS codes through the operator's `send-sms` hook instead of an SMS provider: the hook
/// gets the user and `sms` (`otp`, `phone`, and Latchkey's `sms_type`), and sends them with any
/// provider it likes. Called in the request, as GoTrue does: its failure or refusal answers it.
public struct HookSMSSender: SMSSender {
    let hooks: Hooks

    public init(hooks: Hooks) {
        self.hooks = hooks
    }

    public var providerName: String { "hook" }

    /// Only ``send(_:)`` carries the code the hook needs.
    public func send(to phone: String, body: String, channel: String) async throws -> String {
        throw AuthError(.unexpectedFailure, "The send-sms hook needs the code, not the text")
    }

    public func send(_ message: SMSMessage) async throws -> String {
        let user = message.user.map { Hooks.json($0.wire(identities: [])) } ?? .object(["phone": .string(message.phone)])
        let sms: JSONValue = .object([
            "otp": .string(message.code), "phone": .string(message.phone), "sms_type": .string(message.purpose),
        ])
        _ = try await hooks.invoke(.sendSMS, ["user": user, "sms": sms], userID: message.user?.id)
        return "hook-\(hooks.random.uuid().lowercasedString)"
    }
}
