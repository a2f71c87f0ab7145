import Foundation
import LatchkeyAPI
import LatchkeyWebAuthn

/// WebAuthn factors (GoTrue's `factor_type: webauthn`): a security key, or a platform
/// authenticator, as a second factor. Enrolment makes the factor; its first challenge asks the
/// authenticator to create a key (`create`) and its first verification registers that key with
/// the relying party passkeys use; later challenges ask for an assertion by that key
/// (`request`). A second factor, not a passkey: no resident credential is asked for, the user
/// must be present, and verified only when `mfa-webauthn-user-verification` is `required`.
extension MFA {
    /// `POST /factors` with `factor_type: webauthn`: a new, unverified factor with no key yet.
    /// A user who already has a verified factor needs an `aal2` session to add another.
    public func enrollWebAuthn(_ request: EnrollFactorRequest, principal: Principal) async throws -> WebAuthnEnrollment {
        try principal.user.refuseIfAnonymous()
        guard settings.factors.webAuthn.enrollEnabled else {
            throw AuthError(.mfaWebAuthnEnrollNotEnabled, "MFA enroll is disabled for WebAuthn")
        }
        let name = try Self.friendlyName(request.friendlyName)
        let user = principal.user
        try requireRoomForAnother(try await store.factors(userID: user.id), principal: principal)
        let now = time.now()
        let id = random.uuid()
        let factor = FactorRecord(
            id: id, userID: user.id, friendlyName: name, factorType: "webauthn", sealedSecret: "", createdAt: now, updatedAt: now)
        let event = events.event(
            .factorEnrolled, user: user, details: ["factor_id": .string(id.lowercasedString), "type": "webauthn"])
        try await create(factor, name: name, audit: event)
        return WebAuthnEnrollment(id: id, friendlyName: name)
    }

    /// A WebAuthn factor's challenge: 32 random bytes, stored as a hash (the newest challenge of
    /// the factor is the only one that counts), with the options for the browser or the platform:
    /// creation options while the factor has no key (the user's other keys excluded), else request
    /// options allowing this factor's key alone.
    func challengeWebAuthn(_ factor: FactorRecord, principal: Principal, client: ClientInfo, now: Date) async throws -> FactorChallenge {
        let bytes = random.bytes(32)
        let challenge = FactorChallengeRecord(
            id: random.uuid(), factorID: factor.id, ip: client.ip, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.factors.challengeExpiry)),
            codeHash: OneTimeSecrets.codeHash(Base64URL.encode(bytes), userID: principal.user.id))
        let options: JSONValue
        if let key = factor.webAuthn {
            options = requestOptions(challenge: bytes, allowing: key)
        } else {
            let others = try await store.factors(userID: principal.user.id).compactMap(\.webAuthn)
            options = creationOptions(challenge: bytes, user: principal.user, excluding: others)
        }
        try await store.createChallenge(challenge)
        return FactorChallenge(
            id: challenge.id, type: "webauthn", expiresAt: Int(challenge.expiresAt.timeIntervalSince1970),
            webauthn: WebAuthnFactorChallenge(
                type: factor.webAuthn == nil ? "create" : "request", credentialOptions: ["publicKey": options]))
    }

    /// `PublicKeyCredentialCreationOptions` for a second factor: no resident key, presence at
    /// least, no attestation (browsers then send `none`).
    func creationOptions(challenge: [UInt8], user: UserRecord, excluding others: [WebAuthnFactorCredential]) -> JSONValue {
        let name = user.email ?? user.phone.map { "+" + $0 } ?? user.id.lowercasedString
        var options: [String: JSONValue] = [
            "rp": ["name": .string(settings.relyingPartyName), "id": .string(settings.relyingParty.id)],
            "user": ["name": .string(name), "displayName": .string(name), "id": .string(Passkeys.userHandle(user.id))],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array([-7, -8, -257].map { .object(["type": "public-key", "alg": .number(Double($0))]) }),
            "timeout": .number(Double(settings.factors.challengeExpiry) * 1000),
            "authenticatorSelection": [
                "residentKey": "discouraged", "requireResidentKey": false, "userVerification": userVerification,
            ],
            "attestation": "none",
        ]
        if !others.isEmpty { options["excludeCredentials"] = .array(others.map(Self.descriptor)) }
        return .object(options)
    }

    /// `PublicKeyCredentialRequestOptions` allowing the factor's key only.
    func requestOptions(challenge: [UInt8], allowing key: WebAuthnFactorCredential) -> JSONValue {
        [
            "challenge": .string(Base64URL.encode(challenge)), "timeout": .number(Double(settings.factors.challengeExpiry) * 1000),
            "rpId": .string(settings.relyingParty.id), "allowCredentials": [Self.descriptor(key)],
            "userVerification": userVerification,
        ]
    }

    var userVerification: JSONValue { settings.relyingParty.requireUserVerification ? "required" : "preferred" }

    static func descriptor(_ key: WebAuthnFactorCredential) -> JSONValue {
        var descriptor: [String: JSONValue] = ["type": "public-key", "id": .string(key.storedID)]
        if !key.transports.isEmpty { descriptor["transports"] = .array(key.transports.map(JSONValue.string)) }
        return .object(descriptor)
    }

    /// Checks a WebAuthn factor's answer: the ceremony its state calls for (`create` until it
    /// has a key), the challenge this challenge issued (its hash compared in constant time), then
    /// every check of the relying party. A credential that is not one is `400`; one that fails a
    /// check is a wrong answer, counted as a wrong code is.
    func checkWebAuthn(_ answer: WebAuthnFactorResponse, factor: FactorRecord, challenge: FactorChallengeRecord, userID: UUID)
        -> CodeCheck
    {
        let expected = factor.webAuthn == nil ? "create" : "request"
        guard answer.type == expected else {
            return .malformed(.validation("webauthn.type must be \(expected) for this factor"))
        }
        guard let credential = answer.credentialResponse, let response = credential.response,
            let clientData = response.clientDataJSON.flatMap({ Base64URL.decode($0) })
        else { return .malformed(Passkeys.invalidCredential) }
        // The challenge the client data names, if it is the one this challenge issued.
        guard let issued = Self.challenge(in: clientData), let hash = challenge.codeHash,
            OneTimeSecrets.codeMatches(Base64URL.encode(issued), userID: userID, storedHash: hash)
        else { return .wrong }
        if let key = factor.webAuthn {
            guard let raw = credential.rawId ?? credential.id, Base64URL.decode(raw) == key.credentialID,
                let data = response.authenticatorData.flatMap({ Base64URL.decode($0) }),
                let signature = response.signature.flatMap({ Base64URL.decode($0) }),
                let publicKey = try? COSEKey(try CBORDecoder().decode(key.publicKey))
            else { return .wrong }
            let stored = UInt32(clamping: factor.lastUsedStep ?? 0)
            guard
                let result = try? settings.relyingParty.authenticate(
                    authenticatorData: data, clientDataJSON: clientData, signature: signature, challenge: issued, publicKey: publicKey,
                    storedSignCount: stored)
            else { return .wrong }
            return .right(step: Int64(result.signCount))
        }
        guard let object = response.attestationObject.flatMap({ Base64URL.decode($0, maxLength: 16_384) }) else {
            return .malformed(Passkeys.invalidCredential)
        }
        guard let made = try? settings.relyingParty.register(attestationObject: object, clientDataJSON: clientData, challenge: issued)
        else { return .wrong }
        let key = WebAuthnFactorCredential(
            credentialID: made.credentialID, publicKey: made.publicKeyBytes, aaguid: made.aaguid,
            transports: Array((response.transports ?? []).prefix(8).filter { $0.count <= 32 }), attestationFormat: made.attestationFormat)
        return .right(step: Int64(made.signCount), key: key)
    }

    /// The challenge `clientDataJSON` carries, decoded.
    static func challenge(in clientData: [UInt8]) -> [UInt8]? {
        guard clientData.count <= 4096, let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(clientData)),
            let text = object["challenge"]?.stringValue, text.count <= 256
        else { return nil }
        return Base64URL.decode(text)
    }

    /// A factor's name: trimmed, at most 100 characters; `nil` for none.
    static func friendlyName(_ raw: String?) throws -> String? {
        let name = raw.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        if let name, name.unicodeScalars.count > 100 { throw AuthError.validation("friendly_name must be at most 100 characters") }
        return name
    }

    /// Stores a new factor: GoTrue's errors for the cap and a name the user has given another.
    func create(_ factor: FactorRecord, name: String?, audit event: AuditEvent) async throws {
        do {
            let expiry = factor.createdAt.addingTimeInterval(-Double(settings.factors.factorExpiry))
            guard
                try await store.createFactor(factor, limit: settings.factors.maxEnrolledFactors, expiringBefore: expiry, audit: [event])
            else {
                throw AuthError(.tooManyEnrolledMFAFactors, "Maximum number of enrolled factors reached, unenroll to continue")
            }
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError(.mfaFactorNameConflict, "A factor with the friendly name \"\(name ?? "")\" for this user already exists")
        }
    }
}
