import Foundation
import Synchronization

extension InMemoryStore: CustomProviderStore {
    public func customProviders() async throws -> [CustomProviderRecord] {
        state.withLock { $0.customProviders.sorted { ($0.createdAt, $0.identifier) < ($1.createdAt, $1.identifier) } }
    }

    public func customProvider(identifier: String) async throws -> CustomProviderRecord? {
        state.withLock { $0.customProviders.first { $0.identifier == identifier } }
    }

    public func insertCustomProvider(_ provider: CustomProviderRecord) async throws {
        try state.withLock { state in
            guard !state.customProviders.contains(where: { $0.identifier == provider.identifier }) else {
                throw StoreError.duplicate("custom_oauth_providers_identifier_key")
            }
            state.customProviders.append(provider)
        }
    }

    public func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool {
        state.withLock { state in
            guard let index = state.customProviders.firstIndex(where: { $0.identifier == provider.identifier }) else { return false }
            state.customProviders[index] = provider
            return true
        }
    }

    public func deleteCustomProvider(identifier: String) async throws -> Bool {
        state.withLock { state in
            let before = state.customProviders.count
            state.customProviders.removeAll { $0.identifier == identifier }
            return state.customProviders.count < before
        }
    }
}
