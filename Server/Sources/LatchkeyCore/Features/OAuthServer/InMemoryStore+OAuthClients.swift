import Foundation
import Synchronization

extension InMemoryStore: OAuthClientStore {
    public func oauthClients() async throws -> [OAuthClientRecord] {
        state.withLock { state in
            state.oauthClients.values.filter { state.deletedOAuthClients[$0.id] == nil }.sorted {
                ($0.createdAt, $0.id.uuidString) > ($1.createdAt, $1.id.uuidString)
            }
        }
    }

    public func oauthClient(id: UUID) async throws -> OAuthClientRecord? {
        state.withLock { $0.deletedOAuthClients[id] == nil ? $0.oauthClients[id] : nil }
    }

    public func insertOAuthClient(_ client: OAuthClientRecord, audit: [AuditEvent]) async throws {
        try state.withLock { state in
            guard state.oauthClients[client.id] == nil else { throw StoreError.duplicate("oauth_clients_pkey") }
            state.oauthClients[client.id] = client
            state.events += audit
        }
    }

    public func updateOAuthClient(_ client: OAuthClientRecord, ifUpdatedAt seen: Date, audit: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard let stored = state.oauthClients[client.id], state.deletedOAuthClients[client.id] == nil, stored.updatedAt == seen
            else { return false }
            state.oauthClients[client.id] = client
            state.events += audit
            return true
        }
    }

    public func deleteOAuthClient(id: UUID, at date: Date, audit: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard state.oauthClients[id] != nil, state.deletedOAuthClients[id] == nil else { return false }
            state.deletedOAuthClients[id] = date
            for index in state.oauthConsents.indices where state.oauthConsents[index].clientID == id {
                state.oauthConsents[index].revokedAt = state.oauthConsents[index].revokedAt ?? date
            }
            state.endOAuthGrants(clientID: id, userID: nil)
            state.events += audit
            return true
        }
    }
}
