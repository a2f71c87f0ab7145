import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The wire JSON of the hottest answers (a session, a user): their shapes, written by Core's
/// ``JSONWriter`` in its wire style, byte for byte what `WireJSON`'s encoder writes (sorted keys,
/// unescaped slashes, GoTrue's dates) at a fraction of its cost. What it cannot write exactly like
/// that encoder (a number with a fraction, a control character, a key that is not plain ASCII, a
/// weak-password report) it leaves to the encoder (`nil`). `WireWriterTests` compares the two on
/// random users and sessions.
struct WireWriter {
    private var writer: JSONWriter

    private init(capacity: Int) { writer = JSONWriter(style: .wire, capacity: capacity) }

    /// The JSON of `session`, or `nil` to leave it to the encoder.
    static func json(_ session: Session) -> [UInt8]? {
        guard session.weakPassword == nil, session.recoveryCodes == nil else { return nil }
        var writer = WireWriter(capacity: 2048)
        return writer.session(session) ? writer.writer.bytes : nil
    }

    /// The JSON of `user`, or `nil` to leave it to the encoder.
    static func json(_ user: User) -> [UInt8]? {
        var writer = WireWriter(capacity: 1024)
        return writer.user(user) ? writer.writer.bytes : nil
    }

    private mutating func session(_ session: Session) -> Bool {
        open()
        key("access_token", first: true)
        guard string(session.accessToken) else { return false }
        key("expires_at")
        int(session.expiresAt)
        key("expires_in")
        int(session.expiresIn)
        key("refresh_token")
        guard string(session.refreshToken) else { return false }
        key("token_type")
        guard string(session.tokenType) else { return false }
        key("user")
        guard user(session.user) else { return false }
        close()
        return true
    }

    // Keys in the encoder's sorted order.
    private mutating func user(_ user: User) -> Bool {
        open()
        key("app_metadata", first: true)
        guard object(user.appMetadata) else { return false }
        key("aud")
        guard string(user.aud) else { return false }
        date("banned_until", user.bannedUntil)
        date("confirmation_sent_at", user.confirmationSentAt)
        date("confirmed_at", user.confirmedAt)
        date("created_at", user.createdAt)
        date("deleted_at", user.deletedAt)
        key("email")
        guard string(user.email) else { return false }
        date("email_change_sent_at", user.emailChangeSentAt)
        date("email_confirmed_at", user.emailConfirmedAt)
        if let factors = user.factors {
            key("factors")
            guard array(factors, { $0.factor($1) }) else { return false }
        }
        key("id")
        uuid(user.id)
        if let identities = user.identities {
            key("identities")
            guard array(identities, { $0.identity($1) }) else { return false }
        }
        date("invited_at", user.invitedAt)
        key("is_anonymous")
        bool(user.isAnonymous)
        date("last_sign_in_at", user.lastSignInAt)
        guard optionalString("new_email", user.newEmail), optionalString("new_phone", user.newPhone) else { return false }
        key("phone")
        guard string(user.phone) else { return false }
        date("phone_change_sent_at", user.phoneChangeSentAt)
        date("phone_confirmed_at", user.phoneConfirmedAt)
        date("reauthentication_sent_at", user.reauthenticationSentAt)
        date("recovery_sent_at", user.recoverySentAt)
        key("role")
        guard string(user.role) else { return false }
        date("updated_at", user.updatedAt)
        key("user_metadata")
        guard object(user.userMetadata) else { return false }
        close()
        return true
    }

    private mutating func identity(_ identity: Identity) -> Bool {
        open()
        key("created_at", first: true)
        dateValue(identity.createdAt)
        guard optionalString("email", identity.email) else { return false }
        key("id")
        guard string(identity.id) else { return false }
        key("identity_data")
        guard object(identity.identityData) else { return false }
        key("identity_id")
        uuid(identity.identityID)
        date("last_sign_in_at", identity.lastSignInAt)
        key("provider")
        guard string(identity.provider) else { return false }
        date("updated_at", identity.updatedAt)
        key("user_id")
        uuid(identity.userID)
        close()
        return true
    }

    private mutating func factor(_ factor: Factor) -> Bool {
        open()
        key("created_at", first: true)
        dateValue(factor.createdAt)
        key("factor_type")
        guard string(factor.factorType.rawValue) else { return false }
        guard optionalString("friendly_name", factor.friendlyName) else { return false }
        key("id")
        uuid(factor.id)
        date("last_challenged_at", factor.lastChallengedAt)
        guard optionalString("phone", factor.phone) else { return false }
        key("status")
        guard string(factor.status.rawValue) else { return false }
        date("updated_at", factor.updatedAt)
        close()
        return true
    }

    /// The JSON of what `/otp` and `/resend` answer, or `nil` to leave it to the encoder. Keys in
    /// the encoder's sorted order; absent ones left out, as the encoder leaves them.
    static func json(_ answer: OTPResponse) -> [UInt8]? {
        var writer = WireWriter(capacity: 160)
        var first = true
        func key(_ name: StaticString) {
            writer.key(name, first: first)
            first = false
        }
        writer.open()
        if let channel = answer.channel {
            key("channel")
            guard writer.string(channel) else { return nil }
        }
        if let length = answer.codeLength {
            key("code_length")
            writer.int(length)
        }
        if let expiresIn = answer.expiresIn {
            key("expires_in")
            writer.int(expiresIn)
        }
        if let attempts = answer.maxAttempts {
            key("max_attempts")
            writer.int(attempts)
        }
        if let id = answer.messageID {
            key("message_id")
            guard writer.string(id) else { return nil }
        }
        if let after = answer.resendAfter {
            key("resend_after")
            writer.int(after)
        }
        if let sentTo = answer.sentTo {
            key("sent_to")
            guard writer.string(sentTo) else { return nil }
        }
        writer.close()
        return writer.writer.bytes
    }

    /// The development mailbox's answer, written directly: a code sign-in's client polls it every
    /// few milliseconds for its code, and `JSONEncoder` spent a seventh of the server's CPU on it.
    /// In the compact style, since mail bodies hold line breaks (which it escapes as JSON does):
    /// the same keys in the same order and the same values as the encoder's, not its exact bytes.
    static func json(_ mailbox: MailboxResponse) -> [UInt8] {
        let bodies = mailbox.messages.reduce(0) { $0 + $1.html.utf8.count + $1.text.utf8.count + 256 }
        var writer = JSONWriter(style: .compact, capacity: 32 + bodies)
        writer.open()
        writer.key("messages", first: true)
        _ = writer.array(mailbox.messages) { writer, message in
            writer.open()
            writer.key("created_at", first: true)
            writer.string(message.createdAt)
            writer.key("html")
            writer.string(message.html)
            writer.key("id")
            writer.string(message.id)
            writer.key("subject")
            writer.string(message.subject)
            writer.key("text")
            writer.string(message.text)
            writer.key("to")
            _ = writer.array(message.to) { $0.string($1) }
            writer.close()
            return true
        }
        writer.close()
        return writer.bytes
    }

    // MARK: Pieces

    private mutating func open() { writer.open() }
    private mutating func close() { writer.close() }
    private mutating func key(_ name: StaticString, first: Bool = false) { writer.key(name, first: first) }
    private mutating func int(_ value: Int) { writer.int(value) }
    private mutating func bool(_ value: Bool) { writer.bool(value) }
    private mutating func string(_ value: String) -> Bool { writer.string(value) }
    private mutating func object(_ members: [String: JSONValue]) -> Bool { writer.object(members) }
    private mutating func dateValue(_ value: Date) { writer.plain(WireJSON.formatDate(value)) }
    private mutating func uuid(_ value: UUID) { writer.plain(value.lowercasedString) }

    private mutating func date(_ name: StaticString, _ value: Date?) {
        guard let value else { return }
        key(name)
        dateValue(value)
    }

    private mutating func optionalString(_ name: StaticString, _ value: String?) -> Bool {
        guard let value else { return true }
        key(name)
        return string(value)
    }

    private mutating func array<T>(_ items: [T], _ write: (inout WireWriter, T) -> Bool) -> Bool {
        writer.openArray()
        for (index, item) in items.enumerated() {
            if index > 0 { writer.comma() }
            guard write(&self, item) else { return false }
        }
        writer.closeArray()
        return true
    }
}
