import Foundation

/// Phone sign-up and sign-in by SMS code.
public struct SMSSettings: Sendable {
    /// Whether phone numbers may sign up and sign in (`GOTRUE_EXTERNAL_PHONE_ENABLED`).
    public var enabled: Bool
    /// Whether phone numbers count as confirmed at sign-up (`GOTRUE_SMS_AUTOCONFIRM`).
    public var autoconfirm: Bool
    /// Seconds an SMS code stays valid (`GOTRUE_SMS_OTP_EXP`).
    public var expiry: Int
    /// Digits in an SMS code, 6 to 10 (`GOTRUE_SMS_OTP_LENGTH`).
    public var length: Int
    /// Seconds between two codes to one number (`GOTRUE_SMS_MAX_FREQUENCY`).
    public var sendFrequency: Int
    /// Numbers with a fixed code that is never sent, for tests and app review (`GOTRUE_SMS_TEST_OTP`).
    public var testOTPs: [String: String]
    /// When the test codes stop working (`GOTRUE_SMS_TEST_OTP_VALID_UNTIL`); `nil`: never.
    public var testOTPValidUntil: Date?

    public init(
        enabled: Bool = true, autoconfirm: Bool = false, expiry: Int = 300, length: Int = 6, sendFrequency: Int = 60,
        testOTPs: [String: String] = [:], testOTPValidUntil: Date? = nil
    ) {
        self.enabled = enabled
        self.autoconfirm = autoconfirm
        self.expiry = expiry
        self.length = length
        self.sendFrequency = sendFrequency
        self.testOTPs = testOTPs
        self.testOTPValidUntil = testOTPValidUntil
    }

    /// The fixed code for `phone`, while test codes are valid.
    public func testOTP(for phone: String, now: Date) -> String? {
        guard let code = testOTPs[phone] else { return nil }
        if let until = testOTPValidUntil, now >= until { return nil }
        return code
    }
}
