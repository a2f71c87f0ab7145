import Foundation
import LatchkeyAPI

extension Codes {
    /// A new user with an email identity, not yet stored.
    public func newUser(email: String, passwordHash: String?, data: [String: JSONValue], confirmed: Bool) -> (UserRecord, IdentityRecord) {
        let now = time.now()
        let id = records.random.uuid()
        var metadata = data
        if confirmed { metadata["email_verified"] = true }
        let user = UserRecord(
            id: id, aud: settings.audience, role: "authenticated", email: email, passwordHash: passwordHash,
            emailConfirmedAt: confirmed ? now : nil, appMetadata: ["provider": "email", "providers": ["email"]],
            userMetadata: metadata, createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: records.random.orderedUUID(at: now), userID: id, provider: "email", providerID: id.lowercasedString,
            identityData: [
                "sub": .string(id.lowercasedString), "email": .string(email), "email_verified": .bool(confirmed),
                "phone_verified": false,
            ], email: email, createdAt: now, updatedAt: now)
        return (user, identity)
    }

    /// A new user with a phone identity, not yet stored.
    public func newPhoneUser(phone: String, passwordHash: String?, data: [String: JSONValue], confirmed: Bool) -> (
        UserRecord, IdentityRecord
    ) {
        let now = time.now()
        let id = records.random.uuid()
        let user = UserRecord(
            id: id, aud: settings.audience, role: "authenticated", email: nil, phone: phone, passwordHash: passwordHash,
            phoneConfirmedAt: confirmed ? now : nil, appMetadata: ["provider": "phone", "providers": ["phone"]], userMetadata: data,
            createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: records.random.orderedUUID(at: now), userID: id, provider: "phone", providerID: id.lowercasedString,
            identityData: [
                "sub": .string(id.lowercasedString), "phone": .string(phone), "email_verified": false,
                "phone_verified": .bool(confirmed),
            ], email: nil, createdAt: now, updatedAt: now)
        return (user, identity)
    }

    /// Stores a new user with its first code and the messages carrying it, recording `audit`, by
    /// default the sign-up (`user_created` when an operator acts) and the code sent; `false` when
    /// the address or number was taken meanwhile. The `before-user-created` hook is asked first
    /// unless `askingHook` is false (an operator's `POST /admin/users`, which GoTrue does not ask
    /// it about either).
    public func insert(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord] = [],
        audit explicit: [AuditEvent]? = nil, limits: [RateLimitCounter] = [], askingHook: Bool = true
    ) async throws -> Bool {
        if askingHook { try await records.hooks.beforeUserCreated(user, identities: [identity]) }
        let action: AuditAction = AuditContext.current.operatorName != nil ? .userCreated : .userSignedUp
        let audit =
            explicit
            ?? [events.event(action, user: user, details: ["provider": .string(identity.provider)])]
            + sentEvents(token.map { [$0] } ?? [], user: user)
        do {
            try await store.createUser(user, identity: identity, token: token, outbox: outbox, audit: audit, limits: limits)
            if !outbox.isEmpty { records.notices.notify() }
            return true
        } catch let error as StoreError where error.isDuplicate {
            return false
        }
    }
}
