import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Logging
import ServiceLifecycle

/// `GET /metrics`: Prometheus's text format, sampled at each scrape. On the main port it needs
/// the configured bearer token (compared in constant time); on a port of its own, none.
struct MetricsController {
    let metrics: ServerMetrics
    let store: any MetricsSampling
    let time: any TimeSource
    /// `nil` on the metrics port of its own.
    let token: String?

    /// On the main port, behind the token.
    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/metrics") { request, _ in try await scrape(request) }
    }

    /// On a port of its own: a small application with only `/metrics`.
    func application(host: String, port: Int, logger: Logger) -> some Service {
        let router = Router()
        router.get("/metrics") { request, _ in try await scrape(request) }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "Latchkey"), logger: logger)
    }

    func scrape(_ request: Request) async throws -> Response {
        if let token {
            let given = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
            guard ConstantTime.equal(given, token) else {
                throw AuthError(.noAuthorization, "This endpoint requires the metrics token")
            }
        }
        let text = await metrics.render(sampling: store, now: time.now())
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
