import Foundation

extension AuthClient {
    /// A session whose access token is valid for at least ``Configuration/refreshMargin`` more
    /// seconds, refreshing first when needed.
    ///
    /// Throws `session_missing` when nobody is signed in, and `network_error` (keeping the
    /// session) when a needed refresh could not reach the server.
    public func session() async throws -> Session {
        try await ready()
        guard let current = stored else { throw LatchkeyError.sessionMissing }
        if Double(current.expiresAt) - now.timeIntervalSince1970 > configuration.refreshMargin { return current }
        return try await refreshSession()
    }

    /// Exchanges the refresh token for a new session now.
    ///
    /// Single-flight: however many callers ask at once, one request goes to the server and all
    /// get its answer. Only the server saying the session is over signs the user out; a network
    /// failure keeps the session and throws `network_error`.
    @discardableResult
    public func refreshSession() async throws -> Session {
        try await ready()
        if let refreshTask { return try await refreshTask.value }
        guard let current = stored else { throw LatchkeyError.sessionMissing }
        // The task is made before anything else suspends this actor: every caller from here on
        // finds it and waits for it (reading the storage first, outside it, let a hundred
        // callers each start a refresh of their own).
        let task = Task { try await self.refresh(from: current) }
        refreshTask = task
        defer { refreshTask = nil }
        return try await task.value
    }

    /// The refresh behind ``refreshSession()``. Another process sharing the storage (an app
    /// extension on the same keychain group) may have rotated the session since this one read it:
    /// its refresh token is the live one, and sending the old one would be reuse, which ends the
    /// session for both. Only a later session is taken: storage that missed this process's own
    /// last write (a locked keychain) holds an earlier one.
    func refresh(from current: Session) async throws -> Session {
        var current = current
        if let shared = await sessionInStorage(), shared.refreshToken != current.refreshToken, shared.user.id == current.user.id,
            shared.expiresAt > current.expiresAt
        {
            stored = shared
            current = shared
            if Double(shared.expiresAt) - now.timeIntervalSince1970 > configuration.refreshMargin {
                emit(.tokenRefreshed)
                return shared
            }
        }
        return try await performRefresh(current.refreshToken)
    }

    /// The session as the storage holds it now, if it holds one.
    func sessionInStorage() async -> Session? {
        guard let data = try? await configuration.storage.load(key: configuration.storageKey) else { return nil }
        return try? WireJSON.makeDecoder().decode(Session.self, from: data)
    }

    func performRefresh(_ refreshToken: String) async throws -> Session {
        do {
            let request = try api.request(
                "POST", "token", query: ["grant_type": "refresh_token"], body: RefreshTokenGrantRequest(refreshToken: refreshToken))
            let session = try await api.send(request, as: Session.self)
            await setSession(session, event: .tokenRefreshed)
            return session
        } catch let error as LatchkeyError where error.endsSession {
            await clearSession()
            throw LatchkeyError(code: .sessionMissing, message: error.message, status: error.status)
        }
    }

    /// Runs an authenticated call with the current session. When the server says that session is
    /// over (signed out elsewhere, revoked by a password reset), it is forgotten here too and
    /// ``LatchkeyError/isSessionMissing`` is thrown.
    func withSession<T: Sendable>(_ body: (Session) async throws -> T) async throws -> T {
        let session = try await session()
        do {
            return try await body(session)
        } catch let error as LatchkeyError where error.endsSession {
            if stored?.accessToken == session.accessToken { await clearSession() }
            throw LatchkeyError(code: .sessionMissing, message: error.message, status: error.status)
        }
    }

    /// Sends `method path` with the current session and decodes the answer: the SDK's extensions
    /// (vaults, signer) call the server this way.
    func sendAuthorized<T: Decodable & Sendable>(
        _ method: String, _ path: String, body: (any Encodable & Sendable)?, as type: T.Type
    ) async throws -> T {
        try await withSession { session in
            try await api.send(try api.request(method, path, body: body, bearer: session.accessToken), as: T.self)
        }
    }

    func startAutoRefresh() {
        guard configuration.autoRefresh, autoRefreshTask == nil else { return }
        autoRefreshTask = Task { await self.autoRefreshLoop() }
    }

    /// Sleeps until the access token nears expiry, refreshes, and repeats; after a network
    /// failure it retries with back-off (1 s doubling to 60 s) instead of giving up.
    func autoRefreshLoop() async {
        var failures = 0
        while !Task.isCancelled, let current = stored {
            let due = Double(current.expiresAt) - configuration.refreshMargin - now.timeIntervalSince1970
            let wait = failures > 0 ? min(60, pow(2, Double(failures - 1))) : max(0, due)
            if wait > 0 {
                do { try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000)) } catch { break }
            }
            guard !Task.isCancelled, let latest = stored else { break }
            if failures == 0, Double(latest.expiresAt) - configuration.refreshMargin > now.timeIntervalSince1970 { continue }
            do {
                try await refreshSession()
                failures = 0
            } catch let error as LatchkeyError where error.isSessionMissing {
                break
            } catch {
                failures += 1
            }
        }
        autoRefreshTask = nil
    }

    /// The signed-in user, fetched from the server.
    public func user() async throws -> User {
        let user = try await withSession { session in
            try await api.send(try api.request("GET", "user", bearer: session.accessToken), as: User.self)
        }
        if var updated = stored, updated.user != user {
            updated.user = user
            await setSession(updated, event: .userUpdated)
        }
        return user
    }

    /// Updates the signed-in user: metadata (a `.null` value deletes a key) and the password.
    ///
    /// ```swift
    /// try await auth.updateUser(UserAttributes(data: ["team": "core", "old": .null]))
    /// ```
    @discardableResult
    public func updateUser(_ attributes: UserAttributes) async throws -> User {
        let user = try await withSession { session in
            try await api.send(try api.request("PUT", "user", body: attributes, bearer: session.accessToken), as: User.self)
        }
        if var updated = stored {
            updated.user = user
            await setSession(updated, event: .userUpdated)
        }
        return user
    }

    /// Signs out: forgets the session here (for `global` and `local`) and ends it on the server.
    ///
    /// The local session goes first, so a user is signed out on this device even offline; a
    /// server that says the session is already gone is not an error. `global` also forgets this
    /// device's device key, which the server ends with every session; `local` keeps it, so the
    /// user can sign back in with it.
    public func signOut(scope: SignOutScope = .global) async throws {
        try await ready()
        guard let current = stored else { return }
        if scope != .others { await clearSession() }
        // A global sign-out ends every device key on the server, this device's too: forget it
        // here, or the next device-key sign-in asks for Face ID only to answer device_key_not_found.
        if scope == .global, let enrollment = try? await loadEnrollment() { try? await forgetDeviceKey(enrollment) }
        // A global sign-out also forgets who signed in here; a local one keeps the greeting.
        if scope == .global { await forgetReturningUser() }
        do {
            try await api.sendRaw(
                try api.request("POST", "logout", query: ["scope": scope.rawValue], bearer: current.accessToken))
        } catch let error as LatchkeyError where [401, 403, 404].contains(error.status ?? 0) {
            if scope == .others { await clearSession() }
        } catch let error as LatchkeyError where error.isNetworkError && scope != .others {
            // Already signed out here; the server's session ends when its refresh token is next used.
        }
    }

    /// After the account was deleted on the server: nothing of it stays here (the session, the
    /// device key, the PKCE verifiers of its links).
    func forgetDeletedAccount() async {
        await clearSession()
        if let enrollment = try? await loadEnrollment() { try? await forgetDeviceKey(enrollment) }
        await updateVerifiers { _ in [] }
        await forgetReturningUser()
    }
}
