import Foundation

/// The kinds of verification `/verify` understands.
public enum VerificationType: String, Sendable {
    case signup, email, magiclink, recovery
    case emailChange = "email_change"
    case sms
    case phoneChange = "phone_change"
    case invite

    /// Which stored tokens this type may redeem.
    var kinds: [OneTimeTokenKind] {
        switch self {
        case .signup: [.confirmation]
        case .magiclink: [.magiclink, .confirmation]
        case .email: [.confirmation, .magiclink]
        case .recovery: [.recovery]
        case .emailChange: [.emailChangeCurrent, .emailChangeNew]
        case .sms: [.sms]
        case .phoneChange: [.phoneChange]
        case .invite: [.invite]
        }
    }

    /// The `amr` method a session proved by a typed code of this type gets.
    var method: String {
        switch self {
        case .signup: "otp"
        case .magiclink: "magiclink"
        case .email: "otp"
        case .recovery: "recovery"
        case .emailChange: "email_change"
        case .sms: "otp"
        case .phoneChange: "phone_change"
        case .invite: "invite"
        }
    }

    /// What a link of this type completes: an `email` link signs in by `magiclink`, a
    /// `signup` link by `otp` (GoTrue's methods).
    var linkCompletion: CodeRedemption.Completion {
        switch self {
        case .emailChange: .emailChange
        case .sms: .phoneSignIn
        case .phoneChange: .phoneChange
        case .email: .emailSignIn(method: "magiclink")
        case .signup, .magiclink, .recovery, .invite: .emailSignIn(method: method)
        }
    }
}
