import Foundation
import Latchkey
import Observation

/// The halfway screen of a user with a second factor: ``AuthModel`` lists the user's factors and
/// runs their flow (an authenticator app's code, a code sent to the phone, a security key, or a
/// recovery code in their place); the phase then moves to `.signedIn`.
@available(iOS 17, macOS 14, *)
@MainActor @Observable
final class SecondFactorModel {
    let auth: AuthModel
    private(set) var isWorking = false
    private(set) var problem: String?
    /// Whether the code field takes a recovery code instead of a factor's code.
    var usesRecoveryCode = false

    init(auth: AuthModel) {
        self.auth = auth
    }

    /// Whether a typed code can answer: an authenticator app, or a phone whose code was sent.
    var takesCode: Bool {
        usesRecoveryCode || auth.secondFactors.contains { $0.factorType == .totp } || auth.secondFactorChallenge?.takesCode == true
    }
    var phone: Factor? { auth.secondFactors.first { $0.factorType == .phone } }
    var securityKey: Factor? { auth.secondFactors.first { $0.factorType == .webauthn } }

    /// Verifies the typed code: a recovery code, or the open challenge's (an app's needs none).
    func submit(_ code: String) async {
        await run { usesRecoveryCode ? try await auth.verifyRecoveryCode(code) : try await auth.verify(code: code) }
    }

    /// Sends a code to the user's phone factor.
    func sendCode() async {
        guard let phone else { return }
        await run { try await auth.challenge(factor: phone) }
    }

    /// Asks for the user's security key (the system sheet).
    func useSecurityKey() async {
        #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
            await run { try await auth.verifyWithSecurityKey() }
        #endif
    }

    private func run(_ work: () async throws -> Void) async {
        isWorking = true
        defer { isWorking = false }
        do {
            try await work()
            problem = nil
        } catch {
            problem = AccountModel.describe(error)
        }
    }
}
