import Foundation

@testable import LatchkeyCore

/// Callers and factor sets for use-case tests that run without HTTP.
enum TestPrincipals {
    /// A signed-in user with a session at `aal`.
    static func signedIn(aal: String = "aal1", now: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> Principal {
        let user = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
            userMetadata: [:], createdAt: now, updatedAt: now)
        let session = SessionRecord(id: UUID(), userID: user.id, aal: aal, amr: [], refreshSalt: [], createdAt: now, updatedAt: now)
        return Principal(claims: AccessTokenClaims(sub: user.id.uuidString), user: user, session: session, isAdmin: false)
    }

    /// A user's factors, fixed for a test: none, or one verified.
    struct Factors: FactorReading {
        var verified = false

        func factors(userID: UUID) async throws -> [FactorRecord] {
            guard verified else { return [] }
            let now = Date(timeIntervalSince1970: 0)
            return [
                FactorRecord(
                    id: UUID(), userID: userID, friendlyName: nil, status: .verified, sealedSecret: "", createdAt: now, updatedAt: now)
            ]
        }
    }
}
