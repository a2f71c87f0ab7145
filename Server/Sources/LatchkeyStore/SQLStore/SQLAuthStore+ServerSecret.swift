import Foundation
import LatchkeyCore

extension SQLAuthStore {
    public func claimServerSecretVerifier(_ verifier: String) async throws -> String {
        try await database.transaction { db in
            try await db.query(
                "INSERT INTO server_settings (name, value) VALUES ('server_secret_verifier', ?) ON CONFLICT (name) DO NOTHING",
                [.text(verifier)])
            let stored = try await db.query("SELECT value FROM server_settings WHERE name = 'server_secret_verifier'", [])
            return stored.first?.string("value") ?? verifier
        }
    }
}
