import Foundation

extension Setting {
    /// Running in production: logs (and, as #21 goes on, metrics, traces, hooks and webhooks).
    static let operations: [any SettingDeclaration] = [
        logLevel,
        logFormat,
        logRequests,
        metricsEnabled,
        metricsToken,
        metricsPort,
        tracesExporter,
        tracesEndpoint,
        metricsHost,
        outboundAllowPrivate,
        httpHeaderTimeout,
        httpBodyTimeout,
        httpIdleTimeout,
    ]
}

extension Setting {
    static let logLevel = text(
        "log-level", ["LATCHKEY_LOG_LEVEL", "GOTRUE_LOG_LEVEL"], default: "info",
        summary: "trace, debug, info, notice, warning, error or critical (`latchkey serve --log-level` wins).")

    static let logFormat = text(
        "log-format", ["LATCHKEY_LOG_FORMAT"], default: "text",
        summary:
            "`json`: one JSON object per line (`time`, `level`, `message`, `request_id`, `route`, `status`, `duration_ms`, `user_id` where known) for a log shipper; `text`: lines for a person."
    )

    static let logRequests = flag(
        "log-requests", ["LATCHKEY_LOG_REQUESTS"], default: false,
        summary:
            "A line for every request at `info` (method, route pattern, status, duration, user); otherwise at `debug`. Paths, queries and bodies are never logged: they carry codes and tokens."
    )

    static let metricsEnabled = flag(
        "metrics-enabled", ["LATCHKEY_METRICS_ENABLED", "GOTRUE_METRICS_ENABLED"], default: false,
        summary:
            "Prometheus metrics at `GET /metrics`: on the main port behind `metrics-token`, or on `metrics-port` of their own; turning them on with neither refuses to start."
    )

    static let metricsToken = text(
        "metrics-token", ["LATCHKEY_METRICS_TOKEN"],
        summary: "The bearer token a scraper sends (`Authorization: Bearer …`) for `/metrics` on the main port; at least 16 characters.")

    static let metricsPort = count(
        "metrics-port", ["LATCHKEY_METRICS_PORT"], in: 1...65535,
        summary: "A port of their own for `/metrics`, without a token, on `metrics-host`.")

    static let tracesExporter = text(
        "traces-exporter", ["OTEL_TRACES_EXPORTER"], shown: "none",
        summary:
            "`otlp`: a span per request (continuing a W3C `traceparent`) with a child per store transaction, sent over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`; the other `OTEL_*` variables (service name, sampler, batching, headers, `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` or `http/json`) are read as the OpenTelemetry specification says. Off unless this is `otlp` or an OTLP endpoint is set."
    )

    static let tracesEndpoint = text(
        "traces-endpoint", ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"],
        summary: "Where spans go (`http://collector:4318`; `/v1/traces` is added to the general endpoint); setting one turns traces on.")

    static let metricsHost = text(
        "metrics-host", ["LATCHKEY_METRICS_HOST"], default: "127.0.0.1",
        summary: "The address `metrics-port` listens on (loopback unless set: a scraper on the same machine or network namespace).")

    static let outboundAllowPrivate = flag(
        "outbound-allow-private", ["LATCHKEY_OUTBOUND_ALLOW_PRIVATE"], default: false,
        summary:
            "Let hooks, webhooks and identity providers' documents and endpoints be on internal addresses (private, link-local such as 169.254.169.254, shared), named literally or through DNS. Off: refused, so a provider's document or a DNS answer cannot point Latchkey at the machines behind it. Loopback names and literals (`localhost`, `127.0.0.1`, `::1`) and `host.docker.internal` are allowed either way, where their URL rules allow them (configured hooks, loopback issuers); redirects are never followed."
    )

    static let httpHeaderTimeout = seconds(
        "http-header-timeout", ["LATCHKEY_HTTP_HEADER_TIMEOUT"], default: 2, in: 1...,
        summary:
            "Seconds from a request's first byte to the end of its headers (GoTrue's header-read timeout); a connection that takes longer is closed (Slowloris)."
    )

    static let httpBodyTimeout = seconds(
        "http-body-timeout", ["LATCHKEY_HTTP_BODY_TIMEOUT"], default: 30, in: 1...,
        summary: "Seconds from the end of a request's headers to the end of its body; a connection that takes longer is closed.")

    static let httpIdleTimeout = seconds(
        "http-idle-timeout", ["LATCHKEY_HTTP_IDLE_TIMEOUT"], default: 30, in: 1...,
        summary:
            "Seconds a connection may wait with no request in progress (a new one that sends nothing, or a kept-alive one between requests) before it is closed."
    )
}
