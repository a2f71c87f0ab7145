import Hummingbird
import LatchkeyCore

/// Lets through only the operator the request's service token names (403 `not_admin` for any
/// other token, 401 without one), and records their role as the actor of every audit event the
/// route writes. In front of every `/admin` route (``RouteRegistrar/asOperator(_:_:_:)``).
struct OperatorAuthentication: RouterMiddleware {
    typealias Context = APIRequestContext
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let role = try await authenticator.authenticateAdmin(authorization: request.headers[.authorization])
        var audit = AuditContext.current
        audit.operatorName = role
        return try await AuditContext.$current.withValue(audit) { try await next(request, context) }
    }
}
