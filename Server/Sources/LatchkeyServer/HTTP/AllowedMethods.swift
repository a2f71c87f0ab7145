import HTTPTypes
import Synchronization

/// Which methods each served path answers, filled as routes are added, so that a request with
/// another method on a known path gets `405` and an `Allow` header instead of `404`.
final class AllowedMethods: Sendable {
    private struct Route {
        let segments: [Substring]
        var methods: [HTTPRequest.Method]
    }
    private let routes = Mutex<[Route]>([])

    /// Records that `path` (Hummingbird's form, `:name` for a parameter) answers `method`.
    func add(_ method: HTTPRequest.Method, _ path: String) {
        let segments = path.split(separator: "/")
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.segments == segments }) {
                if !routes[index].methods.contains(method) { routes[index].methods.append(method) }
            } else {
                routes.append(Route(segments: segments, methods: [method]))
            }
        }
    }

    /// The methods `path` answers (a parameter matches any one segment), in the order they were
    /// added; empty for a path no route serves. Where a route names a segment the router matches
    /// literally (`/user/identities/authorize`), routes with a parameter there (`…/:id`) do not
    /// count, as the router prefers the literal.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            let matching = routes.filter { Self.matches($0.segments, segments) }
            let literal = { (route: Route) in route.segments.filter { !$0.hasPrefix(":") }.count }
            let most = matching.map(literal).max() ?? 0
            var methods: [HTTPRequest.Method] = []
            for route in matching where literal(route) == most {
                for method in route.methods where !methods.contains(method) { methods.append(method) }
            }
            return methods
        }
    }

    private static func matches(_ pattern: [Substring], _ segments: [Substring]) -> Bool {
        guard pattern.count == segments.count else { return false }
        return zip(pattern, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
    }
}
