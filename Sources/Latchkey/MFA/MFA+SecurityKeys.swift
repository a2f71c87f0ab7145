import Foundation

#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    import AuthenticationServices

    extension MFA {
        /// Enrols a security key (USB, Lightning, NFC or Bluetooth) as the signed-in user's second
        /// factor: the factor is made (``enrollWebAuthn(friendlyName:)``), the system sheet asks for
        /// the key, and its new credential is verified, so the session is ``AAL/aal2`` after. A user
        /// who already has a verified factor needs an `aal2` session first
        /// (``LatchkeyError/isInsufficientAAL``). A dismissed sheet throws
        /// ``LatchkeyError/isUserCancelled`` and leaves an unverified factor, which
        /// ``listFactors()`` shows and ``unenroll(factorID:)`` removes.
        @MainActor
        @discardableResult
        public func enrollSecurityKey(
            friendlyName: String? = nil, presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? = nil
        ) async throws -> Session {
            let enrollment = try await enrollWebAuthn(friendlyName: friendlyName)
            let factor = Factor(
                id: enrollment.id, friendlyName: enrollment.friendlyName, factorType: .webauthn, status: .unverified, createdAt: Date(),
                updatedAt: Date())
            return try await verifyWithSecurityKey(try await begin(factor), presentationContextProvider: presentationContextProvider)
        }

        /// Answers a WebAuthn factor's challenge with its key: the system sheet asks for the
        /// security key (or, for a factor a browser registered as a passkey, offers the device's
        /// passkey), and the answer is verified, so the session becomes ``AAL/aal2``. A key that
        /// is not the factor's throws ``LatchkeyError/isMFAVerificationFailed``.
        @MainActor
        @discardableResult
        public func verifyWithSecurityKey(
            _ pending: SecondFactorChallenge,
            presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? = nil
        ) async throws -> Session {
            guard let ceremony = pending.webAuthnCeremony else {
                throw LatchkeyError(code: .invalidResponse, message: "The challenge carries no WebAuthn options")
            }
            let requests =
                pending.challenge.webauthn?.type == "create"
                ? [try Self.securityKeyRegistration(ceremony)] : Self.securityKeyAssertions(ceremony)
            let credential = try await AuthorizationRunner.run(
                requests, presentationContextProvider: presentationContextProvider ?? KeyWindowPresenter(), read: Self.securityKeyAnswer)
            return try await pending.verify(credential: credential)
        }

        /// The request for a new security-key credential, as a second factor's creation options
        /// ask: no resident key, ES256, no attestation, the user's other keys excluded.
        @MainActor
        static func securityKeyRegistration(_ ceremony: PasskeyCeremony) throws -> ASAuthorizationRequest {
            guard let userID = ceremony.userID else {
                throw LatchkeyError(code: .invalidResponse, message: "The server's creation options lack a user")
            }
            let provider = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: ceremony.relyingPartyID)
            let name = ceremony.userName ?? ""
            let request = provider.createCredentialRegistrationRequest(
                challenge: ceremony.challenge, displayName: name, name: name, userID: userID)
            request.credentialParameters = [ASAuthorizationPublicKeyCredentialParameters(algorithm: .ES256)]
            request.excludedCredentials = ceremony.excludedCredentialIDs.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0, transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            request.residentKeyPreference = .discouraged
            request.attestationPreference = .none
            request.userVerificationPreference = ceremony.requiresUserVerification ? .required : .preferred
            return request
        }

        /// The requests for an assertion by the factor's key: from a security key, or from the
        /// device's passkeys (a factor registered in a browser may be one).
        @MainActor
        static func securityKeyAssertions(_ ceremony: PasskeyCeremony) -> [ASAuthorizationRequest] {
            let verification: ASAuthorizationPublicKeyCredentialUserVerificationPreference =
                ceremony.requiresUserVerification ? .required : .preferred
            let key = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: ceremony.relyingPartyID)
                .createCredentialAssertionRequest(challenge: ceremony.challenge)
            key.allowedCredentials = ceremony.allowedCredentialIDs.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0, transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            key.userVerificationPreference = verification
            let platform = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: ceremony.relyingPartyID)
                .createCredentialAssertionRequest(challenge: ceremony.challenge)
            platform.allowedCredentials = ceremony.allowedCredentialIDs.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
            platform.userVerificationPreference = verification
            return [key, platform]
        }

        /// The server's form of what the key answered: a new credential, or an assertion.
        @MainActor
        static func securityKeyAnswer(_ answer: any ASAuthorizationCredential) throws -> PasskeyCredential {
            if let made = answer as? any ASAuthorizationPublicKeyCredentialRegistration, let attestation = made.rawAttestationObject {
                return PasskeyCredential.registration(
                    credentialID: made.credentialID, clientDataJSON: made.rawClientDataJSON, attestationObject: attestation)
            }
            guard let assertion = answer as? any ASAuthorizationPublicKeyCredentialAssertion,
                let authenticatorData = assertion.rawAuthenticatorData, let signature = assertion.signature
            else { throw LatchkeyError(code: .invalidResponse, message: "The key returned neither a credential nor an assertion") }
            // A security key's credential is not discoverable: it may name no user.
            return PasskeyCredential.assertion(
                credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON, authenticatorData: authenticatorData,
                signature: signature, userHandle: assertion.userID ?? Data())
        }
    }

    #if canImport(Observation)
        @available(macOS 14, iOS 17, visionOS 1, *)
        extension AuthModel {
            /// Answers the second factor with a security key: the open challenge when it is a
            /// WebAuthn factor's, else a new challenge of the user's first WebAuthn factor. The phase
            /// becomes ``Phase/signedIn(_:)``.
            public func verifyWithSecurityKey(
                presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? = nil
            ) async throws {
                guard case .needsSecondFactor = phase else { throw Self.nothingPending }
                var pending = secondFactorChallenge
                if pending?.takesCode != false {
                    guard let key = secondFactors.first(where: { $0.factorType == .webauthn }) else { throw Self.nothingPending }
                    pending = try await client.mfa.begin(key)
                }
                guard let pending else { throw Self.nothingPending }
                settle(try await client.mfa.verifyWithSecurityKey(pending, presentationContextProvider: presentationContextProvider))
            }
        }
    #endif
#endif
