import Foundation
import LatchkeyAPI

extension PhoneNumber {
    /// The canonical form of a request's number (``canonical(_:)``), checked before any
    /// lookup: `validation_failed` when there is none, `phone_invalid` for one the rules refuse.
    public static func requestNumber(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw AuthError(.validationFailed, "A phone number is required") }
        guard let phone = canonical(raw) else { throw AuthError.phoneInvalid }
        return phone
    }

    /// ``requestNumber(_:)``, a disabled phone provider (`enabled` false) refused first.
    public static func requestNumber(_ raw: String?, enabled: Bool) throws -> String {
        guard enabled else { throw AuthError.phoneDisabled }
        return try requestNumber(raw)
    }
}
