import Foundation
import LatchkeyAPI

extension AuthService {
    /// With reauthentication required, a sensitive change from a session older than 24 hours (or
    /// from no session) needs a fresh `nonce`; it is spent here.
    func checkReauthentication(_ nonce: String?, principal: Principal) async throws {
        guard configuration.password.requireReauthentication, !principal.isAdmin else { return }
        if let session = principal.session, time.now().timeIntervalSince(session.createdAt) < 86400 { return }
        guard let nonce, !nonce.isEmpty else { throw AuthError.reauthenticationNeeded }
        try await consumeNonce(nonce, user: principal.user)
    }

    /// Spends a reauthentication `nonce`, or throws `reauthentication_not_valid`.
    func consumeNonce(_ nonce: String, user: UserRecord) async throws {
        guard nonce.utf8.count <= 16 else { throw AuthError.reauthenticationNotValid }
        let outcome = try await store.redeem(
            CodeRedemption(
                selector: .newest(userID: user.id, kinds: [.reauthentication]), proof: .code(nonce), completion: .nonce,
                maxAttempts: configuration.otp.maxAttempts, client: nil, records: records))
        guard case .redeemed = outcome else { throw AuthError.reauthenticationNotValid }
    }
}
