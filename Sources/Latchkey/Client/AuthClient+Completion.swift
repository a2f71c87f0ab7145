import Foundation

/// Completion-handler forms of the async calls, for code that does not use Swift concurrency.
/// Handlers run on the main actor, so a view controller can update its views in them.
extension AuthClient {
    /// Completion-handler form of ``signUp(email:password:data:redirectTo:)``.
    public nonisolated func signUp(
        email: String, password: String, data: [String: JSONValue]? = nil, redirectTo: URL? = nil,
        completion: @escaping @MainActor @Sendable (Result<SignUpResult, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signUp(email: email, password: password, data: data, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``signIn(email:password:)``.
    public nonisolated func signIn(
        email: String, password: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signIn(email: email, password: password) }
    }

    /// Completion-handler form of ``requestEmailVerification(email:redirectTo:)``.
    public nonisolated func requestEmailVerification(
        email: String, redirectTo: URL? = nil, completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.requestEmailVerification(email: email, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``verifyEmail(token:)``.
    public nonisolated func verifyEmail(token: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.verifyEmail(token: token) }
    }

    /// Completion-handler form of ``verifyEmail(email:code:)``.
    public nonisolated func verifyEmail(
        email: String, code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.verifyEmail(email: email, code: code) }
    }

    /// Completion-handler form of ``signInWithEmailCode(email:createUser:redirectTo:)``.
    public nonisolated func signInWithEmailCode(
        email: String, createUser: Bool = true, completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signInWithEmailCode(email: email, createUser: createUser) }
    }

    /// Completion-handler form of ``signUpWithEmailCode(email:data:redirectTo:)``.
    public nonisolated func signUpWithEmailCode(
        email: String, data: [String: JSONValue]? = nil,
        completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signUpWithEmailCode(email: email, data: data) }
    }

    /// Completion-handler form of ``session()``.
    public nonisolated func session(completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.session() }
    }

    /// Completion-handler form of ``refreshSession()``.
    public nonisolated func refreshSession(completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.refreshSession() }
    }

    /// Completion-handler form of ``user()``.
    public nonisolated func user(completion: @escaping @MainActor @Sendable (Result<User, any Error>) -> Void) {
        completeOnMain(completion) { try await self.user() }
    }

    /// Completion-handler form of ``updateUser(_:)``.
    public nonisolated func updateUser(
        _ attributes: UserAttributes, completion: @escaping @MainActor @Sendable (Result<User, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.updateUser(attributes) }
    }

    /// Completion-handler form of ``signOut(scope:)``.
    public nonisolated func signOut(
        scope: SignOutScope = .global, completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signOut(scope: scope) }
    }

    /// Completion-handler form of ``signInWithMagicLink(email:redirectTo:createUser:)``.
    public nonisolated func signInWithMagicLink(
        email: String, redirectTo: URL? = nil, createUser: Bool = true,
        completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signInWithMagicLink(email: email, redirectTo: redirectTo, createUser: createUser) }
    }

    /// Completion-handler form of ``resetPassword(email:redirectTo:)``.
    public nonisolated func resetPassword(
        email: String, redirectTo: URL? = nil, completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.resetPassword(email: email, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``updatePassword(_:currentPassword:nonce:)``.
    public nonisolated func updatePassword(
        _ password: String, currentPassword: String? = nil, nonce: String? = nil,
        completion: @escaping @MainActor @Sendable (Result<User, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.updatePassword(password, currentPassword: currentPassword, nonce: nonce) }
    }

    /// Completion-handler form of ``reauthenticate()``.
    public nonisolated func reauthenticate(completion: @escaping @MainActor @Sendable (Result<Void, any Error>) -> Void) {
        completeOnMain(completion) { try await self.reauthenticate() }
    }

    /// Completion-handler form of ``changeEmail(to:redirectTo:)``.
    public nonisolated func changeEmail(
        to newEmail: String, redirectTo: URL? = nil, completion: @escaping @MainActor @Sendable (Result<User, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.changeEmail(to: newEmail, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``confirmEmailChange(email:code:)``.
    public nonisolated func confirmEmailChange(
        email: String, code: String, completion: @escaping @MainActor @Sendable (Result<EmailChangeResult, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.confirmEmailChange(email: email, code: code) }
    }

    /// Completion-handler form of ``link(email:redirectTo:)``.
    public nonisolated func link(
        email: String, redirectTo: URL? = nil, completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.link(email: email, redirectTo: redirectTo) }
    }

    /// Completion-handler form of ``link(phone:channel:)``.
    public nonisolated func link(
        phone: String, channel: SMSChannel = .sms, completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.link(phone: phone, channel: channel) }
    }

    /// Completion-handler form of ``requestSMSCode(phone:createUser:channel:)``.
    public nonisolated func requestSMSCode(
        phone: String, createUser: Bool = true, channel: SMSChannel = .sms,
        completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.requestSMSCode(phone: phone, createUser: createUser, channel: channel) }
    }

    /// Completion-handler form of ``signUpWithSMSCode(phone:data:channel:)``.
    public nonisolated func signUpWithSMSCode(
        phone: String, data: [String: JSONValue]? = nil, channel: SMSChannel = .sms,
        completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signUpWithSMSCode(phone: phone, data: data, channel: channel) }
    }

    /// Completion-handler form of ``signUp(phone:password:data:channel:)``.
    public nonisolated func signUp(
        phone: String, password: String, data: [String: JSONValue]? = nil, channel: SMSChannel = .sms,
        completion: @escaping @MainActor @Sendable (Result<SignUpResult, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signUp(phone: phone, password: password, data: data, channel: channel) }
    }

    /// Completion-handler form of ``verifyPhone(phone:code:)``.
    public nonisolated func verifyPhone(
        phone: String, code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.verifyPhone(phone: phone, code: code) }
    }

    /// Completion-handler form of ``signIn(phone:password:)``.
    public nonisolated func signIn(
        phone: String, password: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.signIn(phone: phone, password: password) }
    }

    /// Completion-handler form of ``session(from:)``.
    public nonisolated func session(from url: URL, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.session(from: url) }
    }
}

extension CodeRequired {
    /// Completion-handler form of ``submit(code:)``.
    public func submit(code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.submit(code: code) }
    }

    /// Completion-handler form of ``resend()``.
    public func resend(completion: @escaping @MainActor @Sendable (Result<CodeRequired, any Error>) -> Void) {
        completeOnMain(completion) { try await self.resend() }
    }
}

extension MFA {
    /// Completion-handler form of ``enroll(friendlyName:issuer:)``.
    public func enroll(
        friendlyName: String? = nil, issuer: String? = nil,
        completion: @escaping @MainActor @Sendable (Result<TOTPEnrollment, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.enroll(friendlyName: friendlyName, issuer: issuer) }
    }

    /// Completion-handler form of ``enrollPhone(_:friendlyName:)``.
    public func enrollPhone(
        _ phoneNumber: String, friendlyName: String? = nil,
        completion: @escaping @MainActor @Sendable (Result<PhoneEnrollment, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.enrollPhone(phoneNumber, friendlyName: friendlyName) }
    }

    /// Completion-handler form of ``challenge(factorID:channel:)``.
    public func challenge(
        factorID: UUID, channel: SMSChannel? = nil, completion: @escaping @MainActor @Sendable (Result<FactorChallenge, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.challenge(factorID: factorID, channel: channel) }
    }

    /// Completion-handler form of ``verify(factorID:challengeID:code:)``.
    public func verify(
        factorID: UUID, challengeID: UUID, code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.verify(factorID: factorID, challengeID: challengeID, code: code) }
    }

    /// Completion-handler form of ``challengeAndVerify(factorID:code:)``.
    public func challengeAndVerify(
        factorID: UUID, code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void
    ) {
        completeOnMain(completion) { try await self.challengeAndVerify(factorID: factorID, code: code) }
    }

    /// Completion-handler form of ``unenroll(factorID:)``.
    public func unenroll(factorID: UUID, completion: @escaping @MainActor @Sendable (Result<UnenrolledFactor, any Error>) -> Void) {
        completeOnMain(completion) { try await self.unenroll(factorID: factorID) }
    }

    /// Completion-handler form of ``generateRecoveryCodes()``.
    public func generateRecoveryCodes(completion: @escaping @MainActor @Sendable (Result<RecoveryCodes, any Error>) -> Void) {
        completeOnMain(completion) { try await self.generateRecoveryCodes() }
    }

    /// Completion-handler form of ``verifyRecoveryCode(_:)``.
    public func verifyRecoveryCode(_ code: String, completion: @escaping @MainActor @Sendable (Result<Session, any Error>) -> Void) {
        completeOnMain(completion) { try await self.verifyRecoveryCode(code) }
    }

    /// Completion-handler form of ``listFactors()``.
    public func listFactors(completion: @escaping @MainActor @Sendable (Result<FactorList, any Error>) -> Void) {
        completeOnMain(completion) { try await self.listFactors() }
    }

    /// Completion-handler form of ``assuranceLevel()``.
    public func assuranceLevel(completion: @escaping @MainActor @Sendable (Result<AssuranceLevel, any Error>) -> Void) {
        completeOnMain(completion) { try await self.assuranceLevel() }
    }
}
