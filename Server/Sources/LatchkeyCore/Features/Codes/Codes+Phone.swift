import Foundation
import LatchkeyAPI
import Logging

extension Codes {
    /// Where an SMS goes: `sms` (the default, also for an empty string, as GoTrue) or `whatsapp`.
    public static func channel(_ raw: String?) throws -> String {
        let channel = raw.flatMap { $0.isEmpty ? nil : $0 } ?? "sms"
        guard channel == "sms" || channel == "whatsapp" else { throw AuthError.validation("channel must be sms or whatsapp") }
        return channel
    }

    /// `+1 *** *** 4567`-style: the country prefix guess and the last four digits.
    public static func masked(phone: String) -> String {
        "+" + String(repeating: "•", count: max(0, phone.count - 4)) + phone.suffix(4)
    }

    /// What an SMS request answers without sending anything.
    public func info(phone: String) -> OTPResponse {
        OTPResponse(
            channel: "sms", sentTo: Self.masked(phone: phone), codeLength: settings.sms.length, expiresIn: settings.sms.expiry,
            resendAfter: settings.sms.sendFrequency, maxAttempts: AttemptCap.told(settings.otp.maxAttempts))
    }

    /// Stores a new SMS code of `kind` for `user` (saved with its `*_sent_at` set, and for a
    /// phone change its new number) and sends it to `phone`. A code the provider refuses is
    /// deleted again, so it is never left usable; a test number gets its fixed code and no SMS.
    public func sendSMS(to user: UserRecord, kind: OneTimeTokenKind, phone: String, channel: String) async throws -> OTPResponse {
        let now = time.now()
        let lastSent = { (user: UserRecord) in
            kind == .phoneChange ? user.phoneChangeSentAt : user.phoneConfirmedAt == nil ? user.confirmationSentAt : user.recoverySentAt
        }
        try checkCooldown(lastSent: lastSent(user), now: now, frequency: settings.sms.sendFrequency, error: AuthError.smsCooldown(seconds:))
        let test = settings.sms.testOTP(for: phone, now: now)
        if test == nil {
            try await limiter.hit(
                [("sms:number:\(phone)", settings.rateLimits.smsPerNumber), ("sms:all", settings.rateLimits.smsSent)],
                error: AuthError.smsRateLimited)
        }
        let code = test ?? records.random.digits(settings.sms.length)
        let record = OneTimeTokenRecord(
            id: records.random.orderedUUID(at: now), userID: user.id, kind: kind, relatesTo: phone,
            codeHash: OneTimeSecrets.codeHash(code, userID: user.id), linkHash: OneTimeSecrets.linkHash(records.random.linkSecret()),
            redirectTo: nil, createdAt: now, expiresAt: now.addingTimeInterval(Double(settings.sms.expiry)))
        do {
            try await store.onFreshCopies(of: user) { user in
                var updated = user
                switch kind {
                case .phoneChange:
                    updated.newPhone = phone
                    updated.phoneChangeSentAt = now
                default: if user.phoneConfirmedAt == nil { updated.confirmationSentAt = now } else { updated.recoverySentAt = now }
                }
                updated.updatedAt = now
                try await store.replaceOneTimeTokens([record], user: updated, outbox: [], audit: sentEvents([record], user: updated))
            }
        } catch let error as StoreError where error.isDuplicate {
            throw AuthError.phoneExists
        }
        var messageID: String?
        if test == nil {
            let body = records.notices.composer.sms(to: phone, user: user, code: code, validMinutes: max(1, settings.sms.expiry / 60))
            do {
                messageID = try await sms.send(
                    SMSMessage(phone: phone, body: body, channel: channel, code: code, kind: kind, user: user))
            } catch {
                try? await store.discardOneTimeToken(id: record.id)
                metrics.deliveryFailed(channel: "sms", willRetry: false)
                logger.error("SMS not sent", metadata: ["provider": "\(sms.providerName)", "error": "\(error)"])
                if error is SMSProviderUnavailable { throw AuthError.smsProviderUnavailable }
                if let error = error as? AuthError { throw error }  // the send-sms hook's own answer
                throw AuthError.smsSendFailed
            }
        }
        return OTPResponse(
            messageID: messageID, channel: channel, sentTo: Self.masked(phone: phone), codeLength: code.count,
            expiresIn: settings.sms.expiry, resendAfter: settings.sms.sendFrequency,
            maxAttempts: AttemptCap.told(settings.otp.maxAttempts))
    }

    /// `PUT /user` with a phone: an SMS code to the new number; the number changes (or is added,
    /// for a user who had none) when the code is verified with type `phone_change`. Returns the
    /// user as stored.
    public func requestPhoneChange(_ user: UserRecord, to newPhone: String, channel: String) async throws -> UserRecord {
        if let other = try await store.user(phone: newPhone), other.id != user.id { throw AuthError.phoneExists }
        var updated = user
        updated.newPhone = newPhone
        _ = try await sendSMS(to: updated, kind: .phoneChange, phone: newPhone, channel: channel)
        return try await store.user(id: user.id) ?? updated
    }
}
