import Foundation
import LatchkeyAPI

/// What this device remembers of the last user who signed in here, for a "welcome back" screen
/// (issue #37): who it was, the address or number to show masked, and which ways in this device
/// holds. Kept in the SDK's storage beside the session, never sent anywhere; kept by a
/// ``SignOutScope/local`` sign-out (the user means to come back), forgotten by a
/// ``SignOutScope/global`` one and by ``AuthClient/deleteAccount(nonce:)``.
public struct ReturningUser: Codable, Sendable, Equatable {
    /// The user's id.
    public var userID: UUID
    /// The address the user signs in with, if any.
    public var email: String?
    /// The phone number (E.164), if any.
    public var phone: String?
    /// The address or number to show: `a***@example.com`, `+*******4567`.
    public var maskedAddress: String
    /// A passkey was registered from this device.
    public var passkeyRegisteredHere: Bool
    /// This device holds a device key of the user's (read when the hint is read).
    public var deviceKeyEnrolledHere: Bool
    /// When the user last signed in here.
    public var lastSignedInAt: Date

    /// A hint, for previews and test doubles (the SDK makes its own after each sign-in).
    public init(
        userID: UUID, email: String?, phone: String?, maskedAddress: String, passkeyRegisteredHere: Bool, deviceKeyEnrolledHere: Bool,
        lastSignedInAt: Date
    ) {
        self.userID = userID
        self.email = email
        self.phone = phone
        self.maskedAddress = maskedAddress
        self.passkeyRegisteredHere = passkeyRegisteredHere
        self.deviceKeyEnrolledHere = deviceKeyEnrolledHere
        self.lastSignedInAt = lastSignedInAt
    }

    /// `a***@example.com`: the first character of the local part, the domain whole.
    public static func mask(email: String) -> String {
        guard let at = email.lastIndex(of: "@"), at > email.startIndex else { return "***" }
        return String(email[email.startIndex]) + "***" + email[at...]
    }

    /// `+*******4567`: the last four digits.
    public static func mask(phone: String) -> String {
        let digits = phone.filter(\.isNumber)
        guard digits.count > 4 else { return "***" }
        return "+" + String(repeating: "*", count: digits.count - 4) + digits.suffix(4)
    }
}

extension AuthClient {
    var returningUserKey: String { configuration.storageKey + ".returning-user" }

    /// The user who last signed in on this device, or `nil` (nobody yet, an anonymous user, a
    /// global sign-out since): what a returning-user screen greets.
    public func returningUser() async -> ReturningUser? {
        guard var hint = await storedHint() else { return nil }
        hint.deviceKeyEnrolledHere = (try? await loadEnrollment())?.userID == hint.userID.uuidString.lowercased()
        return hint
    }

    /// The hint as stored (its device-key flag is worked out only when the app reads it).
    func storedHint() async -> ReturningUser? {
        guard let data = try? await configuration.storage.load(key: returningUserKey) else { return nil }
        return try? JSONDecoder().decode(ReturningUser.self, from: data)
    }

    /// Remembers the user of a sign-in (or of a change to the address), keeping what this device
    /// holds when it is the same user.
    func rememberUser(_ session: Session) async {
        let user = session.user
        guard !user.isAnonymous, !(user.email.isEmpty && user.phone.isEmpty) else { return }
        let previous = await storedHint()
        let same = previous?.userID == user.id
        let email = user.email.isEmpty ? nil : user.email
        let phone = user.phone.isEmpty ? nil : user.phone
        let hint = ReturningUser(
            userID: user.id, email: email, phone: phone,
            maskedAddress: email.map { ReturningUser.mask(email: $0) } ?? ReturningUser.mask(phone: phone ?? ""),
            passkeyRegisteredHere: same && previous?.passkeyRegisteredHere == true, deviceKeyEnrolledHere: false,
            lastSignedInAt: now)
        if let data = try? JSONEncoder().encode(hint) { try? await configuration.storage.save(data, key: returningUserKey) }
    }

    /// Notes that the remembered user registered a passkey from this device.
    func rememberPasskey(for userID: UUID) async {
        guard var hint = await storedHint(), hint.userID == userID else { return }
        hint.passkeyRegisteredHere = true
        if let data = try? JSONEncoder().encode(hint) { try? await configuration.storage.save(data, key: returningUserKey) }
    }

    /// Forgets the returning user (a global sign-out, a deleted account).
    func forgetReturningUser() async {
        try? await configuration.storage.remove(key: returningUserKey)
    }
}
