import Hummingbird
import LatchkeyCore

/// The context of a route for a signed-in user: what ``APIRequestContext`` carries, and the caller
/// the bearer token names, never optional. A route gets it only behind ``BearerAuthentication``,
/// which answers a request without a valid token (401 `no_authorization`, 403 `bad_jwt`, 403
/// `session_not_found`, 403 `user_banned`...) before the handler runs.
struct AuthenticatedContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The signed-in caller.
    let principal: Principal
    /// The caller as rate limits and the audit log see it.
    let client: ClientInfo
    /// The request's id (logs, `error_id`).
    let requestID: String

    init(context: APIRequestContext) throws {
        // BearerAuthentication runs before the group's context is made; without it no route is
        // registered with this context (RouteRegistrar), so this is only a guard.
        guard let principal = context.principal else { throw AuthError.noAuthorization }
        self.coreContext = context.coreContext
        self.principal = principal
        self.client = context.client
        self.requestID = context.requestID
    }

    /// Bodies over 1 MB are refused, as everywhere (``APIRequestContext``).
    var maxUploadSize: Int { 1 << 20 }
}

/// Reads the `Authorization: Bearer` token of a request for a signed-in user's route into its
/// context (``AuthenticatedContext``), or answers as GoTrue does when there is none or it is not
/// good. `gate` runs first: a feature that is off answers so before the caller is read (passkeys'
/// 404 `passkey_disabled`, as GoTrue orders it).
struct BearerAuthentication: RouterMiddleware {
    typealias Context = APIRequestContext
    let authenticator: Authenticator
    var gate: (@Sendable () throws -> Void)? = nil
    /// Whether a token an OAuth client holds for the user is taken (``Authenticator/authenticate(authorization:allowingClients:)``).
    var allowingClients = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try gate?()
        var context = context
        context.principal = try await authenticator.authenticate(
            authorization: request.headers[.authorization], allowingClients: allowingClients)
        return try await next(request, context)
    }
}
