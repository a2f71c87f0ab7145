import Foundation

extension AuthClient {
    /// The options to create a passkey for the signed-in user (`POST
    /// /passkeys/registration/options`): hand ``PasskeyOptionsResponse/options`` to
    /// `navigator.credentials.create()`, a security-key library or your own authenticator, then
    /// send its answer to ``registerPasskey(challengeID:credential:)``. On Apple platforms
    /// `registerPasskey(presentationContextProvider:)` does both.
    public func passkeyRegistrationOptions() async throws -> PasskeyOptionsResponse {
        try await withSession { session in
            try await api.send(
                try api.request("POST", "passkeys/registration/options", body: [String: String](), bearer: session.accessToken),
                as: PasskeyOptionsResponse.self)
        }
    }

    /// Registers the credential an authenticator made for a registration challenge.
    @discardableResult
    public func registerPasskey(challengeID: UUID, credential: PasskeyCredential) async throws -> Passkey {
        let body = PasskeyVerifyRequest(challengeID: challengeID.uuidString.lowercased(), credential: credential)
        let (passkey, userID) = try await withSession { session in
            (
                try await api.send(
                    try api.request("POST", "passkeys/registration/verify", body: body, bearer: session.accessToken), as: Passkey.self),
                session.user.id
            )
        }
        await rememberPasskey(for: userID)
        return passkey
    }

    /// The options to sign in with any passkey of this relying party (`POST
    /// /passkeys/authentication/options`); no user is named: the device offers its passkeys.
    public func passkeyAuthenticationOptions() async throws -> PasskeyOptionsResponse {
        try await ready()
        return try await api.send(
            try api.request("POST", "passkeys/authentication/options", body: [String: String]()), as: PasskeyOptionsResponse.self)
    }

    /// Signs in with an authenticator's assertion for a sign-in challenge. The session is `aal1`
    /// with `amr` `passkey`; a user with a second factor steps up with ``mfa``.
    @discardableResult
    public func signInWithPasskey(challengeID: UUID, credential: PasskeyCredential) async throws -> Session {
        try await ready()
        let body = PasskeyVerifyRequest(challengeID: challengeID.uuidString.lowercased(), credential: credential)
        let session = try await api.send(try api.request("POST", "passkeys/authentication/verify", body: body), as: Session.self)
        await setSession(session, event: .signedIn)
        return session
    }

    /// The signed-in user's passkeys, oldest first.
    public func passkeys() async throws -> [Passkey] {
        try await withSession { session in
            try await api.send(try api.request("GET", "passkeys", bearer: session.accessToken), as: [Passkey].self)
        }
    }

    /// Renames one of the signed-in user's passkeys (1 to 120 bytes).
    @discardableResult
    public func renamePasskey(_ id: UUID, to name: String) async throws -> Passkey {
        try await withSession { session in
            try await api.send(
                try api.request(
                    "PATCH", "passkeys/\(id.uuidString.lowercased())", body: PasskeyUpdateRequest(friendlyName: name),
                    bearer: session.accessToken), as: Passkey.self)
        }
    }

    /// Deletes one of the signed-in user's passkeys (with a second factor, from an `aal2`
    /// session). The device keeps its copy until the user removes it there.
    public func deletePasskey(_ id: UUID) async throws {
        _ = try await withSession { session in
            try await api.sendRaw(try api.request("DELETE", "passkeys/\(id.uuidString.lowercased())", bearer: session.accessToken))
        }
    }
}

extension PasskeyOptionsResponse {
    /// The relying party id, challenge, user id and display name the options carry, as bytes
    /// where WebAuthn has bytes: what a platform authenticator API takes.
    public var ceremony: PasskeyCeremony? { PasskeyCeremony(options: options) }
}

extension PasskeyCeremony {
    /// The ceremony of WebAuthn creation or request options (`PublicKeyCredentialCreationOptions`
    /// or `…RequestOptions` JSON); `nil` without a readable challenge.
    init?(options: JSONValue) {
        guard let options = options.objectValue, let text = options["challenge"]?.stringValue, let challenge = Base64URL.decode(text)
        else { return nil }
        let user = options["user"]?.objectValue
        func ids(_ key: String) -> [Data] {
            (options[key]?.arrayValue ?? []).compactMap {
                $0.objectValue?["id"]?.stringValue.flatMap { Base64URL.decode($0) }.map { Data($0) }
            }
        }
        self.init(
            relyingPartyID: options["rpId"]?.stringValue ?? options["rp"]?.objectValue?["id"]?.stringValue ?? "",
            challenge: Data(challenge), userID: user?["id"]?.stringValue.flatMap { Base64URL.decode($0) }.map { Data($0) },
            userName: user?["name"]?.stringValue, excludedCredentialIDs: ids("excludeCredentials"),
            requiresUserVerification: (options["userVerification"] ?? options["authenticatorSelection"]?.objectValue?["userVerification"])
                == "required",
            allowedCredentialIDs: ids("allowCredentials"))
    }
}

/// What a platform authenticator needs from passkey options, decoded.
public struct PasskeyCeremony: Sendable, Equatable {
    public var relyingPartyID: String
    public var challenge: Data
    /// The user handle (registration only).
    public var userID: Data?
    /// The account name the device shows (registration only).
    public var userName: String?
    /// The user's passkeys, which the device must not register again.
    public var excludedCredentialIDs: [Data]
    public var requiresUserVerification: Bool
    /// The only credentials that may answer (a WebAuthn factor's key); empty: any of the relying party's.
    public var allowedCredentialIDs: [Data] = []
}

extension PasskeyCredential {
    /// A new credential's answer, from its raw parts (`ASAuthorizationPlatformPublicKeyCredentialRegistration`
    /// gives them as `Data`).
    public static func registration(credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String]? = nil)
        -> PasskeyCredential
    {
        let id = Base64URL.encode(Array(credentialID))
        return PasskeyCredential(
            id: id, rawId: id,
            response: Response(
                clientDataJSON: Base64URL.encode(Array(clientDataJSON)), attestationObject: Base64URL.encode(Array(attestationObject)),
                transports: transports))
    }

    /// An assertion's answer, from its raw parts (`ASAuthorizationPlatformPublicKeyCredentialAssertion`).
    public static func assertion(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data)
        -> PasskeyCredential
    {
        let id = Base64URL.encode(Array(credentialID))
        return PasskeyCredential(
            id: id, rawId: id,
            response: Response(
                clientDataJSON: Base64URL.encode(Array(clientDataJSON)), authenticatorData: Base64URL.encode(Array(authenticatorData)),
                signature: Base64URL.encode(Array(signature)), userHandle: Base64URL.encode(Array(userHandle))))
    }
}
