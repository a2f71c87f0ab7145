import Foundation

/// What managing device keys needs from storage. (The sign-in grant's needs are
/// ``DeviceKeySignInStore``.)
public protocol DeviceKeyStore: Sendable {
    /// Stores the key and records `audit`, unless the user has `limit` keys already (`false`
    /// then, nothing stored): counted in the same transaction, so concurrent registrations
    /// cannot pass the cap together.
    func createDeviceKey(_ key: DeviceKeyRecord, limit: Int, audit: [AuditEvent]) async throws -> Bool
    /// The user's device keys, oldest first.
    func deviceKeys(userID: UUID) async throws -> [DeviceKeyRecord]
    /// Deletes the user's key and records `audit`; `false` (nothing recorded) when the user has
    /// no such key.
    func deleteDeviceKey(id: UUID, userID: UUID, audit: [AuditEvent]) async throws -> Bool
}
