import Foundation

/// What the device-key sign-in grant needs from storage: the key an assertion names, its user,
/// and the redemption written in one step.
public protocol DeviceKeySignInStore: UserReading, AuditWriting {
    /// The key with this id, whoever owns it.
    func deviceKey(id: UUID) async throws -> DeviceKeyRecord?
    /// In one transaction: remembers the assertion `jti` of key `keyID` until `expiresAt` and,
    /// when it was not seen before and the key (of `user`) still exists, records the key's use and
    /// stores the session, the signed-in user and `audit`; the key now belongs to the new
    /// session's device. The user is written only at the version it was read at
    /// (``StoreError/conflict(_:)`` otherwise, and nothing is written).
    func redeemAssertion(
        keyID: UUID, jti: String, expiresAt: Date, session: SessionRecord, user: UserRecord, audit: [AuditEvent]
    ) async throws -> AssertionRedemption
}
