import Foundation

extension Setting {
    /// Second factors (`GOTRUE_MFA_*`): TOTP, phone and WebAuthn factors, their caps and locks.
    static let mfa: [any SettingDeclaration] = [
        mfaTOTPEnrollEnabled,
        mfaTOTPVerifyEnabled,
        mfaMaxEnrolledFactors,
        mfaMaxVerifiedFactors,
        mfaChallengeExpiry,
        mfaFactorExpiry,
        mfaMaxAttempts,
        mfaLockout,
        mfaPhoneEnrollEnabled,
        mfaPhoneVerifyEnabled,
        mfaPhoneOTPLength,
        mfaPhoneMaxFrequency,
        mfaPhoneTemplate,
        mfaWebAuthnEnrollEnabled,
        mfaWebAuthnVerifyEnabled,
        mfaWebAuthnUserVerification,
    ]
}

extension Setting {
    static let mfaTOTPEnrollEnabled = flag(
        "mfa-totp-enroll-enabled", ["LATCHKEY_MFA_TOTP_ENROLL_ENABLED", "GOTRUE_MFA_TOTP_ENROLL_ENABLED"], default: true,
        summary: "Users may enrol TOTP authenticator apps as a second factor.")

    static let mfaTOTPVerifyEnabled = flag(
        "mfa-totp-verify-enabled", ["LATCHKEY_MFA_TOTP_VERIFY_ENABLED", "GOTRUE_MFA_TOTP_VERIFY_ENABLED"], default: true,
        summary: "TOTP codes may be verified (raising a session to `aal2`).")

    static let mfaMaxVerifiedFactors = count(
        "mfa-max-verified-factors", ["LATCHKEY_MFA_MAX_VERIFIED_FACTORS", "GOTRUE_MFA_MAX_VERIFIED_FACTORS"], default: 10, in: 1...100,
        summary:
            "Verified second factors a user may have: with this many, enrolling another is `422 too_many_enrolled_mfa_factors`, as GoTrue.")

    static let mfaMaxEnrolledFactors = count(
        "mfa-max-enrolled-factors", ["LATCHKEY_MFA_MAX_ENROLLED_FACTORS", "GOTRUE_MFA_MAX_ENROLLED_FACTORS"], default: 10, in: 1...100,
        summary: "Second factors a user may have, verified or not.")

    static let mfaChallengeExpiry = seconds(
        "mfa-challenge-expiry", ["LATCHKEY_MFA_CHALLENGE_EXPIRY", "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION"], default: 300, in: 1...,
        summary: "Seconds an MFA challenge stays open.")

    static let mfaFactorExpiry = seconds(
        "mfa-factor-expiry", ["LATCHKEY_MFA_FACTOR_EXPIRY", "GOTRUE_MFA_FACTOR_EXPIRY_DURATION"], default: 300, in: 1...,
        summary:
            "Seconds after which a factor enrolled but never challenged nor verified goes, at the user's next enrolment, as GoTrue (less than 300 is 300, as GoTrue); the periodic clean-up removes any left after a day."
    )

    static let mfaMaxAttempts = count(
        "mfa-max-attempts", ["LATCHKEY_MFA_MAX_ATTEMPTS"], default: 5, in: 0...1000, goTrue: 0,
        summary: "Wrong TOTP codes in a row after which the factor locks (0: never, as GoTrue).")

    static let mfaLockout = seconds(
        "mfa-lockout", ["LATCHKEY_MFA_LOCKOUT"], default: 900, summary: "Seconds a factor stays locked after too many wrong codes.")

    static let mfaPhoneEnrollEnabled = flag(
        "mfa-phone-enroll-enabled", ["LATCHKEY_MFA_PHONE_ENROLL_ENABLED", "GOTRUE_MFA_PHONE_ENROLL_ENABLED"], default: false,
        summary:
            "Let users enrol phone factors (`factor_type: phone` with an E.164 `phone`): codes by SMS or WhatsApp through the SMS provider or the `send-sms` hook (`sms_type: mfa`). Off: `422 mfa_phone_enroll_not_enabled`, as GoTrue."
    )

    static let mfaPhoneVerifyEnabled = flag(
        "mfa-phone-verify-enabled", ["LATCHKEY_MFA_PHONE_VERIFY_ENABLED", "GOTRUE_MFA_PHONE_VERIFY_ENABLED"], default: false,
        summary:
            "Let phone factors be challenged and verified (raising a session to `aal2`, `amr` `mfa/phone`). Off: `422 mfa_phone_verify_not_enabled`."
    )

    static let mfaPhoneOTPLength = count(
        "mfa-phone-otp-length", ["LATCHKEY_MFA_PHONE_OTP_LENGTH", "GOTRUE_MFA_PHONE_OTP_LENGTH"], default: 6,
        summary: "Digits in a phone factor's code (6–10; another value is 6, as GoTrue).")

    static let mfaPhoneMaxFrequency = seconds(
        "mfa-phone-max-frequency", ["LATCHKEY_MFA_PHONE_MAX_FREQUENCY", "GOTRUE_MFA_PHONE_MAX_FREQUENCY"], default: 60,
        summary: "Seconds between two challenges of one phone factor (`429 over_sms_send_rate_limit` sooner; 0 is 60, as GoTrue).")

    static let mfaPhoneTemplate = text(
        "mfa-phone-template", ["LATCHKEY_MFA_PHONE_TEMPLATE", "GOTRUE_MFA_PHONE_TEMPLATE"],
        shown: "Your <app-name> verification code is {{code}}.",
        summary:
            "A phone factor's message: Mustache with `{{code}}`, or GoTrue's `{{ .Code }}`; also `templates-dir`'s `mfa_sms.text.mustache`."
    )

    static let mfaWebAuthnEnrollEnabled = flag(
        "mfa-webauthn-enroll-enabled", ["LATCHKEY_MFA_WEB_AUTHN_ENROLL_ENABLED", "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED"], default: false,
        summary:
            "Let users enrol WebAuthn factors (`factor_type: webauthn`): a security key or a platform authenticator as a second factor, registered with the passkeys' relying party (`webauthn-rp-id`, `webauthn-rp-origins`). Off: `422 mfa_webauthn_enroll_not_enabled`, as GoTrue."
    )

    static let mfaWebAuthnVerifyEnabled = flag(
        "mfa-webauthn-verify-enabled", ["LATCHKEY_MFA_WEB_AUTHN_VERIFY_ENABLED", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED"], default: false,
        summary:
            "Let WebAuthn factors be challenged and verified (raising a session to `aal2`, `amr` `mfa/webauthn`). Off: `422 mfa_webauthn_verify_not_enabled`."
    )

    static let mfaWebAuthnUserVerification = text(
        "mfa-webauthn-user-verification", ["LATCHKEY_MFA_WEB_AUTHN_USER_VERIFICATION"], default: "preferred",
        summary:
            "`preferred`: a WebAuthn factor counts with the user present (a touch of the key), as GoTrue; `required`: only with the user verified on the key too (a PIN, a fingerprint)."
    )
}
