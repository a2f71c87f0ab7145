import Crypto
import Foundation

// Completion-handler forms of the device-key, vault, signer and code-flow calls, for code that
// does not use Swift concurrency. Handlers run on the main actor.

extension AuthClient {
    /// Completion-handler form of ``waitUntilReady()``.
    public nonisolated func waitUntilReady(completion: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in
            await self.waitUntilReady()
            completion()
        }
    }

    /// Completion-handler form of ``signInWithDeviceKey(reason:)``.
    public nonisolated func signInWithDeviceKey(
        reason: String = "Sign in", completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signInWithDeviceKey(reason: reason) }
    }
}

extension DeviceKeys {
    /// Completion-handler form of ``enroll(name:)``.
    public func enroll(name: String, completion: @escaping @MainActor @Sendable (Result<DeviceKey, any Error>) -> Void) {
        completeOnMain(completion) { try await self.enroll(name: name) }
    }

    /// Completion-handler form of ``list()``.
    public func list(completion: @escaping @MainActor @Sendable (Result<[DeviceKey], any Error>) -> Void) {
        completeOnMain(completion) { try await self.list() }
    }

    /// Completion-handler form of ``revoke(id:)``.
    public func revoke(id: UUID, completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void) {
        completeOnMain(completion) { try await self.revoke(id: id) }
    }

    /// Completion-handler form of ``isEnrolled``.
    public func isEnrolled(completion: @escaping @MainActor @Sendable (Bool) -> Void) {
        Task { @MainActor in completion(await self.isEnrolled) }
    }
}

extension KeyVault {
    /// Completion-handler form of ``signUp(keyPair:pin:)``.
    public nonisolated func signUp(
        keyPair: Curve25519.Signing.PrivateKey, pin: String,
        completion: @escaping @MainActor @Sendable (Result<Curve25519.Signing.PublicKey, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signUp(keyPair: keyPair, pin: pin) }
    }

    /// Completion-handler form of ``signIn(pin:)``.
    public nonisolated func signIn(
        pin: String, completion: @escaping @MainActor @Sendable (Result<Curve25519.Signing.PublicKey, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signIn(pin: pin) }
    }

    /// Completion-handler form of ``userKeyPair(pin:)``.
    public nonisolated func userKeyPair(
        pin: String, completion: @escaping @MainActor @Sendable (Result<Curve25519.Signing.PrivateKey, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.userKeyPair(pin: pin) }
    }

    /// Completion-handler form of ``sign(_:pin:)``.
    public nonisolated func sign(
        _ message: Data, pin: String, completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.sign(message, pin: pin) }
    }

    /// Completion-handler form of ``changePIN(from:to:)``.
    public nonisolated func changePIN(
        from oldPIN: String, to newPIN: String, completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.changePIN(from: oldPIN, to: newPIN) }
    }

    /// Completion-handler form of ``reset()``.
    public nonisolated func reset(completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void) {
        completeOnMain(completion) { try await self.reset() }
    }

    /// Completion-handler form of ``isSignedUp``.
    public nonisolated func isSignedUp(completion: @escaping @MainActor @Sendable (Result<Bool, any Error>) -> Void) {
        completeOnMain(completion) { try await self.isSignedUp }
    }
}

extension EmbeddedSigner {
    /// Completion-handler form of ``refresh()``.
    public nonisolated func refresh(completion: @escaping @MainActor @Sendable (Result<State, any Error>) -> Void) {
        completeOnMain(completion) { try await self.refresh() }
    }

    /// Completion-handler form of ``configure(recovery:)``.
    public nonisolated func configure(
        recovery: Recovery, completion: @escaping @MainActor @Sendable (Result<Curve25519.Signing.PublicKey, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.configure(recovery: recovery) }
    }

    /// Completion-handler form of ``recover(_:)``.
    public nonisolated func recover(
        _ recovery: Recovery, completion: @escaping @MainActor @Sendable (Result<Curve25519.Signing.PublicKey, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.recover(recovery) }
    }

    /// Completion-handler form of ``setRecovery(_:)``.
    public nonisolated func setRecovery(_ recovery: Recovery, completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void)
    {
        completeOnMain(completion) { try await self.setRecovery(recovery) }
    }

    /// Completion-handler form of ``sign(_:)``.
    public nonisolated func sign(_ message: Data, completion: @escaping @MainActor @Sendable (Result<Data, any Error>) -> Void) {
        completeOnMain(completion) { try await self.sign(message) }
    }

    /// Completion-handler form of ``forgetOnThisDevice()``.
    public nonisolated func forgetOnThisDevice(completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void) {
        completeOnMain(completion) { try await self.forgetOnThisDevice() }
    }
}

extension EmailCodeFlow {
    /// Completion-handler form of ``sendCode(to:)``.
    public nonisolated func sendCode(
        to email: String, completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.sendCode(to: email) }
    }

    /// Completion-handler form of ``submit(code:)``.
    public nonisolated func submit(code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.submit(code: code) }
    }
}
