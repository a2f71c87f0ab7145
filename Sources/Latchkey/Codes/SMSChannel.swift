/// How a code reaches a phone number.
public enum SMSChannel: String, Sendable, Codable {
    /// A text message.
    case sms
    /// A WhatsApp message (Twilio's WhatsApp sender).
    case whatsapp

    /// The SMS channel of a code channel; `nil` for email.
    public init?(_ channel: CodeChannel) {
        switch channel {
        case .sms: self = .sms
        case .whatsapp: self = .whatsapp
        case .email: return nil
        }
    }

    /// The code channel this is.
    public var codeChannel: CodeChannel { self == .sms ? .sms : .whatsapp }
}
