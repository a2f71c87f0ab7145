import Foundation

/// Where providers added at run time are found (`custom:<name>`, from the admin API).
public protocol ProviderDirectory: Sendable {
    /// The provider `identifier` names, enabled or not; `nil` when there is none.
    func provider(named identifier: String) async throws -> IdentityProvider?
}
