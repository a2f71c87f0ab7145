import Foundation
import LatchkeyAPI

/// Decides whether a new password is acceptable: long enough (in characters), not longer than
/// the byte limit, and not on the common-password list. No composition rules (NIST SP 800-63B).
public struct PasswordPolicy: Sendable {
    public let settings: PasswordSettings
    let blocklist: Set<String>

    public init(settings: PasswordSettings, blocklist: Set<String>) {
        self.settings = settings
        self.blocklist = blocklist
    }

    /// Loads the bundled list of 20,000 common passwords.
    public static func bundledBlocklist() -> Set<String> {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt", subdirectory: "Resources"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [] }
        return Set(text.split(whereSeparator: \.isNewline).map { String($0) })
    }

    /// Whether the password is too long to even hash. Checked before any work.
    public func isTooLong(_ password: String) -> Bool {
        password.utf8.count > settings.maxBytes
    }

    /// The refusal for a new password, or `nil` when it is fine.
    public func check(_ password: String) -> AuthError? {
        let normalized = password.precomposedStringWithCanonicalMapping
        if isTooLong(password) {
            return AuthError(
                .weakPassword, "Password should be at most \(settings.maxBytes) bytes.", weakPasswordReasons: [.length])
        }
        if normalized.count < settings.minLength {
            return AuthError(
                .weakPassword, "Password should be at least \(settings.minLength) characters.",
                weakPasswordReasons: [.length])
        }
        if settings.blockCommon, isCommon(normalized) {
            return AuthError(
                .weakPassword, "Password is known to be weak and easy to guess, please choose a different one.",
                weakPasswordReasons: [.pwned])
        }
        return nil
    }

    /// On the list, or a listed password padded with digits and symbols at either end
    /// (`password12345678`, `!!qwertyuiop2024`), which is how short common passwords are
    /// stretched to meet a length rule.
    func isCommon(_ password: String) -> Bool {
        let lowered = password.lowercased()
        if blocklist.contains(lowered) { return true }
        let padding: (Character) -> Bool = { !$0.isLetter }
        let core = String(lowered.drop(while: padding).reversed().drop(while: padding).reversed())
        return core.count >= 4 && core != lowered && blocklist.contains(core)
    }
}
