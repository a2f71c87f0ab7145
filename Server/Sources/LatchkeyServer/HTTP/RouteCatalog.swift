import HTTPTypes
import Hummingbird

/// The routes the app serves, recorded as they are added, so a test can hold them against
/// `openapi.json`.
public struct RouteCatalog: Sendable {
    public struct Route: Hashable, Sendable {
        public let method: String
        public let path: String
    }

    public private(set) var routes: [Route] = []

    mutating func add(_ method: HTTPRequest.Method, _ path: String) {
        routes.append(Route(method: method.rawValue, path: path))
    }
}

/// Adds routes to a router and records them.
struct RouteRegistrar {
    let router: Router<APIRequestContext>
    var catalog = RouteCatalog()

    mutating func on(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) {
        catalog.add(method, path)
        router.on(RouterPath(path), method: method, use: handler)
    }
}
