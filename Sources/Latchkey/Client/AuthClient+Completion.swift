import Foundation

/// Completion-handler forms of the async calls, for code that does not use Swift concurrency.
/// Handlers run on an arbitrary thread.
extension AuthClient {
    nonisolated func complete<T: Sendable>(
        _ completion: @escaping @Sendable (Result<T, any Error>) -> Void, _ work: @escaping @Sendable () async throws -> T
    ) {
        Task {
            do { completion(.success(try await work())) } catch { completion(.failure(error)) }
        }
    }

    /// Completion-handler form of ``signUp(email:password:data:redirectTo:)``.
    public nonisolated func signUp(
        email: String, password: String, data: [String: JSONValue]? = nil, redirectTo: URL? = nil,
        completion: @escaping @Sendable (Result<SignUpResult, any Error>) -> Void
    ) {
        complete(completion) { try await self.signUp(email: email, password: password, data: data, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``signIn(email:password:)``.
    public nonisolated func signIn(
        email: String, password: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        complete(completion) { try await self.signIn(email: email, password: password) }
    }

    /// Completion-handler form of ``requestEmailVerification(email:redirectTo:)``.
    public nonisolated func requestEmailVerification(
        email: String, redirectTo: URL? = nil, completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        complete(completion) { try await self.requestEmailVerification(email: email, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``verifyEmail(token:)``.
    public nonisolated func verifyEmail(token: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.verifyEmail(token: token) }
    }

    /// Completion-handler form of ``verifyEmail(email:code:)``.
    public nonisolated func verifyEmail(
        email: String, code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        complete(completion) { try await self.verifyEmail(email: email, code: code) }
    }

    /// Completion-handler form of ``signInWithEmailCode(email:createUser:redirectTo:)``.
    public nonisolated func signInWithEmailCode(
        email: String, createUser: Bool = true, completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.signInWithEmailCode(email: email, createUser: createUser) }
    }

    /// Completion-handler form of ``signUpWithEmailCode(email:data:redirectTo:)``.
    public nonisolated func signUpWithEmailCode(
        email: String, data: [String: JSONValue]? = nil, completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.signUpWithEmailCode(email: email, data: data) }
    }

    /// Completion-handler form of ``session()``.
    public nonisolated func session(completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.session() }
    }

    /// Completion-handler form of ``refreshSession()``.
    public nonisolated func refreshSession(completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.refreshSession() }
    }

    /// Completion-handler form of ``user()``.
    public nonisolated func user(completion: @escaping @Sendable (Result<User, any Error>) -> Void) {
        complete(completion) { try await self.user() }
    }

    /// Completion-handler form of ``updateUser(_:)``.
    public nonisolated func updateUser(
        _ attributes: UserAttributes, completion: @escaping @Sendable (Result<User, any Error>) -> Void
    ) {
        complete(completion) { try await self.updateUser(attributes) }
    }

    /// Completion-handler form of ``signOut(scope:)``.
    public nonisolated func signOut(scope: SignOutScope = .global, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        complete(completion) { try await self.signOut(scope: scope) }
    }

    /// Completion-handler form of ``signInWithMagicLink(email:redirectTo:createUser:)``.
    public nonisolated func signInWithMagicLink(
        email: String, redirectTo: URL? = nil, createUser: Bool = true,
        completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.signInWithMagicLink(email: email, redirectTo: redirectTo, createUser: createUser) }
    }

    /// Completion-handler form of ``resetPassword(email:redirectTo:)``.
    public nonisolated func resetPassword(
        email: String, redirectTo: URL? = nil, completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.resetPassword(email: email, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``updatePassword(_:currentPassword:nonce:)``.
    public nonisolated func updatePassword(
        _ password: String, currentPassword: String? = nil, nonce: String? = nil,
        completion: @escaping @Sendable (Result<User, any Error>) -> Void
    ) {
        complete(completion) { try await self.updatePassword(password, currentPassword: currentPassword, nonce: nonce) }
    }

    /// Completion-handler form of ``reauthenticate()``.
    public nonisolated func reauthenticate(completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        complete(completion) { try await self.reauthenticate() }
    }

    /// Completion-handler form of ``changeEmail(to:redirectTo:)``.
    public nonisolated func changeEmail(
        to newEmail: String, redirectTo: URL? = nil, completion: @escaping @Sendable (Result<User, any Error>) -> Void
    ) {
        complete(completion) { try await self.changeEmail(to: newEmail, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``confirmEmailChange(email:code:)``.
    public nonisolated func confirmEmailChange(
        email: String, code: String, completion: @escaping @Sendable (Result<EmailChangeResult, any Error>) -> Void
    ) {
        complete(completion) { try await self.confirmEmailChange(email: email, code: code) }
    }

    /// Completion-handler form of ``link(email:redirectTo:)``.
    public nonisolated func link(
        email: String, redirectTo: URL? = nil, completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.link(email: email, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``link(phone:channel:)``.
    public nonisolated func link(
        phone: String, channel: String = "sms", completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.link(phone: phone, channel: channel) }
    }

    /// Completion-handler form of ``requestSMSCode(phone:createUser:channel:)``.
    public nonisolated func requestSMSCode(
        phone: String, createUser: Bool = true, channel: String = "sms",
        completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.requestSMSCode(phone: phone, createUser: createUser, channel: channel) }
    }

    /// Completion-handler form of ``signUpWithSMSCode(phone:data:channel:)``.
    public nonisolated func signUpWithSMSCode(
        phone: String, data: [String: JSONValue]? = nil, channel: String = "sms",
        completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.signUpWithSMSCode(phone: phone, data: data, channel: channel) }
    }

    /// Completion-handler form of ``signUp(phone:password:data:channel:)``.
    public nonisolated func signUp(
        phone: String, password: String, data: [String: JSONValue]? = nil, channel: String = "sms",
        completion: @escaping @Sendable (Result<SignUpResult, any Error>) -> Void
    ) {
        complete(completion) { try await self.signUp(phone: phone, password: password, data: data, channel: channel) }
    }

    /// Completion-handler form of ``verifyPhone(phone:code:)``.
    public nonisolated func verifyPhone(
        phone: String, code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        complete(completion) { try await self.verifyPhone(phone: phone, code: code) }
    }

    /// Completion-handler form of ``signIn(phone:password:)``.
    public nonisolated func signIn(
        phone: String, password: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        complete(completion) { try await self.signIn(phone: phone, password: password) }
    }

    /// Completion-handler form of ``session(from:)``.
    public nonisolated func session(from url: URL, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.session(from: url) }
    }
}

extension CodeRequired {
    /// Completion-handler form of ``submit(code:)``.
    public func submit(code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        client.complete(completion) { try await self.submit(code: code) }
    }

    /// Completion-handler form of ``resend()``.
    public func resend(completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void) {
        client.complete(completion) { try await self.resend() }
    }
}

extension MFA {
    /// Completion-handler form of ``enroll(friendlyName:issuer:)``.
    public func enroll(
        friendlyName: String? = nil, issuer: String? = nil, completion: @escaping @Sendable (Result<TOTPEnrollment, any Error>) -> Void
    ) {
        client.complete(completion) { try await self.enroll(friendlyName: friendlyName, issuer: issuer) }
    }

    /// Completion-handler form of ``challenge(factorID:)``.
    public func challenge(factorID: UUID, completion: @escaping @Sendable (Result<FactorChallenge, any Error>) -> Void) {
        client.complete(completion) { try await self.challenge(factorID: factorID) }
    }

    /// Completion-handler form of ``verify(factorID:challengeID:code:)``.
    public func verify(
        factorID: UUID, challengeID: UUID, code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        client.complete(completion) { try await self.verify(factorID: factorID, challengeID: challengeID, code: code) }
    }

    /// Completion-handler form of ``challengeAndVerify(factorID:code:)``.
    public func challengeAndVerify(factorID: UUID, code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        client.complete(completion) { try await self.challengeAndVerify(factorID: factorID, code: code) }
    }

    /// Completion-handler form of ``unenroll(factorID:)``.
    public func unenroll(factorID: UUID, completion: @escaping @Sendable (Result<UnenrolledFactor, any Error>) -> Void) {
        client.complete(completion) { try await self.unenroll(factorID: factorID) }
    }

    /// Completion-handler form of ``listFactors()``.
    public func listFactors(completion: @escaping @Sendable (Result<FactorList, any Error>) -> Void) {
        client.complete(completion) { try await self.listFactors() }
    }

    /// Completion-handler form of ``assuranceLevel()``.
    public func assuranceLevel(completion: @escaping @Sendable (Result<AssuranceLevel, any Error>) -> Void) {
        client.complete(completion) { try await self.assuranceLevel() }
    }
}
