import Foundation
import LatchkeyAPI

/// Server-assisted PIN vaults (`/vaults`): the server keeps a random share, sealed under the
/// server secret, and a MAC of the PIN verifier; the right verifier releases the share, and the
/// tenth wrong one in a row destroys it (NIST SP 800-63B: at most 10).
public struct KeyVaults: Sendable {
    /// Wrong PINs after which a vault's share is destroyed.
    public static let maxAttempts = 10
    /// Vaults one user may keep (one per device, in practice).
    public static let maxVaults = 20
    /// Unlock attempts that lose a race with another attempt on the same vault and read again.
    static let maxRaces = 32

    let store: any KeyVaultStore
    let box: SecretBox
    let gate: SecondFactorGate
    let limiter: RateLimiter
    let unlockLimit: RateLimit
    let time: any TimeSource
    let random: any RandomSource

    /// - Parameters:
    ///   - serverSecret: the shares are sealed, and the verifiers MACed, under a key derived from it.
    ///   - unlockLimit: unlock attempts per client IP (the `/verify` limit).
    public init(
        store: any KeyVaultStore, serverSecret: [UInt8], gate: SecondFactorGate, limiter: RateLimiter, unlockLimit: RateLimit,
        time: any TimeSource, random: any RandomSource
    ) {
        self.store = store
        self.box = SecretBox(serverSecret: serverSecret, purpose: "latchkey vault share v1")
        self.gate = gate
        self.limiter = limiter
        self.unlockLimit = unlockLimit
        self.time = time
        self.random = random
    }

    /// `POST /vaults`: a new vault for the signed-in user, answered with the share the device
    /// combines with the PIN.
    public func create(_ request: CreateVaultRequest, principal: Principal) async throws -> KeyVault {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "A PIN vault needs a user session") }
        try await gate.require(principal, to: "create a PIN vault")
        let verifier = try Self.verifier(request.verifier)
        let now = time.now()
        let id = random.uuid()
        let share = random.bytes(32)
        let vault = KeyVaultRecord(
            id: id, userID: principal.user.id, verifierMAC: box.mac(Self.macInput(id, verifier)),
            sealedShare: try box.seal(share, context: id.lowercasedString), createdAt: now, updatedAt: now)
        guard try await store.createVault(vault, limit: Self.maxVaults) else {
            throw AuthError.unprocessable("A user can keep at most \(Self.maxVaults) PIN vaults")
        }
        return vault.wire(share: share, maxAttempts: Self.maxAttempts)
    }

    /// `GET /vaults`: the user's vaults, without their shares.
    public func list(principal: Principal) async throws -> KeyVaultList {
        KeyVaultList(vaults: try await store.vaults(userID: principal.user.id).map { $0.wire(maxAttempts: Self.maxAttempts) })
    }

    /// `POST /vaults/{id}/unlock`: the share for the right PIN verifier. No answer leaves before
    /// the attempt is recorded: a wrong PIN is counted (the tenth in a row destroys the share),
    /// a right one resets the count. An attempt that loses a race with another on the same vault
    /// reads the vault again and decides again, so concurrent guesses are each counted.
    public func unlock(id raw: String, _ request: UnlockVaultRequest, principal: Principal, client: ClientInfo) async throws
        -> KeyVault
    {
        guard principal.session != nil else { throw AuthError(.noAuthorization, "Unlocking a PIN vault needs a user session") }
        try await gate.require(principal, to: "unlock a PIN vault")
        try await limiter.hit("ip:vault:\(client.limitKey)", unlockLimit)
        guard let id = UUID(text: raw) else { throw Self.notFound }
        let expected = box.mac(Self.macInput(id, try Self.verifier(request.verifier)))
        for _ in 0..<Self.maxRaces {
            guard let vault = try await store.vault(id: id, userID: principal.user.id) else { throw Self.notFound }
            guard let sealed = vault.sealedShare else { throw Self.locked }
            let right = ConstantTime.equal(vault.verifierMAC, expected)
            let attempts = right ? 0 : vault.failedAttempts + 1
            let outcome: VaultAttempt = right ? .unlocked : attempts >= Self.maxAttempts ? .destroyed : .wrong
            guard
                try await store.recordVaultAttempt(
                    id: id, userID: principal.user.id, seenFailedAttempts: vault.failedAttempts, outcome: outcome, now: time.now())
            else { continue }
            switch outcome {
            case .unlocked:
                var opened = vault
                opened.failedAttempts = 0
                let share = try box.open(sealed, context: id.lowercasedString)
                return opened.wire(share: share, maxAttempts: Self.maxAttempts)
            case .destroyed:
                throw Self.locked
            case .wrong:
                var error = AuthError(.invalidPIN, "Wrong PIN")
                error.attemptsRemaining = Self.maxAttempts - attempts
                throw error
            }
        }
        throw AuthError.requestRateLimit
    }

    /// `DELETE /vaults/{id}`.
    public func delete(id raw: String, principal: Principal) async throws {
        try await gate.require(principal, to: "delete a PIN vault")
        guard let id = UUID(text: raw), try await store.deleteVault(id: id, userID: principal.user.id) else {
            throw Self.notFound
        }
    }

    static let notFound = AuthError(.notFound, "PIN vault not found")
    static let locked = AuthError(.vaultLocked, "Too many wrong PINs: this vault is locked for good and must be recovered")

    /// A verifier: exactly 32 bytes, base64url.
    static func verifier(_ raw: String?) throws -> [UInt8] {
        guard let raw, let bytes = Base64URL.decode(raw), bytes.count == 32 else {
            throw AuthError.validation("verifier must be 32 bytes, base64url")
        }
        return bytes
    }

    static func macInput(_ id: UUID, _ verifier: [UInt8]) -> [UInt8] {
        Array(id.lowercasedString.utf8) + verifier
    }
}
