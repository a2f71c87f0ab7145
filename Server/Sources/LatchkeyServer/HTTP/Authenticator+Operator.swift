import Hummingbird
import LatchkeyCore

extension Authenticator {
    /// Runs an admin endpoint's `body` for the operator the request's service token names: 403
    /// `not_admin` for any other token, and the role recorded as the actor of every audit event
    /// the body writes.
    func asOperator(_ request: Request, _ body: () async throws -> Response) async throws -> Response {
        let role = try await authenticateAdmin(authorization: request.headers[.authorization])
        var context = AuditContext.current
        context.operatorName = role
        return try await AuditContext.$current.withValue(context) { try await body() }
    }
}
