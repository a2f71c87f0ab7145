import Foundation
import LatchkeyAPI
import LatchkeyWebAuthn

/// Passkeys (WebAuthn), as GoTrue's `/passkeys/*`: a signed-in user registers one against a
/// challenge Latchkey issued; anyone signs in with one, no username needed (discoverable
/// credentials: the authenticator names the user). Challenges are good once, for their ceremony,
/// for ``Settings/challengeLifetime``.
public struct Passkeys: Sendable {
    public struct Settings: Sendable {
        public var enabled: Bool
        public var maxPerUser: Int
        public var relyingParty: RelyingParty
        public var displayName: String
        public var challengeLifetime: TimeInterval
        /// Sign-in challenges per client IP (`GOTRUE_RATE_LIMIT_PASSKEY`, per 5 minutes).
        public var perIP: RateLimit

        public init(
            enabled: Bool, maxPerUser: Int = 10, relyingParty: RelyingParty, displayName: String, challengeLifetime: TimeInterval = 300,
            perIP: RateLimit = RateLimit(count: 30, period: 300)
        ) {
            self.enabled = enabled
            self.maxPerUser = maxPerUser
            self.relyingParty = relyingParty
            self.displayName = displayName
            self.challengeLifetime = challengeLifetime
            self.perIP = perIP
        }

        /// What the options ask of the authenticator: `required` unless the relying party accepts
        /// presence alone.
        var userVerification: JSONValue { relyingParty.requireUserVerification ? "required" : "preferred" }
    }

    let store: any PasskeyStore
    let limiter: RateLimiter
    let settings: Settings
    let records: Records

    public init(store: any PasskeyStore, limiter: RateLimiter, settings: Settings, records: Records) {
        self.store = store
        self.limiter = limiter
        self.settings = settings
        self.records = records
    }

    static let disabled = AuthError(.passkeyDisabled, "Passkeys are disabled")
    static let verificationFailed = AuthError(.webauthnVerificationFailed, "Credential verification failed")
    static let tooMany = AuthError(.tooManyPasskeys, "Maximum number of passkeys reached")
    /// A credential that is not a WebAuthn answer at all.
    public static let invalidCredential = AuthError(.webauthnVerificationFailed, "Invalid credential response")

    /// `404 passkey_disabled` when passkeys are off: the first answer of every `/passkeys` route.
    public func requireEnabled() throws {
        guard settings.enabled else { throw Self.disabled }
    }

    /// `POST /passkeys/registration/options`: the creation options for the signed-in user.
    public func registrationOptions(for principal: Principal) async throws -> PasskeyOptionsResponse {
        guard settings.enabled else { throw Self.disabled }
        try await requireManagement(principal)
        let existing = try await store.passkeys(userID: principal.user.id)
        guard existing.count < settings.maxPerUser else { throw Self.tooMany }
        let challenge = try await newChallenge(.registration, userID: principal.user.id)
        let user = principal.user
        let name = user.email ?? user.phone ?? user.id.lowercasedString
        var options: [String: JSONValue] = [
            "rp": ["name": .string(settings.displayName), "id": .string(settings.relyingParty.id)],
            "user": [
                "name": .string(name), "displayName": user.userMetadata["name"]?.stringValue.map(JSONValue.string) ?? .string(name),
                "id": .string(Self.userHandle(user.id)),
            ],
            "challenge": .string(Base64URL.encode(challenge.challenge)),
            "pubKeyCredParams": .array([-7, -8, -257].map { .object(["type": "public-key", "alg": .number(Double($0))]) }),
            "timeout": .number(settings.challengeLifetime * 1000),
            "authenticatorSelection": ["residentKey": "required", "userVerification": settings.userVerification],
            "attestation": "none",
        ]
        if !existing.isEmpty {
            options["excludeCredentials"] = .array(
                existing.map { .object(["type": "public-key", "id": .string(Base64URL.encode($0.credentialID))]) })
        }
        return PasskeyOptionsResponse(
            challengeID: challenge.id, options: .object(options), expiresAt: Int(challenge.expiresAt.timeIntervalSince1970))
    }

    /// `POST /passkeys/registration/verify`: the new passkey, after every check of
    /// ``RelyingParty/register(attestationObject:clientDataJSON:challenge:)``.
    public func register(_ request: PasskeyVerifyRequest, principal: Principal, client: ClientInfo) async throws -> PasskeyRecord {
        guard settings.enabled else { throw Self.disabled }
        try await requireManagement(principal)
        let challenge = try await spend(request, .registration, userID: principal.user.id)
        guard let response = request.credential?.response, let client64 = response.clientDataJSON,
            let clientData = Base64URL.decode(client64), let object64 = response.attestationObject,
            let object = Base64URL.decode(object64, maxLength: 16_384)
        else { throw Self.invalidCredential }
        let made: RelyingParty.Registration
        do {
            made = try settings.relyingParty.register(attestationObject: object, clientDataJSON: clientData, challenge: challenge.challenge)
        } catch {
            throw Self.verificationFailed
        }
        let now = records.time.now()
        let passkey = PasskeyRecord(
            id: records.random.uuid(), userID: principal.user.id, credentialID: made.credentialID, publicKey: made.publicKeyBytes,
            attestationType: made.attestationFormat, aaguid: made.aaguid, signCount: made.signCount, transports: response.transports ?? [],
            backupEligible: made.backupEligible, backedUp: made.backedUp, friendlyName: PasskeyNames.name(aaguid: made.aaguid),
            createdAt: now, updatedAt: now)
        let event = records.events.event(
            .passkeyCreated, user: principal.user, details: ["passkey_id": .string(passkey.id.lowercasedString)], client: client)
        do {
            guard try await store.createPasskey(passkey, limit: settings.maxPerUser, audit: [event]) else {
                throw Self.tooMany
            }
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError(.webauthnCredentialExists, "This credential is already registered")
        }
        return passkey
    }

    /// `POST /passkeys/authentication/options`: a challenge for a sign-in with any passkey.
    public func authenticationOptions(client: ClientInfo) async throws -> PasskeyOptionsResponse {
        guard settings.enabled else { throw Self.disabled }
        try await limiter.hit("ip:passkey:\(client.limitKey)", settings.perIP)
        let challenge = try await newChallenge(.authentication, userID: nil)
        let options: [String: JSONValue] = [
            "challenge": .string(Base64URL.encode(challenge.challenge)), "timeout": .number(settings.challengeLifetime * 1000),
            "rpId": .string(settings.relyingParty.id), "userVerification": settings.userVerification,
        ]
        return PasskeyOptionsResponse(
            challengeID: challenge.id, options: .object(options), expiresAt: Int(challenge.expiresAt.timeIntervalSince1970))
    }

    /// `POST /passkeys/authentication/verify`: a session at `aal1` with `amr` `passkey`.
    public func signIn(_ request: PasskeyVerifyRequest, client: ClientInfo) async throws -> Session {
        guard settings.enabled else { throw Self.disabled }
        let challenge = try await spend(request, .authentication, userID: nil)
        guard let credential = request.credential, let raw = credential.rawId ?? credential.id, let credentialID = Base64URL.decode(raw),
            let response = credential.response, let client64 = response.clientDataJSON, let clientData = Base64URL.decode(client64),
            let data64 = response.authenticatorData, let data = Base64URL.decode(data64), let signature64 = response.signature,
            let signature = Base64URL.decode(signature64)
        else { throw Self.invalidCredential }
        guard let passkey = try await store.passkey(credentialID: credentialID),
            response.userHandle.map({ $0 == Self.userHandle(passkey.userID) }) ?? false,
            let key = try? COSEKey(try CBORDecoder().decode(passkey.publicKey)),
            let user = try await store.user(id: passkey.userID)
        else { throw Self.verificationFailed }
        let result: (signCount: UInt32, backedUp: Bool)
        do {
            result = try settings.relyingParty.authenticate(
                authenticatorData: data, clientDataJSON: clientData, signature: signature, challenge: challenge.challenge, publicKey: key,
                storedSignCount: passkey.signCount)
        } catch {
            throw Self.verificationFailed
        }
        let now = records.time.now()
        // Decided again on the copy of the user the write lands on: a ban that lands meanwhile
        // wins (403), a benign change (another sign-in's time) is kept.
        return try await store.onFreshCopies(of: user) { user in
            try Self.requireSignInAllowed(user, at: now)
            var signedIn = user
            signedIn.lastSignInAt = now
            signedIn.updatedAt = now
            let session = records.answers.newSession(for: signedIn, method: "passkey", client: client, now: now)
            let event = records.events.event(
                .login, user: signedIn, details: ["method": "passkey", "passkey_id": .string(passkey.id.lowercasedString)],
                client: client)
            guard
                try await store.recordPasskeySignIn(
                    passkeyID: passkey.id, seenCount: passkey.signCount, newCount: result.signCount, backedUp: result.backedUp, at: now,
                    session: session, user: signedIn, audit: [event])
            else { throw Self.verificationFailed }
            return try await records.answers.answer(user: signedIn, session: session)
        }
    }

    /// GoTrue's refusals after a good assertion: an unconfirmed address or number, a ban (403).
    static func requireSignInAllowed(_ user: UserRecord, at now: Date) throws {
        var refusal: AuthError?
        if user.email != nil, !user.isEmailConfirmed {
            refusal = .emailNotConfirmed
        } else if user.phone != nil, user.phoneConfirmedAt == nil {
            refusal = .phoneNotConfirmed
        } else if user.isBanned(at: now) {
            refusal = .userBanned
        }
        guard var refusal else { return }
        refusal.status = 403
        throw refusal
    }

    /// Registering (and deleting) passkeys: not for anonymous users, and at `aal2` for a user
    /// with a verified second factor, so a stolen password alone cannot add a way in.
    func requireManagement(_ principal: Principal) async throws {
        guard !principal.user.isAnonymous else {
            var error = AuthError(.noAuthorization, "Anonymous user not allowed to perform these actions")
            error.status = 403
            throw error
        }
        var refusal = AuthError(.insufficientAAL, "AAL2 session is required to manage passkeys when MFA is enabled")
        refusal.status = 403
        try await SecondFactorGate(factors: store).require(principal, else: refusal)
    }

    /// The WebAuthn user handle of a user: base64url of its id's text, as GoTrue.
    static func userHandle(_ id: UUID) -> String {
        Base64URL.encode(Array(id.lowercasedString.utf8))
    }

    func newChallenge(_ ceremony: WebAuthnChallengeRecord.Ceremony, userID: UUID?) async throws -> WebAuthnChallengeRecord {
        let now = records.time.now()
        let challenge = WebAuthnChallengeRecord(
            id: records.random.uuid(), userID: userID, ceremony: ceremony, challenge: records.random.bytes(32), createdAt: now,
            expiresAt: now.addingTimeInterval(settings.challengeLifetime))
        try await store.createWebAuthnChallenge(challenge)
        return challenge
    }

    /// The request's challenge, spent: GoTrue's errors for a missing, unknown, used or expired one.
    func spend(_ request: PasskeyVerifyRequest, _ ceremony: WebAuthnChallengeRecord.Ceremony, userID: UUID?) async throws
        -> WebAuthnChallengeRecord
    {
        guard let text = request.challengeID, !text.isEmpty else { throw AuthError.validation("challenge_id is required") }
        guard request.credential != nil else { throw AuthError.validation("credential is required") }
        guard let id = UUID(text: text) else { throw AuthError.validation("challenge_id must be a valid UUID") }
        guard let challenge = try await store.spendWebAuthnChallenge(id: id, ceremony: ceremony, userID: userID) else {
            throw AuthError(.webauthnChallengeNotFound, "Challenge not found or already used")
        }
        guard challenge.expiresAt > records.time.now() else { throw AuthError(.webauthnChallengeExpired, "Challenge has expired") }
        return challenge
    }
}
