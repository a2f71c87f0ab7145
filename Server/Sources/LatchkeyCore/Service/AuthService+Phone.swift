import Foundation
import LatchkeyAPI
import Logging

extension AuthService {
    /// A phone number as GoTrue stores it (``PhoneNumber/requestNumber(_:)``), a disabled phone
    /// provider refused first (`/verify` checks only the number, as GoTrue's does).
    func canonicalPhone(_ raw: String?) throws -> String {
        guard configuration.sms.enabled else { throw AuthError.phoneDisabled }
        return try PhoneNumber.requestNumber(raw)
    }

    /// Where an SMS goes: `sms` (the default, also for an empty string, as GoTrue) or `whatsapp`.
    func smsChannel(_ raw: String?) throws -> String {
        let channel = raw.flatMap { $0.isEmpty ? nil : $0 } ?? "sms"
        guard channel == "sms" || channel == "whatsapp" else { throw AuthError.validation("channel must be sms or whatsapp") }
        return channel
    }

    /// Stores a new SMS code of `kind` for `user` (saved with its `*_sent_at` set) and sends it to
    /// `phone`. A code the provider refuses is deleted again, so it is never left usable; a test
    /// number gets its fixed code and no SMS.
    func sendSMSCode(to user: UserRecord, kind: OneTimeTokenKind, phone: String, channel: String) async throws -> OTPResponse {
        let now = time.now()
        let settings = configuration.sms
        let lastSent =
            kind == .phoneChange ? user.phoneChangeSentAt : user.phoneConfirmedAt == nil ? user.confirmationSentAt : user.recoverySentAt
        try checkCooldown(lastSent: lastSent, now: now, frequency: settings.sendFrequency, error: AuthError.smsCooldown(seconds:))
        let test = settings.testOTP(for: phone, now: now)
        if test == nil {
            try await limiter.hit(
                [("sms:number:\(phone)", configuration.rateLimits.smsPerNumber), ("sms:all", configuration.rateLimits.smsSent)],
                error: AuthError.smsRateLimited)
        }
        let code = test ?? SecureRandom.digits(settings.length)
        let record = OneTimeTokenRecord(
            id: random.uuid(), userID: user.id, kind: kind, relatesTo: phone, codeHash: OneTimeSecrets.codeHash(code, userID: user.id),
            linkHash: OneTimeSecrets.linkHash(OneTimeSecrets.newLinkSecret()), redirectTo: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.expiry)))
        do {
            try await onFreshCopies(of: user) { user in
                var updated = user
                switch kind {
                case .phoneChange:
                    updated.newPhone = phone
                    updated.phoneChangeSentAt = now
                default: if user.phoneConfirmedAt == nil { updated.confirmationSentAt = now } else { updated.recoverySentAt = now }
                }
                updated.updatedAt = now
                try await store.replaceOneTimeTokens([record], user: updated, outbox: [], audit: codeSentEvents([record], user: updated))
            }
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError.phoneExists
        }
        var messageID: String?
        if test == nil {
            let body = composer.sms(to: phone, user: user, code: code, validMinutes: max(1, settings.expiry / 60))
            do {
                messageID = try await sms.send(to: phone, body: body, channel: channel)
            } catch {
                try? await store.discardOneTimeToken(id: record.id)
                logger.error("SMS not sent", metadata: ["provider": "\(sms.providerName)", "error": "\(error)"])
                if error is SMSProviderUnavailable { throw AuthError.smsProviderUnavailable }
                throw AuthError.smsSendFailed
            }
        }
        return OTPResponse(
            messageID: messageID, channel: channel, sentTo: Self.maskedPhone(phone), codeLength: code.count,
            expiresIn: settings.expiry, resendAfter: settings.sendFrequency, maxAttempts: configuration.otp.maxAttempts)
    }

    /// `+1 *** *** 4567`-style: the country prefix guess and the last four digits.
    static func maskedPhone(_ phone: String) -> String {
        "+" + String(repeating: "•", count: max(0, phone.count - 4)) + phone.suffix(4)
    }

    /// `POST /otp` with a phone: an SMS code that signs the user in, creating the user first when
    /// `create_user` allows it.
    func sendPhoneOTP(_ request: OTPRequest) async throws -> OTPResponse {
        let phone = try canonicalPhone(request.phone)
        let channel = try smsChannel(request.channel)
        try checkMetadataSize(request.data ?? [:])
        let intent = request.intent
        guard intent == nil || intent == "signin" || intent == "signup" else {
            throw AuthError.validation("intent must be signin or signup")
        }
        if let user = try await store.user(phone: phone) {
            if intent == "signup", user.phoneConfirmedAt != nil { throw AuthError.userAlreadyExists }
            if user.isBanned(at: time.now()) { return Self.phoneInfo(phone, configuration) }
            return try await sendSMSCode(to: user, kind: .sms, phone: phone, channel: channel)
        }
        if intent == "signin" { throw AuthError.unknownForSignIn }
        guard request.createUser ?? true else { throw AuthError.otpSignupDisabled }
        guard !configuration.disableSignup else { throw AuthError.signupDisabled }
        let (user, identity) = newPhoneUser(phone: phone, passwordHash: nil, data: request.data ?? [:], confirmed: false)
        if try await insert(user, identity: identity, token: nil) {
            return try await sendSMSCode(to: user, kind: .sms, phone: phone, channel: channel)
        }
        guard let winner = try await store.user(phone: phone) else { throw AuthError.userAlreadyExists }
        return try await sendSMSCode(to: winner, kind: .sms, phone: phone, channel: channel)
    }

    /// What an SMS request answers without sending anything.
    static func phoneInfo(_ phone: String, _ configuration: AuthConfiguration) -> OTPResponse {
        OTPResponse(
            channel: "sms", sentTo: maskedPhone(phone), codeLength: configuration.sms.length, expiresIn: configuration.sms.expiry,
            resendAfter: configuration.sms.sendFrequency, maxAttempts: configuration.otp.maxAttempts)
    }

    /// `POST /signup` with a phone and a password: the user, and an SMS code to confirm the
    /// number (a session at once under SMS autoconfirm). A confirmed number answers with a user
    /// that is not the owner's, as for email.
    func signUpWithPhone(_ request: SignUpRequest, client: ClientInfo) async throws -> SignUpResult {
        let phone = try canonicalPhone(request.phone)
        let channel = try smsChannel(request.channel)
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
            _ = try await sendSMSCode(to: existing, kind: .sms, phone: phone, channel: channel)
            return .user(try await wireUser(try await store.user(id: existing.id) ?? existing))
        }
        let confirmed = configuration.sms.autoconfirm
        let (user, identity) = newPhoneUser(phone: phone, passwordHash: hash, data: data, confirmed: confirmed)
        guard try await insert(user, identity: identity, token: nil) else {
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
        _ = try await sendSMSCode(to: user, kind: .sms, phone: phone, channel: channel)
        return .user(try await wireUser(try await store.user(id: user.id) ?? user))
    }

    /// A new user with a phone identity, not yet stored.
    func newPhoneUser(phone: String, passwordHash: String?, data: [String: JSONValue], confirmed: Bool) -> (UserRecord, IdentityRecord) {
        let now = time.now()
        let id = random.uuid()
        let user = UserRecord(
            id: id, aud: configuration.jwt.audience, role: "authenticated", email: nil, phone: phone, passwordHash: passwordHash,
            phoneConfirmedAt: confirmed ? now : nil, appMetadata: ["provider": "phone", "providers": ["phone"]], userMetadata: data,
            createdAt: now, updatedAt: now)
        let identity = IdentityRecord(
            id: random.uuid(), userID: id, provider: "phone", providerID: id.uuidString.lowercased(),
            identityData: [
                "sub": .string(id.uuidString.lowercased()), "phone": .string(phone), "email_verified": false,
                "phone_verified": .bool(confirmed),
            ], email: nil, createdAt: now, updatedAt: now)
        return (user, identity)
    }

    /// `PUT /user` with a phone: an SMS code to the new number; the number changes (or is added,
    /// for a user who had none) when the code is verified with type `phone_change`.
    func requestPhoneChange(_ user: UserRecord, to newPhone: String, channel: String) async throws -> UserRecord {
        if let other = try await store.user(phone: newPhone), other.id != user.id { throw AuthError.phoneExists }
        var updated = user
        updated.newPhone = newPhone
        _ = try await sendSMSCode(to: updated, kind: .phoneChange, phone: newPhone, channel: channel)
        return try await store.user(id: user.id) ?? updated
    }

    /// `POST /resend` of type `sms` (an unconfirmed number) or `phone_change`.
    func resendPhone(type: String, phone raw: String?) async throws -> OTPResponse {
        let phone = try canonicalPhone(raw)
        if type == "sms" {
            if let user = try await store.user(phone: phone), user.phoneConfirmedAt == nil {
                return try await sendSMSCode(to: user, kind: .sms, phone: phone, channel: "sms")
            }
            return Self.phoneInfo(phone, configuration)
        }
        var user = try await store.user(phone: phone)
        if user?.newPhone == nil { user = try await store.users(newPhone: phone).last }
        if let user, let newPhone = user.newPhone {
            return try await sendSMSCode(to: user, kind: .phoneChange, phone: newPhone, channel: "sms")
        }
        return Self.phoneInfo(phone, configuration)
    }
}
