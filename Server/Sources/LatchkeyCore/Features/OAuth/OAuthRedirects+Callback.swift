import Foundation
import LatchkeyAPI
import Logging

extension OAuthRedirects {
    /// What the provider sent back to `/callback` (query, or Apple's form post).
    public struct Callback: Sendable, Equatable {
        public var state: String?
        public var code: String?
        /// The provider's refusal (`access_denied`, …) and its description.
        public var error: String?
        public var errorDescription: String?
        /// Apple's `user` JSON, sent on the first sign-in only: the name.
        public var appleUser: String?

        public init(
            state: String?, code: String?, error: String? = nil, errorDescription: String? = nil, appleUser: String? = nil
        ) {
            self.state = state
            self.code = code
            self.error = error
            self.errorDescription = errorDescription
            self.appleUser = appleUser
        }
    }

    /// Finishes the flow the callback's state names. A state that is missing, not this server's,
    /// expired or used before sends the browser to the site URL; every later refusal goes to the
    /// app's `redirect_to`.
    public func callback(_ callback: Callback, client: ClientInfo) async -> Outcome {
        let site = redirects.resolve(nil)
        guard let text = callback.state, !text.isEmpty else {
            return .failure(AuthError(.badOAuthCallback, "OAuth state parameter missing"), providerError: nil, to: site)
        }
        guard let state = OAuthState.opened(text, in: box) else {
            return .failure(AuthError(.badOAuthState, "OAuth state parameter is invalid"), providerError: nil, to: site)
        }
        let now = records.time.now()
        guard now.timeIntervalSince1970 <= state.expiresAt else {
            return .failure(AuthError(.badOAuthState, "OAuth state has expired"), providerError: nil, to: site)
        }
        do {
            // A state is good once: a counter that allows one event, kept until the state expires.
            let counts = try await limits.incrementRateLimits([
                RateLimitCounter(
                    key: "oauth:state:" + state.id, windowStart: Date(timeIntervalSince1970: 0),
                    expiresAt: Date(timeIntervalSince1970: state.expiresAt), limit: 1)
            ])
            guard counts.first == 1 else {
                return .failure(AuthError(.badOAuthState, "OAuth state has already been used"), providerError: nil, to: site)
            }
            return try await finish(callback, state: state, client: client)
        } catch let error as AuthError {
            return .failure(error, providerError: nil, to: state.redirectTo)
        } catch {
            signIn.logger.error("oauth callback failed", metadata: ["error": "\(error)"])
            return .failure(AuthError(.unexpectedFailure, "Unexpected failure"), providerError: nil, to: state.redirectTo)
        }
    }

    func finish(_ callback: Callback, state: OAuthState, client: ClientInfo) async throws -> Outcome {
        if let error = callback.error, !error.isEmpty {
            return .failure(AuthError(.validationFailed, callback.errorDescription ?? error), providerError: error, to: state.redirectTo)
        }
        guard let code = callback.code, !code.isEmpty else {
            throw AuthError(.badOAuthCallback, "OAuth callback with missing authorization code")
        }
        guard let provider = try await signIn.lookup(state.provider), provider.enabled, provider.oauth != nil else {
            throw AuthError(.providerDisabled, "Provider \(state.provider) is not enabled")
        }
        let tokens: ProviderTokens
        do {
            tokens = try await self.client.exchange(code: code, verifier: state.providerVerifier, provider: provider)
        } catch {
            signIn.logger.info("provider code exchange failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
            throw AuthError(.unexpectedFailure, "Unable to exchange external code")
        }
        let user: ProviderUser
        if provider.isOpenID {
            guard let idToken = tokens.idToken else { throw AuthError(.unexpectedFailure, "The provider returned no id token") }
            user = try await signIn.verifyReturned(
                idToken, accessToken: tokens.accessToken, nonce: state.nonce, provider: provider, client: client)
        } else {
            do {
                user = try await self.client.user(accessToken: tokens.accessToken, provider: provider)
            } catch {
                signIn.logger.info("provider user lookup failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
                throw AuthError(.unexpectedFailure, "Error getting user profile from external provider")
            }
        }
        if let userID = state.linkingUserID {
            let session = try await signIn.link(user, provider: provider, to: userID, client: client)
            return .session(session, providerToken: tokens.accessToken, to: state.redirectTo)
        }
        let data = Self.appleName(callback.appleUser)
        if let challenge = state.codeChallenge, let method = state.codeChallengeMethod.flatMap(PKCEChallenge.Method.init) {
            let authCode = records.random.linkSecret()
            let flow = BrowserFlow(
                challenge: PKCEChallenge(challenge: challenge, method: method), authCodeHash: OneTimeSecrets.linkHash(authCode),
                lifetime: lifetime)
            _ = try await signIn.complete(user, provider: provider, data: data, client: client, flow: flow)
            return .authCode(authCode, to: state.redirectTo)
        }
        guard let session = try await signIn.complete(user, provider: provider, data: data, client: client, flow: nil) else {
            throw AuthError(.unexpectedFailure, "No session was made")
        }
        return .session(session, providerToken: tokens.accessToken, to: state.redirectTo)
    }

    /// Apple's `user` form field (`{"name":{"firstName":…,"lastName":…},"email":…}`) as metadata.
    static func appleName(_ json: String?) -> [String: JSONValue] {
        guard let json, json.utf8.count <= 4096,
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8)),
            let name = object["name"]?.objectValue
        else { return [:] }
        let full = [name["firstName"]?.stringValue, name["lastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return full.isEmpty ? [:] : ["full_name": .string(full), "name": .string(full)]
    }
}
