import Foundation
import Synchronization

extension InMemoryStore: DeviceKeyStore, DeviceKeySignInStore {
    public func createDeviceKey(_ key: DeviceKeyRecord, limit: Int, audit events: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard !state.deviceKeys.contains(where: { $0.id == key.id }),
                state.deviceKeys.filter({ $0.userID == key.userID }).count < limit
            else { return false }
            state.deviceKeys.append(key)
            state.events += events
            return true
        }
    }

    public func deviceKeys(userID: UUID) async throws -> [DeviceKeyRecord] {
        state.withLock { state in state.deviceKeys.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt } }
    }

    public func deleteDeviceKey(id: UUID, userID: UUID, audit events: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard let index = state.deviceKeys.firstIndex(where: { $0.id == id && $0.userID == userID }) else { return false }
            state.deviceKeys.remove(at: index)
            state.assertions[id] = nil
            state.events += events
            return true
        }
    }

    public func deviceKey(id: UUID) async throws -> DeviceKeyRecord? {
        state.withLock { $0.deviceKeys.first { $0.id == id } }
    }

    public func redeemAssertion(
        keyID: UUID, jti: String, expiresAt: Date, session: SessionRecord, user: UserRecord, audit events: [AuditEvent]
    ) async throws -> AssertionRedemption {
        try state.withLock { state in
            guard let index = state.deviceKeys.firstIndex(where: { $0.id == keyID && $0.userID == user.id }) else { return .keyGone }
            guard state.assertions[keyID]?[jti] == nil else { return .replayed }
            try state.write(user)
            state.assertions[keyID, default: [:]][jti] = expiresAt
            state.deviceKeys[index].lastUsedAt = session.createdAt
            state.deviceKeys[index].sessionID = session.id
            state.sessions[session.id] = session
            state.events += events
            return .redeemed
        }
    }
}
