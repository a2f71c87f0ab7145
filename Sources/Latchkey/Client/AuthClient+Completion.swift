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

    public nonisolated func signUp(
        email: String, password: String, data: [String: JSONValue]? = nil, redirectTo: URL? = nil,
        completion: @escaping @Sendable (Result<SignUpResult, any Error>) -> Void
    ) {
        complete(completion) { try await self.signUp(email: email, password: password, data: data, redirectTo: redirectTo) }
    }

    public nonisolated func signIn(
        email: String, password: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        complete(completion) { try await self.signIn(email: email, password: password) }
    }

    public nonisolated func requestEmailVerification(
        email: String, redirectTo: URL? = nil, completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        complete(completion) { try await self.requestEmailVerification(email: email, redirectTo: redirectTo) }
    }

    public nonisolated func verifyEmail(token: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.verifyEmail(token: token) }
    }

    public nonisolated func verifyEmail(
        email: String, code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void
    ) {
        complete(completion) { try await self.verifyEmail(email: email, code: code) }
    }

    public nonisolated func signInWithEmailCode(
        email: String, createUser: Bool = true, completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.signInWithEmailCode(email: email, createUser: createUser) }
    }

    public nonisolated func signUpWithEmailCode(
        email: String, data: [String: JSONValue]? = nil, completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void
    ) {
        complete(completion) { try await self.signUpWithEmailCode(email: email, data: data) }
    }

    public nonisolated func session(completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.session() }
    }

    public nonisolated func refreshSession(completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.refreshSession() }
    }

    public nonisolated func user(completion: @escaping @Sendable (Result<User, any Error>) -> Void) {
        complete(completion) { try await self.user() }
    }

    public nonisolated func updateUser(
        _ attributes: UserAttributes, completion: @escaping @Sendable (Result<User, any Error>) -> Void
    ) {
        complete(completion) { try await self.updateUser(attributes) }
    }

    public nonisolated func signOut(scope: SignOutScope = .global, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        complete(completion) { try await self.signOut(scope: scope) }
    }

    public nonisolated func session(from url: URL, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        complete(completion) { try await self.session(from: url) }
    }
}

extension CodeRequired {
    public func submit(code: String, completion: @escaping @Sendable (Result<Session, any Error>) -> Void) {
        client.complete(completion) { try await self.submit(code: code) }
    }

    public func resend(completion: @escaping @Sendable (Result<CodeRequired, any Error>) -> Void) {
        client.complete(completion) { try await self.resend() }
    }
}
