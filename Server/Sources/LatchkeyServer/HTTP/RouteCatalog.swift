import HTTPTypes
import Hummingbird
import LatchkeyCore
import Tracing

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
    /// With traces on, every handler (the controller and the use case it calls) runs in a span of
    /// its own (`handle <METHOD> <path>`) beneath the request's.
    var tracer: (any Tracer)? = nil
    var catalog = RouteCatalog()

    mutating func on(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) {
        catalog.add(method, path)
        allowed.add(method, path)
        guard let tracer else {
            router.on(RouterPath(path), method: method, use: handler)
            return
        }
        let name = "handle \(method.rawValue) \(path)"
        router.on(RouterPath(path), method: method) { request, context in
            try await TracedWork.run(tracer, name) { _ in try await handler(request, context) }
        }
    }
}
