import Foundation

/// What custom providers need from storage.
public protocol CustomProviderStore: Sendable {
    /// Every custom provider, oldest first.
    func customProviders() async throws -> [CustomProviderRecord]
    func customProvider(identifier: String) async throws -> CustomProviderRecord?
    /// ``StoreError/duplicate(_:)`` when the identifier is taken.
    func insertCustomProvider(_ provider: CustomProviderRecord) async throws
    /// Replaces the provider with `provider.identifier`; `false` when there is none.
    func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool
    /// `false` when there is none.
    func deleteCustomProvider(identifier: String) async throws -> Bool
}
