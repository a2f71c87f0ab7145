import Foundation
import Latchkey
import Observation

/// The halfway screen of a user with an authenticator app: the code from it raises the session
/// to `aal2` (``AuthModel`` then moves to `.signedIn`).
@available(iOS 17, macOS 14, *)
@MainActor @Observable
final class SecondFactorModel {
    let client: AuthClient
    private(set) var isWorking = false
    private(set) var problem: String?

    init(client: AuthClient) {
        self.client = client
    }

    /// Verifies `code` with the user's first authenticator app.
    func submit(_ code: String) async {
        isWorking = true
        defer { isWorking = false }
        do {
            guard let factor = try await client.mfa.listFactors().totp.first else {
                problem = "No authenticator app is set up for this account."
                return
            }
            _ = try await client.mfa.challengeAndVerify(factorID: factor.id, code: code)
            problem = nil
        } catch {
            problem = AccountModel.describe(error)
        }
    }
}
