import Foundation
import LatchkeyAPI

/// Listing, renaming and deleting passkeys: by their owner (`/passkeys`, `/passkeys/{id}`) and by
/// an operator (`/admin/users/{id}/passkeys…`).
extension Passkeys {
    static let notFound: AuthError = {
        var error = AuthError.validation("Passkey not found")
        error.status = 404
        return error
    }()

    /// `GET /passkeys`: the signed-in user's passkeys, oldest first.
    public func list(_ principal: Principal) async throws -> [Passkey] {
        guard settings.enabled else { throw Self.disabled }
        return try await store.passkeys(userID: principal.user.id).map(\.wire)
    }

    /// `PATCH /passkeys/{id}`: a new name, at most 120 bytes (GoTrue's words say characters).
    public func rename(_ rawID: String, _ request: PasskeyUpdateRequest, principal: Principal, client: ClientInfo) async throws
        -> Passkey
    {
        guard settings.enabled else { throw Self.disabled }
        guard let id = UUID(text: rawID) else { throw Self.notFound }
        let name = request.friendlyName ?? ""
        guard !name.isEmpty else { throw AuthError.validation("friendly_name is required") }
        guard name.utf8.count <= 120 else { throw AuthError.validation("friendly_name must be 120 characters or less") }
        let event = records.events.event(
            .passkeyUpdated, user: principal.user, details: ["passkey_id": .string(id.lowercasedString)], client: client)
        guard
            let renamed = try await store.renamePasskey(
                id: id, userID: principal.user.id, name: name, at: records.time.now(), audit: [event])
        else { throw Self.notFound }
        return renamed.wire
    }

    /// `DELETE /passkeys/{id}`: at `aal2` for a user with a second factor.
    public func delete(_ rawID: String, principal: Principal, client: ClientInfo) async throws {
        guard settings.enabled else { throw Self.disabled }
        try await requireManagement(principal)
        guard let id = UUID(text: rawID) else { throw Self.notFound }
        let event = records.events.event(
            .passkeyDeleted, user: principal.user, details: ["passkey_id": .string(id.lowercasedString)], client: client)
        guard try await store.deletePasskey(id: id, userID: principal.user.id, audit: [event]) else { throw Self.notFound }
    }

    /// `GET /admin/users/{id}/passkeys` (answers whether passkeys are on or not, as GoTrue).
    public func passkeys(ofUser rawUser: String) async throws -> [Passkey] {
        let user = try await existingUser(rawUser)
        return try await store.passkeys(userID: user.id).map(\.wire)
    }

    /// `DELETE /admin/users/{id}/passkeys/{pid}`: an operator removes a user's passkey (a lost
    /// phone); the operator is the event's actor.
    public func delete(passkeyID rawID: String, ofUser rawUser: String) async throws {
        let user = try await existingUser(rawUser)
        guard let id = UUID(text: rawID) else { throw Self.notFound }
        let event = records.events.event(
            .passkeyDeleted, user: user,
            details: ["user_id": .string(user.id.lowercasedString), "passkey_id": .string(id.lowercasedString)])
        guard try await store.deletePasskey(id: id, userID: user.id, audit: [event]) else { throw Self.notFound }
    }

    func existingUser(_ raw: String) async throws -> UserRecord {
        guard let id = UUID(text: raw), let user = try await store.user(id: id) else { throw AuthError.adminUserNotFound }
        return user
    }
}

extension PasskeyRecord {
    /// What the API shows of a passkey.
    public var wire: Passkey {
        Passkey(
            id: id, friendlyName: friendlyName.isEmpty ? nil : friendlyName, createdAt: createdAt, lastUsedAt: lastUsedAt,
            backupEligible: backupEligible, backedUp: backedUp)
    }
}
