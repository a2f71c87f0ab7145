import Foundation
import LatchkeyAPI

extension AuthService {
    /// Wrong PINs after which a vault's share is destroyed (NIST SP 800-63B: at most 10).
    public static let maxVaultAttempts = 10
    /// Vaults one user may keep (one per device, in practice).
    static let maxVaults = 20

    /// `POST /vaults`: a new server-assisted PIN vault for the signed-in user, answered with the
    /// share the device combines with the PIN.
    public func createVault(_ request: CreateVaultRequest, principal: Principal) async throws -> KeyVault {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "A PIN vault needs a user session") }
        try await requireAAL2(principal, to: "create a PIN vault")
        let verifier = try Self.verifier(request.verifier)
        let now = time.now()
        let id = UUID()
        let share = SecureRandom.bytes(32)
        let vault = KeyVaultRecord(
            id: id, userID: principal.user.id, verifierMAC: vaultBox.mac(Self.macInput(id, verifier)),
            sealedShare: try vaultBox.seal(share, context: id.uuidString.lowercased()), createdAt: now, updatedAt: now)
        guard try await store.createVault(vault, limit: Self.maxVaults) else {
            throw AuthError.unprocessable("A user can keep at most \(Self.maxVaults) PIN vaults")
        }
        return vault.wire(share: share, maxAttempts: Self.maxVaultAttempts)
    }

    /// `GET /vaults`: the user's vaults, without their shares.
    public func vaults(principal: Principal) async throws -> KeyVaultList {
        KeyVaultList(vaults: try await store.vaults(userID: principal.user.id).map { $0.wire(maxAttempts: Self.maxVaultAttempts) })
    }

    /// `POST /vaults/{id}/unlock`: the share for the right PIN verifier. Every attempt is counted
    /// before it is compared; the tenth wrong one in a row destroys the share for good.
    public func unlockVault(id raw: String, _ request: UnlockVaultRequest, principal: Principal, client: ClientInfo) async throws
        -> KeyVault
    {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "Unlocking a PIN vault needs a user session") }
        try await requireAAL2(principal, to: "unlock a PIN vault")
        try await limiter.hit("ip:vault:\(client.ip)", configuration.rateLimits.verifyPerIP)
        guard let id = UUID(uuidString: raw) else { throw AuthError(.notFound, "PIN vault not found") }
        let verifier = try Self.verifier(request.verifier)
        let expected = vaultBox.mac(Self.macInput(id, verifier))
        let outcome = try await store.attemptVaultUnlock(
            id: id, userID: principal.user.id, maxAttempts: Self.maxVaultAttempts, now: time.now(),
            check: { ConstantTime.equal($0.verifierMAC, expected) })
        switch outcome {
        case .notFound:
            throw AuthError(.notFound, "PIN vault not found")
        case .locked:
            throw AuthError(.vaultLocked, "Too many wrong PINs: this vault is locked for good and must be recovered")
        case .wrong(let remaining):
            var error = AuthError(.invalidPIN, "Wrong PIN")
            error.attemptsRemaining = remaining
            throw error
        case .unlocked(let vault):
            guard let sealed = vault.sealedShare else { throw AuthError(.vaultLocked, "This vault is locked") }
            let share = try vaultBox.open(sealed, context: vault.id.uuidString.lowercased())
            return vault.wire(share: share, maxAttempts: Self.maxVaultAttempts)
        }
    }

    /// `DELETE /vaults/{id}`.
    public func deleteVault(id raw: String, principal: Principal) async throws {
        try await requireAAL2(principal, to: "delete a PIN vault")
        guard let id = UUID(uuidString: raw), try await store.deleteVault(id: id, userID: principal.user.id) else {
            throw AuthError(.notFound, "PIN vault not found")
        }
    }

    /// A verifier: exactly 32 bytes, base64url.
    static func verifier(_ raw: String?) throws -> [UInt8] {
        guard let raw, let bytes = Base64URL.decode(raw), bytes.count == 32 else {
            throw AuthError.validation("verifier must be 32 bytes, base64url")
        }
        return Array(bytes)
    }

    static func macInput(_ id: UUID, _ verifier: [UInt8]) -> [UInt8] {
        Array(id.uuidString.lowercased().utf8) + verifier
    }
}
