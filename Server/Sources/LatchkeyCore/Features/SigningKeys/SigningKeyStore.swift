import Foundation

/// What the signing-key use case needs from storage: the stored keys, adding one, deleting some,
/// each with its audit events in the same transaction.
public protocol SigningKeyStore: AuditWriting {
    /// The stored signing keys, in the order they sign.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Stores a key unless one with its `kid` is stored (`false` then, and `audit` is not
    /// recorded).
    func addSigningKey(_ key: SigningKeyRecord, audit: [AuditEvent]) async throws -> Bool
    /// Deletes the keys with these ids (keys no token signed by can still be valid, or a key an
    /// operator retires) and, when one was deleted, records `audit`; how many were deleted.
    @discardableResult
    func deleteSigningKeys(kids: [String], audit: [AuditEvent]) async throws -> Int
}

extension SigningKeyStore {
    /// Deletes the keys with these ids, with nothing for the audit log.
    public func deleteSigningKeys(kids: [String]) async throws {
        try await deleteSigningKeys(kids: kids, audit: [])
    }
}
