import Foundation
import LatchkeyAPI

extension SignUp {
    /// `POST /signup` with a phone and a password: the user, and an SMS code to confirm the
    /// number (a session at once under SMS autoconfirm). A confirmed number answers with a user
    /// that is not the owner's, as for email.
    func signUpByPhone(_ request: SignUpRequest, client: ClientInfo) async throws -> SignUpResult {
        let phone = try PhoneNumber.requestNumber(request.phone, enabled: settings.phoneEnabled)
        let channel = try Codes.channel(request.channel)
        guard let password = request.password, !password.isEmpty else {
            throw AuthError.validation("Signup requires a valid password")
        }
        if let refusal = passwords.policy.check(password) { throw refusal }
        let data = request.data ?? [:]
        try UserMetadata.check(data, maxBytes: settings.userMetadataMaxBytes)
        // Hashed for a known number too: the answer's timing must not tell which it is.
        let hash = try await passwords.hash(password)
        if let existing = try await store.user(phone: phone) {
            if existing.phoneConfirmedAt != nil {
                if settings.smsAutoconfirm { throw AuthError.userAlreadyExists }
                return .user(obfuscated(existing, data: data))
            }
            _ = try await codes.sendSMS(to: existing, kind: .sms, phone: phone, channel: channel)
            return .user(try await records.answers.wireUser(try await store.user(id: existing.id) ?? existing))
        }
        let confirmed = settings.smsAutoconfirm
        let (user, identity) = codes.newPhoneUser(phone: phone, passwordHash: hash, data: data, confirmed: confirmed)
        guard try await codes.insert(user, identity: identity, token: nil) else {
            guard let winner = try await store.user(phone: phone) else { throw AuthError.userAlreadyExists }
            return .user(obfuscated(winner, data: data))
        }
        if confirmed {
            return .session(try await signIn(user, client: client, now: time.now()))
        }
        _ = try await codes.sendSMS(to: user, kind: .sms, phone: phone, channel: channel)
        return .user(try await records.answers.wireUser(try await store.user(id: user.id) ?? user))
    }
}
