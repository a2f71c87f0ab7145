import Tracing

/// Work run in a span of `tracer`, a child of the task's current span (or of `context`): the span
/// is the task's current one while `body` runs, ends when it returns, and records an error it
/// throws. Without a tracer, `body` runs as it is.
public enum TracedWork {
    public static func run<T: Sendable>(
        _ tracer: (any Tracer)?, _ name: String, kind: SpanKind = .internal, context: InstrumentationContext? = nil,
        attributes: [String: String] = [:], _ body: (_ span: (any Span)?) async throws -> T
    ) async throws -> T {
        guard let tracer else { return try await body(nil) }
        let span = tracer.startSpan(name, context: context ?? InstrumentationContext.current ?? .topLevel, ofKind: kind)
        for (key, value) in attributes { span.attributes[key] = value }
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body(span) }
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
