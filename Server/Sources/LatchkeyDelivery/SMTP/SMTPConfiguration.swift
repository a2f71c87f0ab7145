/// Where and how ``SMTPMailer`` hands mail over, read from GoTrue's `GOTRUE_SMTP_*` settings and
/// Latchkey's own.
public struct SMTPConfiguration: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable, CaseIterable {
        /// Implicit TLS on port 465; otherwise STARTTLS when the server offers it. Credentials are
        /// never sent in the clear except to a server on this machine.
        case auto
        /// STARTTLS, required: a server that does not offer it is an error.
        case startTLS = "starttls"
        /// TLS from the first byte (SMTPS, usually port 465).
        case tls
        /// No TLS at all, for a relay on a trusted network.
        case none
    }

    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    /// The `From` address (`GOTRUE_SMTP_ADMIN_EMAIL`).
    public var senderAddress: String
    /// The `From` display name (`GOTRUE_SMTP_SENDER_NAME`).
    public var senderName: String?
    public var security: Security
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// How long to wait for the connection and for each reply.
    public var timeout: Duration
    /// The name this client gives in `EHLO`.
    public var heloName: String

    public init(
        host: String, port: Int = 587, username: String? = nil, password: String? = nil, senderAddress: String,
        senderName: String? = nil, security: Security = .auto, caFile: String? = nil, timeout: Duration = .seconds(30),
        heloName: String = "localhost"
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.senderAddress = senderAddress
        self.senderName = senderName
        self.security = security
        self.caFile = caFile
        self.timeout = timeout
        self.heloName = heloName
    }

    /// Whether the server is on this machine, where a plaintext login exposes nothing.
    var isLoopback: Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
