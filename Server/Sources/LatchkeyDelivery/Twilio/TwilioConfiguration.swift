/// Twilio's Messages API, configured like GoTrue (`GOTRUE_SMS_TWILIO_*`).
public struct TwilioConfiguration: Sendable, Equatable {
    /// The account SID (`AC…`), in the URL and, without an API key, the login.
    public var accountSID: String
    /// The account's auth token; not needed with an API key.
    public var authToken: String?
    /// An API key SID (`SK…`) and its secret, used for the login instead of the auth token.
    public var apiKey: String?
    public var apiSecret: String?
    /// The sender: a phone number (`+1…`), or a messaging service SID (`MG…`)
    /// (`GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID`).
    public var sender: String
    /// The API's base URL; Twilio's by default.
    public var apiURL: String
    /// How long to wait for Twilio.
    public var timeout: Duration

    public init(
        accountSID: String, authToken: String? = nil, apiKey: String? = nil, apiSecret: String? = nil, sender: String,
        apiURL: String = "https://api.twilio.com", timeout: Duration = .seconds(10)
    ) {
        self.accountSID = accountSID
        self.authToken = authToken
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.sender = sender
        self.apiURL = apiURL
        self.timeout = timeout
    }
}
