import Foundation
import LatchkeyAPI

/// The wire JSON of the hottest answers (a session, a user), written directly, byte for byte what
/// `WireJSON`'s encoder writes (sorted keys, unescaped slashes, GoTrue's dates) at a fraction of
/// its cost. What it cannot write exactly like that encoder — a number with a fraction, a control
/// character, a key that is not plain ASCII, a weak-password report — it leaves to the encoder
/// (`nil`). `WireWriterTests` compares the two on random users and sessions.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    /// The JSON of `session`, or `nil` to leave it to the encoder.
    static func json(_ session: Session) -> [UInt8]? {
        guard session.weakPassword == nil else { return nil }
        var writer = WireWriter()
        writer.bytes.reserveCapacity(2048)
        return writer.session(session) ? writer.bytes : nil
    }

    /// The JSON of `user`, or `nil` to leave it to the encoder.
    static func json(_ user: User) -> [UInt8]? {
        var writer = WireWriter()
        writer.bytes.reserveCapacity(1024)
        return writer.user(user) ? writer.bytes : nil
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
        key("status")
        guard string(factor.status.rawValue) else { return false }
        date("updated_at", factor.updatedAt)
        close()
        return true
    }

    // MARK: Pieces

    private mutating func open() { bytes.append(UInt8(ascii: "{")) }
    private mutating func close() { bytes.append(UInt8(ascii: "}")) }

    /// `"name":`, after a comma unless it is the object's first key.
    private mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private mutating func date(_ name: StaticString, _ value: Date?) {
        guard let value else { return }
        key(name)
        dateValue(value)
    }

    private mutating func dateValue(_ value: Date) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: WireJSON.formatDate(value).utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func optionalString(_ name: StaticString, _ value: String?) -> Bool {
        guard let value else { return true }
        key(name)
        return string(value)
    }

    private mutating func uuid(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value.uuidString.lowercased().utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func int(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

    private mutating func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

    /// A string whose only escapes are quotes and backslashes; `false` for a control character.
    private mutating func string(_ value: String) -> Bool {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x00..<0x20, 0x7F: return false
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return true
    }

    private mutating func array<T>(_ items: [T], _ write: (inout WireWriter, T) -> Bool) -> Bool {
        bytes.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard write(&self, item) else { return false }
        }
        bytes.append(UInt8(ascii: "]"))
        return true
    }

    /// An object with plain-ASCII keys, sorted as the encoder sorts them (by their bytes).
    private mutating func object(_ members: [String: JSONValue]) -> Bool {
        guard members.keys.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) else { return false }
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard string(member.key) else { return false }
            bytes.append(UInt8(ascii: ":"))
            guard value(member.value) else { return false }
        }
        bytes.append(UInt8(ascii: "}"))
        return true
    }

    private mutating func value(_ value: JSONValue) -> Bool {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bool(flag)
        case .number(let number):
            // Whole numbers as the wire type writes them (Int64); a fraction is the encoder's.
            guard number.rounded() == number, abs(number) < 9_007_199_254_740_992 else { return false }
            bytes.append(contentsOf: String(Int64(number)).utf8)
        case .string(let text): return string(text)
        case .array(let items): return array(items) { $0.value($1) }
        case .object(let members): return object(members)
        }
        return true
    }
}
