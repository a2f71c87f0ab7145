import Hummingbird

/// Counts every answered request and its latency, by method, route pattern and status, into
/// ``ServerMetrics``. Added only when metrics are on.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            metrics.request(
                method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: status,
                duration: ContinuousClock.now - start)
        }
        let response = try await next(request, context)
        status = Int(response.status.code)
        return response
    }
}
