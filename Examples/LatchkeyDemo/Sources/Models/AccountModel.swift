import Foundation
import Latchkey
import Observation

/// The signed-in screen's state: the device key, a passkey, signing out and deleting the account
/// (with the code the server asks for when the sign-in is not recent). Plain Swift over the SDK:
/// tested on Linux (Tests/AppleSurface), shown by `HomeView`.
@available(iOS 17, macOS 14, *)
@MainActor @Observable
final class AccountModel {
    /// Where the account deletion stands.
    enum Deletion: Equatable {
        case idle
        /// The server wants proof: a code was emailed; ask for it.
        case needsCode
        case deleting
    }

    let client: AuthClient
    private(set) var deletion: Deletion = .idle
    private(set) var deviceKeyEnrolled = false
    private(set) var isWorking = false
    /// What the last action said went wrong, for the screen.
    private(set) var problem: String?

    init(client: AuthClient) {
        self.client = client
    }

    /// Reads what this device holds.
    func refresh() async {
        deviceKeyEnrolled = await client.deviceKeys.isEnrolled
    }

    /// Enrols this device's key (Face ID / Touch ID on the next sign-in).
    func enrolDeviceKey(name: String) async {
        await work { _ = try await self.client.deviceKeys.enroll(name: name) }
        await refresh()
    }

    /// Signs out on this device only, keeping the device key for the next sign-in.
    func signOut() async {
        await work { try await self.client.signOut(scope: .local) }
    }

    /// Deletes the account; when the sign-in is not recent, asks the server to email a code and
    /// waits for it (`deletion == .needsCode`), then call again with the code.
    func deleteAccount(code: String? = nil) async {
        deletion = .deleting
        do {
            try await client.deleteAccount(nonce: code)
            deletion = .idle
            problem = nil
        } catch let error as LatchkeyError where error.isReauthenticationNeeded {
            if code == nil {
                await work { try await self.client.reauthenticate() }
            } else {
                problem = "That code is not the one we sent."
            }
            deletion = .needsCode
        } catch {
            problem = Self.describe(error)
            deletion = .idle
        }
    }

    private func work(_ action: @MainActor () async throws -> Void) async {
        isWorking = true
        defer { isWorking = false }
        do {
            try await action()
            problem = nil
        } catch {
            problem = Self.describe(error)
        }
    }

    /// Shows what went wrong in a call the view made itself (one that needs SwiftUI's presenters).
    func report(_ error: any Error) {
        problem = Self.describe(error)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? LatchkeyError { return error.isUserCancelled ? "Cancelled." : error.message }
        return "\(error)"
    }
}
