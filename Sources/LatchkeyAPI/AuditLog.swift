import Foundation

/// One entry of `GET /admin/audit`: GoTrue's audit log entry, plus the account it is about and
/// the user agent.
public struct AuditLogEntry: Codable, Sendable, Equatable {
    /// What happened and who did it (`payload`).
    public struct Payload: Codable, Sendable, Equatable {
        /// The acting user's id, or `""` for an operator (`actor_id`).
        public var actorID: String
        /// The acting user's email or phone, `service_role`, or `cli:<name>` (`actor_username`).
        public var actorUsername: String
        /// The action, such as `login` or `factor_enrolled` (`action`).
        public var action: String
        /// `account`, `token`, `factor`, `team` or `key` (`log_type`).
        public var logType: String
        /// Details: the method, the reason, the fields changed (`traits`).
        public var traits: [String: JSONValue]

        /// Creates a payload.
        public init(actorID: String, actorUsername: String, action: String, logType: String, traits: [String: JSONValue]) {
            self.actorID = actorID
            self.actorUsername = actorUsername
            self.action = action
            self.logType = logType
            self.traits = traits
        }

        enum CodingKeys: String, CodingKey {
            case action, traits
            case actorID = "actor_id"
            case actorUsername = "actor_username"
            case logType = "log_type"
        }
    }

    /// The entry's id (`id`).
    public var id: String
    /// What happened (`payload`).
    public var payload: Payload
    /// The account the entry is about (`user_id`).
    public var userID: String?
    /// The client's address (`ip_address`).
    public var ipAddress: String
    /// The client's user agent (`user_agent`).
    public var userAgent: String?
    /// When (`created_at`).
    public var createdAt: Date

    /// Creates an entry.
    public init(id: String, payload: Payload, userID: String?, ipAddress: String, userAgent: String?, createdAt: Date) {
        self.id = id
        self.payload = payload
        self.userID = userID
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, payload
        case userID = "user_id"
        case ipAddress = "ip_address"
        case userAgent = "user_agent"
        case createdAt = "created_at"
    }
}
