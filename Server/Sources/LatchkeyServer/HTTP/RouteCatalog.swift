import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The routes the app serves, recorded as they are added, so a test can hold them against
/// `openapi.json`.
public struct RouteCatalog: Sendable {
    public struct Route: Hashable, Sendable {
        public let method: String
        public let path: String
    }

    public private(set) var routes: [Route] = []

    /// Records a route; Hummingbird's `:name` parameters are written OpenAPI's way, `{name}`.
    mutating func add(_ method: HTTPRequest.Method, _ path: String) {
        let openAPIPath = path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
        routes.append(Route(method: method.rawValue, path: openAPIPath))
    }
}

/// Adds routes to a router and records them.
struct RouteRegistrar {
    let router: Router<APIRequestContext>
    /// Shared with the error middleware, which answers other methods on these paths with 405.
    let allowed: AllowedMethods
    /// Who the caller of a signed-in user's route is (``signedIn(_:_:gate:_:)``).
    let authenticator: Authenticator
    var catalog = RouteCatalog()

    mutating func on(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) {
        record(method, path)
        router.on(RouterPath(path), method: method, use: handler)
    }

    /// A route for a signed-in user: behind ``BearerAuthentication`` (after `gate`, when there is
    /// one), its handler gets an ``AuthenticatedContext``. A token an OAuth client holds is
    /// refused unless `allowingClients` (`403 insufficient_scope`).
    mutating func signedIn(
        _ method: HTTPRequest.Method, _ path: String, gate: (@Sendable () throws -> Void)? = nil, allowingClients: Bool = false,
        _ handler: @escaping @Sendable (Request, AuthenticatedContext) async throws -> Response
    ) {
        record(method, path)
        router.group()
            .add(middleware: BearerAuthentication(authenticator: authenticator, gate: gate, allowingClients: allowingClients))
            .group(context: AuthenticatedContext.self)
            .on(RouterPath(path), method: method, use: handler)
    }

    /// An operator's route: behind ``OperatorAuthentication`` (403 `not_admin` for any token but a
    /// service role's), with the operator recorded as the actor of every audit event it writes.
    mutating func asOperator(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) {
        record(method, path)
        router.group().add(middleware: OperatorAuthentication(authenticator: authenticator)).on(
            RouterPath(path), method: method, use: handler)
    }

    private mutating func record(_ method: HTTPRequest.Method, _ path: String) {
        catalog.add(method, path)
        allowed.add(method, path)
    }
}
