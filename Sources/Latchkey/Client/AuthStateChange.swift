/// What happened to the client's session.
public enum AuthEvent: String, Sendable {
    /// The first element of every ``AuthClient/authStateChanges`` stream: the session restored
    /// from storage (or `nil`). It arrives only once restoring has finished, so an app that waits
    /// for it never shows a signed-out screen to a signed-in user.
    case initialSession
    /// A session began: sign-in, sign-up, a verified code or an opened link.
    case signedIn
    /// The session ended: signed out here, or ended by the server.
    case signedOut
    /// The access token was refreshed.
    case tokenRefreshed
    /// The signed-in user changed, e.g. after ``AuthClient/updateUser(_:)``.
    case userUpdated
    /// Signed in by a password-reset code or link: ask the user for a new password
    /// (``AuthClient/updatePassword(_:currentPassword:nonce:)``).
    case passwordRecovery
    /// A second factor was verified (``MFA/verify(factorID:challengeID:code:)``): the session
    /// is now ``AAL/aal2``, with new tokens.
    case mfaChallengeVerified
    /// A link handed to ``AuthClient/handle(_:)`` could not be used (expired, used, from another
    /// install, or carrying the server's error): ``AuthStateChange/error`` says why, and the
    /// session is unchanged.
    case linkFailed
}

/// One change of the client's auth state, with the session after it.
public struct AuthStateChange: Sendable, Equatable {
    /// What happened.
    public let event: AuthEvent
    /// The session after the change; `nil` when signed out.
    public let session: Session?
    /// Why, for ``AuthEvent/linkFailed``.
    public let error: LatchkeyError?

    /// Creates a change.
    public init(event: AuthEvent, session: Session?, error: LatchkeyError? = nil) {
        self.event = event
        self.session = session
        self.error = error
    }
}

/// The outcome of ``AuthClient/signUp(email:password:data:redirectTo:)``.
public enum SignUpResult: Sendable {
    /// The account is ready (the server confirms addresses automatically): signed in.
    case signedIn(Session)
    /// The address must be verified first: a link and a code were emailed. Finish with
    /// ``AuthClient/verifyEmail(email:code:)`` or the link (``AuthClient/session(from:)``).
    case verificationRequired(User)

    /// Openfort's `action`: `"verify_email"` when the address must be verified, else `nil`.
    public var action: String? {
        if case .verificationRequired = self { return "verify_email" }
        return nil
    }

    /// The user, signed in or not.
    public var user: User {
        switch self {
        case .signedIn(let session): session.user
        case .verificationRequired(let user): user
        }
    }

    /// The session, when signed in.
    public var session: Session? {
        if case .signedIn(let session) = self { return session }
        return nil
    }
}

/// Which sessions ``AuthClient/signOut(scope:)`` ends.
public enum SignOutScope: String, Sendable {
    /// Every session of the user, on every device.
    case global
    /// This device's session only.
    case local
    /// Every session but this one.
    case others
}

/// What ``AuthClient/updateUser(_:)`` changes.
public struct UserAttributes: Sendable, Encodable {
    /// Keys to merge into `user_metadata`; a `.null` value deletes the key.
    public var data: [String: JSONValue]?
    /// A new password.
    public var password: String?
    /// The current password, when the server asks for it to change the password.
    public var currentPassword: String?
    /// A new email address; it changes once confirmed (see ``AuthClient/changeEmail(to:redirectTo:)``).
    public var email: String?
    /// A new phone number; it changes once confirmed (see ``AuthClient/link(phone:channel:)``).
    public var phone: String?
    /// The code from ``AuthClient/reauthenticate()``, when the server asks for one.
    public var nonce: String?

    /// Creates the changes; `nil` fields are left unchanged.
    public init(
        data: [String: JSONValue]? = nil, password: String? = nil, currentPassword: String? = nil, email: String? = nil,
        phone: String? = nil, nonce: String? = nil
    ) {
        self.data = data
        self.password = password
        self.currentPassword = currentPassword
        self.email = email
        self.phone = phone
        self.nonce = nonce
    }

    enum CodingKeys: String, CodingKey {
        case data, password, email, phone, nonce
        case currentPassword = "current_password"
    }
}
