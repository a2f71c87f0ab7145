import Hummingbird
import LatchkeyCore

/// Refuses a query string that names a parameter twice (`?page=1&page=2`) with
/// `400 validation_failed`. Every parameter of the API is a single value; reading the first of
/// several would let a proxy, a cache and the server each see a different request (HTTP
/// parameter pollution).
struct RepeatedQueryMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let query = request.uri.query, query.contains("&") {
            var seen = Set<Substring>()
            for (name, _) in request.uri.queryParameters where !seen.insert(name).inserted {
                throw AuthError.validation("The query parameter \(name.prefix(40)) is given more than once")
            }
        }
        return try await next(request, context)
    }
}
