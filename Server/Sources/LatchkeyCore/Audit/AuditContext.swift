/// Where the current request comes from, for the audit log: bound once per HTTP request by the
/// server and once per command by the CLI, read wherever an ``AuditEvent`` is made.
public struct AuditContext: Sendable, Equatable {
    public var ip: String?
    public var userAgent: String?
    /// The operator acting (`service_role`, `cli:alice`), when an operator is; events then name
    /// the operator as their actor rather than the user they are about.
    public var operatorName: String?

    public init(ip: String? = nil, userAgent: String? = nil, operatorName: String? = nil) {
        self.ip = ip
        self.userAgent = userAgent
        self.operatorName = operatorName
    }

    /// The context of the task.
    @TaskLocal public static var current = AuditContext()
}
