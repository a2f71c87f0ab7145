import Foundation
import Synchronization

extension InMemoryStore: PasskeyStore {
    public func createWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord) async throws {
        state.withLock { $0.webAuthnChallenges[challenge.id] = challenge }
    }

    public func spendWebAuthnChallenge(id: UUID, ceremony: WebAuthnChallengeRecord.Ceremony, userID: UUID?) async throws
        -> WebAuthnChallengeRecord?
    {
        state.withLock { state in
            guard let challenge = state.webAuthnChallenges[id], challenge.ceremony == ceremony, challenge.userID == userID else {
                return nil
            }
            state.webAuthnChallenges[id] = nil
            return challenge
        }
    }

    public func passkeys(userID: UUID) async throws -> [PasskeyRecord] {
        state.withLock {
            $0.passkeys.filter { $0.userID == userID }.sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
        }
    }

    public func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? {
        state.withLock { $0.passkeys.first { $0.credentialID == credentialID } }
    }

    public func createPasskey(_ passkey: PasskeyRecord, limit: Int, audit events: [AuditEvent]) async throws -> Bool {
        try state.withLock { state in
            guard !state.passkeys.contains(where: { $0.credentialID == passkey.credentialID }) else {
                throw StoreError.duplicate("webauthn_credentials_credential_id_key")
            }
            guard state.passkeys.filter({ $0.userID == passkey.userID }).count < limit else { return false }
            state.passkeys.append(passkey)
            state.events += events
            return true
        }
    }

    public func renamePasskey(id: UUID, userID: UUID, name: String, at date: Date, audit events: [AuditEvent]) async throws
        -> PasskeyRecord?
    {
        state.withLock { state in
            guard let index = state.passkeys.firstIndex(where: { $0.id == id && $0.userID == userID }) else { return nil }
            state.passkeys[index].friendlyName = name
            state.passkeys[index].updatedAt = date
            state.events += events
            return state.passkeys[index]
        }
    }

    public func deletePasskey(id: UUID, userID: UUID, audit events: [AuditEvent]) async throws -> Bool {
        state.withLock { state in
            guard let index = state.passkeys.firstIndex(where: { $0.id == id && $0.userID == userID }) else { return false }
            state.passkeys.remove(at: index)
            state.events += events
            return true
        }
    }

    public func recordPasskeySignIn(
        passkeyID: UUID, seenCount: UInt32, newCount: UInt32, backedUp: Bool, at date: Date, session: SessionRecord, user: UserRecord,
        audit events: [AuditEvent]
    ) async throws -> Bool {
        try state.withLock { state in
            guard let index = state.passkeys.firstIndex(where: { $0.id == passkeyID && $0.userID == user.id }),
                state.passkeys[index].signCount == seenCount
            else { return false }
            try state.write(user)
            state.passkeys[index].signCount = newCount
            state.passkeys[index].backedUp = backedUp
            state.passkeys[index].lastUsedAt = date
            state.passkeys[index].updatedAt = date
            state.sessions[session.id] = session
            state.events += events
            return true
        }
    }
}
