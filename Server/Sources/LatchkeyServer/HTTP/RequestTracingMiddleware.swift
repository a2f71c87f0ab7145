import HTTPTypes
import Hummingbird
import LatchkeyCore
import Tracing

/// A server span per request, named by method and route pattern, continuing the caller's trace
/// when it sends a W3C `traceparent`; the store's transactions are its children. Added only when
/// traces are on.
struct RequestTracingMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let tracer: any Tracer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = InstrumentationContext.topLevel
        tracer.extract(request.headers, into: &parent, using: FieldsExtractor())
        let route = context.endpointPath ?? "unmatched"
        return try await TracedWork.run(
            tracer, "\(request.method.rawValue) \(route)", kind: .server, context: parent,
            attributes: ["http.request.method": request.method.rawValue, "http.route": route]
        ) { span in
            let response = try await next(request, context)
            span?.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span?.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }
}

/// With traces on, every matched route's handling (the controller, the bearer token's check and
/// the use case it calls) runs in a span of its own, `handle <METHOD> <route>`, beneath the
/// request's (``RequestTracingMiddleware``). The last of the router's middleware.
struct HandlerTracingMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let tracer: any Tracer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let route = context.endpointPath else { return try await next(request, context) }
        return try await TracedWork.run(tracer, "handle \(request.method.rawValue) \(route)") { _ in try await next(request, context) }
    }
}

/// Reads propagation headers (`traceparent`, `tracestate`) from a request.
private struct FieldsExtractor: Extractor {
    func extract(key name: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}
