import Foundation
import LatchkeyAPI
import Logging

extension MFA {
    static let verifiedPhoneExists = AuthError(
        .mfaVerifiedFactorExists, "A verified phone factor already exists, unenroll the existing factor to continue")

    /// `POST /factors` with `factor_type: phone` (GoTrue's shapes): a new, unverified factor for
    /// an E.164 number. A verified factor for the same number refuses it; the user's unverified
    /// ones for that number are replaced by it, in the same write. A user who already has a
    /// verified factor needs an `aal2` session to add another, as for TOTP.
    public func enrollPhone(_ request: EnrollFactorRequest, principal: Principal) async throws -> PhoneEnrollment {
        try principal.user.refuseIfAnonymous()
        guard settings.factors.phone.enrollEnabled else {
            throw AuthError(.mfaPhoneEnrollNotEnabled, "MFA enroll is disabled for Phone")
        }
        guard let raw = request.phone, !raw.isEmpty else {
            throw AuthError.validation("Phone number required to enroll Phone factor")
        }
        guard let phone = PhoneNumber.canonical(raw) else {
            throw AuthError.validation("Invalid phone number format (E.164 required)")
        }
        let name = try Self.friendlyName(request.friendlyName)
        let user = principal.user
        let factors = try await store.factors(userID: user.id)
        if factors.contains(where: { $0.factorType == "phone" && $0.phone == phone && $0.status == .verified }) {
            throw Self.verifiedPhoneExists
        }
        try requireRoomForAnother(factors, principal: principal)
        let now = time.now()
        let id = random.uuid()
        let factor = FactorRecord(
            id: id, userID: user.id, friendlyName: name, factorType: "phone", sealedSecret: "", createdAt: now, updatedAt: now,
            phone: phone)
        let event = events.event(.factorEnrolled, user: user, details: ["factor_id": .string(id.lowercasedString), "type": "phone"])
        try await create(factor, name: name, audit: event)
        return PhoneEnrollment(id: id, friendlyName: name, phone: raw)
    }

    /// A phone factor's challenge: a fresh code (the factor's newest: it voids the factor's
    /// earlier challenges) stored hashed, then sent by SMS or WhatsApp through the sender phone
    /// sign-in uses, the `send-sms` hook included (`sms_type: mfa`). Held to the factor's
    /// cooldown (`GOTRUE_MFA_PHONE_MAX_FREQUENCY`, from its last challenge) and to the SMS
    /// budgets per number and in total. A code the provider refuses is spent at once, so it is
    /// never left usable.
    func challengePhone(
        _ factor: FactorRecord, channel: String, principal: Principal, client: ClientInfo, now: Date
    ) async throws -> FactorChallenge {
        guard let phone = factor.phone else { throw Self.notFound }
        let phoneSettings = settings.factors.phone
        if let last = factor.lastChallengedAt {
            let ready = last.addingTimeInterval(Double(phoneSettings.sendFrequency))
            if ready > now { throw AuthError.smsCooldown(seconds: Int(ready.timeIntervalSince(now).rounded(.up))) }
        }
        try await limiter.hit(
            [("sms:number:\(phone)", settings.smsPerNumber), ("sms:all", settings.smsSent)], error: AuthError.smsRateLimited)
        let code = random.digits(phoneSettings.length)
        let challenge = FactorChallengeRecord(
            id: random.uuid(), factorID: factor.id, ip: client.ip, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.factors.challengeExpiry)),
            codeHash: OneTimeSecrets.codeHash(code, userID: principal.user.id))
        // The cooldown was decided on the factor as read: a racing challenge that stored first wins,
        // and this one sends nothing.
        guard try await store.createChallenge(challenge, ifLastChallengedAt: factor.lastChallengedAt) else {
            throw AuthError.smsCooldown(seconds: phoneSettings.sendFrequency)
        }
        let body = notices.composer.mfaSMS(
            to: phone, user: principal.user, code: code, validMinutes: max(1, settings.factors.challengeExpiry / 60))
        do {
            _ = try await sms.send(SMSMessage(phone: phone, body: body, channel: channel, code: code, purpose: "mfa", user: principal.user))
        } catch {
            try? await store.spendChallenge(id: challenge.id, factorID: factor.id)
            if error is SMSProviderUnavailable { throw AuthError.smsProviderUnavailable }
            if let error = error as? AuthError { throw error }  // the send-sms hook's own answer
            throw AuthError.smsSendFailed
        }
        return FactorChallenge(id: challenge.id, type: "phone", expiresAt: Int(challenge.expiresAt.timeIntervalSince1970))
    }
}
