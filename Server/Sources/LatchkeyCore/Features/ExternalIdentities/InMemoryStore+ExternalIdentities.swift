import Foundation
import Synchronization

extension InMemoryStore: ExternalIdentityStore {
    public func identity(provider: String, providerID: String) async throws -> (identity: IdentityRecord, user: UserRecord)? {
        state.withLock { state in
            guard let identity = state.identities.first(where: { $0.provider == provider && $0.providerID == providerID }),
                let user = state.users[identity.userID]
            else { return nil }
            return (identity, user)
        }
    }

    public func applyExternalSignIn(_ write: ExternalSignInWrite) async throws {
        try state.withLock { state in
            var next = state
            if let held = write.held { try next.hold(held) }
            switch write.identity {
            case .insert(let identity):
                guard !next.identities.contains(where: { $0.provider == identity.provider && $0.providerID == identity.providerID })
                else { throw StoreError.duplicate("identities_provider_provider_id_key") }
                next.identities.append(identity)
            case .update(let identity):
                guard let index = next.identities.firstIndex(where: { $0.id == identity.id }) else {
                    throw StoreError.conflict("identity \(identity.id) is gone")
                }
                next.identities[index] = identity
            }
            switch write.user {
            case .insert(let user): try next.insert(user, identity: nil)
            case .update(let user): try next.write(user)
            }
            if let session = write.session { next.sessions[session.id] = session }
            if let flow = write.flow { next.flows.append(flow) }
            next.events += write.audit
            next.outbox += write.outbox
            state = next
        }
    }

    public func identities(userID: UUID) async throws -> [IdentityRecord] {
        state.withLock { $0.identities.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt } }
    }

    public func unlinkIdentity(id: UUID, user: UserRecord, held: SessionRecord?, audit events: [AuditEvent], outbox: [OutboxRecord])
        async throws -> Bool
    {
        try state.withLock { state in
            let own = state.identities.filter { $0.userID == user.id }
            guard own.contains(where: { $0.id == id }), own.count > 1 else { return false }
            if let held { try state.hold(held) }
            try state.write(user)
            state.identities.removeAll { $0.id == id }
            state.events += events
            state.outbox += outbox
            return true
        }
    }
}

extension InMemoryStore.State {
    /// ``StoreError/conflict(_:)`` unless `session` still exists at its level.
    func hold(_ session: SessionRecord) throws {
        guard let current = sessions[session.id], current.userID == session.userID, current.aal == session.aal else {
            throw StoreError.conflict("session \(session.id) ended or changed level")
        }
    }
}
