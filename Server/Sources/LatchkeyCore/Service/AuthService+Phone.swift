import Foundation
import LatchkeyAPI

extension AuthService {
    /// A phone number as GoTrue stores it (``PhoneNumber/requestNumber(_:)``), a disabled phone
    /// provider refused first (`/verify` checks only the number, as GoTrue's does).
    func canonicalPhone(_ raw: String?) throws -> String {
        guard configuration.sms.enabled else { throw AuthError.phoneDisabled }
        return try PhoneNumber.requestNumber(raw)
    }

    /// `POST /signup` with a phone and a password: the user, and an SMS code to confirm the
    /// number (a session at once under SMS autoconfirm). A confirmed number answers with a user
    /// that is not the owner's, as for email.
    func signUpWithPhone(_ request: SignUpRequest, client: ClientInfo) async throws -> SignUpResult {
        let phone = try canonicalPhone(request.phone)
        let channel = try Codes.channel(request.channel)
        guard let password = request.password, !password.isEmpty else {
            throw AuthError.validation("Signup requires a valid password")
        }
        if let refusal = passwords.policy.check(password) { throw refusal }
        let data = request.data ?? [:]
        try checkMetadataSize(data)
        // Hashed for a known number too: the answer's timing must not tell which it is.
        let hash = try await passwords.hash(password)
        if let existing = try await store.user(phone: phone) {
            if existing.phoneConfirmedAt != nil {
                if configuration.sms.autoconfirm { throw AuthError.userAlreadyExists }
                return .user(obfuscated(existing, data: data))
            }
            _ = try await codes.sendSMS(to: existing, kind: .sms, phone: phone, channel: channel)
            return .user(try await wireUser(try await store.user(id: existing.id) ?? existing))
        }
        let confirmed = configuration.sms.autoconfirm
        let (user, identity) = codes.newPhoneUser(phone: phone, passwordHash: hash, data: data, confirmed: confirmed)
        guard try await codes.insert(user, identity: identity, token: nil) else {
            guard let winner = try await store.user(phone: phone) else { throw AuthError.userAlreadyExists }
            return .user(obfuscated(winner, data: data))
        }
        if confirmed {
            let now = time.now()
            var signedIn = user
            signedIn.lastSignInAt = now
            let session = newSession(for: signedIn, method: "password", client: client, now: now)
            try await store.createSession(session, user: signedIn, audit: [loginEvent(signedIn, method: "password", client: client)])
            return .session(try await sessionResponse(user: signedIn, session: session))
        }
        _ = try await codes.sendSMS(to: user, kind: .sms, phone: phone, channel: channel)
        return .user(try await wireUser(try await store.user(id: user.id) ?? user))
    }
}
