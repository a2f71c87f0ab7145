/// The SMS provider of a configuration that names one without its credentials: GoTrue starts
/// with such a configuration and fails each SMS, and so does Latchkey (`Unable to get SMS
/// provider`, 500), so a deployment that never sends an SMS still runs.
public struct UnavailableSMSSender: SMSSender {
    public let providerName: String

    public init(providerName: String) {
        self.providerName = providerName
    }

    public func send(to phone: String, body: String, channel: String) async throws -> String {
        throw SMSProviderUnavailable(providerName: providerName)
    }
}

/// An SMS that cannot be sent because the provider is not configured.
public struct SMSProviderUnavailable: Error, CustomStringConvertible {
    public let providerName: String

    public var description: String { "sms-provider \(providerName) lacks its credentials" }
}
