import Foundation
import Synchronization

extension InMemoryStore: ProviderGrantStore {
    public func saveProviderGrant(_ grant: ProviderGrantRecord) async throws {
        try state.withLock { state in
            guard state.users[grant.userID] != nil else { throw StoreError.notFound("user \(grant.userID)") }
            state.providerGrants.removeAll {
                $0.userID == grant.userID && $0.provider == grant.provider && $0.subject == grant.subject
            }
            state.providerGrants.append(grant)
        }
    }

    public func providerGrants(userID: UUID) async throws -> [ProviderGrantRecord] {
        state.withLock { state in state.providerGrants.filter { $0.userID == userID } }
    }
}
