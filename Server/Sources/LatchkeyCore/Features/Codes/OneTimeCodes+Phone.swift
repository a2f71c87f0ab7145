import Foundation
import LatchkeyAPI

extension OneTimeCodes {

    /// `POST /otp` with a phone: an SMS code that signs the user in, creating the user first when
    /// `create_user` allows it.
    func sendPhoneOTP(_ request: OTPRequest) async throws -> OTPResponse {
        let phone = try PhoneNumber.requestNumber(request.phone, enabled: settings.phoneEnabled)
        let channel = try Codes.channel(request.channel)
        try UserMetadata.check(request.data ?? [:], maxBytes: settings.userMetadataMaxBytes)
        let intent = try Self.intent(request.intent)
        if let user = try await store.user(phone: phone) {
            if intent == "signup", user.phoneConfirmedAt != nil { throw AuthError.userAlreadyExists }
            if user.isBanned(at: time.now()) { return codes.info(phone: phone) }
            return try await codes.sendSMS(to: user, kind: .sms, phone: phone, channel: channel)
        }
        if intent == "signin" { throw AuthError.unknownForSignIn }
        guard request.createUser ?? true else { throw AuthError.otpSignupDisabled }
        guard !settings.disableSignup else { throw AuthError.signupDisabled }
        let (user, identity) = codes.newPhoneUser(phone: phone, passwordHash: nil, data: request.data ?? [:], confirmed: false)
        if try await codes.insert(user, identity: identity, token: nil) {
            return try await codes.sendSMS(to: user, kind: .sms, phone: phone, channel: channel)
        }
        guard let winner = try await store.user(phone: phone) else { throw AuthError.userAlreadyExists }
        return try await codes.sendSMS(to: winner, kind: .sms, phone: phone, channel: channel)
    }

    /// `POST /resend` of type `sms` (an unconfirmed number) or `phone_change`.
    func resendPhone(type: String, phone raw: String?) async throws -> OTPResponse {
        let phone = try PhoneNumber.requestNumber(raw, enabled: settings.phoneEnabled)
        if type == "sms" {
            if let user = try await store.user(phone: phone), user.phoneConfirmedAt == nil {
                return try await codes.sendSMS(to: user, kind: .sms, phone: phone, channel: "sms")
            }
            return codes.info(phone: phone)
        }
        var user = try await store.user(phone: phone)
        if user?.newPhone == nil { user = try await store.users(newPhone: phone).last }
        if let user, let newPhone = user.newPhone {
            return try await codes.sendSMS(to: user, kind: .phoneChange, phone: newPhone, channel: "sms")
        }
        return codes.info(phone: phone)
    }
}
