import Foundation
import LatchkeyAPI

extension EmailAddress {
    /// The canonical form of a request's address: `validation_failed` when there is none,
    /// `email_address_invalid` when it is not an address.
    public static func requestAddress(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw AuthError(.validationFailed, "An email address is required") }
        guard let email = canonical(raw) else { throw AuthError(.emailAddressInvalid, "Unable to validate email address: invalid format") }
        return email
    }
}
