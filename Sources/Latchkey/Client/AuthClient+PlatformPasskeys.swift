import Foundation

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices

    extension AuthClient {
        /// Creates a passkey for the signed-in user with the device's passkey provider (iCloud
        /// Keychain, or a password manager the user chose) and registers it: the system sheet
        /// asks for Face ID, Touch ID or the device passcode.
        ///
        /// The app needs the associated domain `webcredentials:<relying party id>`, and the server's
        /// `GOTRUE_WEBAUTHN_RP_ORIGINS` that domain's `https://` origin.
        @MainActor
        @discardableResult
        public func registerPasskey(
            presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? = nil
        ) async throws -> Passkey {
            let options = try await passkeyRegistrationOptions()
            let credential = try await AuthorizationRunner.run(
                try Self.registrationRequest(options), presentationContextProvider: presentationContextProvider ?? KeyWindowPresenter(),
                read: Self.registration)
            return try await registerPasskey(challengeID: options.challengeID, credential: credential)
        }

        /// The platform provider's request for a new passkey, as the server's options ask.
        @MainActor
        static func registrationRequest(_ options: PasskeyOptionsResponse) throws
            -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
        {
            guard let ceremony = options.ceremony, let userID = ceremony.userID else {
                throw LatchkeyError(code: .invalidResponse, message: "The server's passkey options lack a challenge or user")
            }
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: ceremony.relyingPartyID)
            let request = provider.createCredentialRegistrationRequest(
                challenge: ceremony.challenge, name: ceremony.userName ?? "", userID: userID)
            request.userVerificationPreference = ceremony.requiresUserVerification ? .required : .preferred
            if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                request.excludedCredentials = ceremony.excludedCredentialIDs.map {
                    ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
                }
            }
            return request
        }

        /// The new passkey a registration credential carries, for the server.
        @MainActor
        static func registration(_ answer: any ASAuthorizationCredential) throws -> PasskeyCredential {
            guard let made = answer as? ASAuthorizationPlatformPublicKeyCredentialRegistration,
                let attestation = made.rawAttestationObject
            else { throw LatchkeyError(code: .invalidResponse, message: "The device returned no new passkey") }
            return PasskeyCredential.registration(
                credentialID: made.credentialID, clientDataJSON: made.rawClientDataJSON, attestationObject: attestation,
                transports: ["internal", "hybrid"])
        }

        /// Signs in with a passkey, no username typed: the system sheet lists the passkeys the
        /// device holds for the relying party (and offers one on a nearby phone). With
        /// `preferImmediatelyAvailableCredentials` the sheet shows only when the device holds one,
        /// else the call throws at once with ``LatchkeyError/isNoCredentialOnDevice`` (a dismissed
        /// sheet is ``LatchkeyError/isUserCancelled``), so an app can try it first and fall back to
        /// another way in quietly; ``signInReturningUser(steps:code:continueAfterCancel:)`` does.
        @MainActor
        @discardableResult
        public func signInWithPasskey(
            presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? = nil,
            preferImmediatelyAvailableCredentials: Bool = false
        ) async throws -> Session {
            let options = try await passkeyAuthenticationOptions()
            let credential = try await AuthorizationRunner.run(
                try Self.assertionRequest(options), presentationContextProvider: presentationContextProvider ?? KeyWindowPresenter(),
                preferImmediatelyAvailableCredentials: preferImmediatelyAvailableCredentials, read: Self.assertion)
            return try await signInWithPasskey(challengeID: options.challengeID, credential: credential)
        }

        /// The platform provider's request for an assertion of any passkey for the relying party.
        @MainActor
        static func assertionRequest(_ options: PasskeyOptionsResponse) throws -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest
        {
            guard let ceremony = options.ceremony else {
                throw LatchkeyError(code: .invalidResponse, message: "The server's passkey options lack a challenge")
            }
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: ceremony.relyingPartyID)
            let request = provider.createCredentialAssertionRequest(challenge: ceremony.challenge)
            request.userVerificationPreference = ceremony.requiresUserVerification ? .required : .preferred
            return request
        }

        /// The assertion a passkey credential carries, for the server.
        @MainActor
        static func assertion(_ answer: any ASAuthorizationCredential) throws -> PasskeyCredential {
            guard let assertion = answer as? ASAuthorizationPlatformPublicKeyCredentialAssertion,
                let authenticatorData = assertion.rawAuthenticatorData, let signature = assertion.signature,
                let userHandle = assertion.userID
            else { throw LatchkeyError(code: .invalidResponse, message: "The device returned no passkey assertion") }
            return PasskeyCredential.assertion(
                credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
                authenticatorData: authenticatorData, signature: signature, userHandle: userHandle)
        }
    }
#endif
