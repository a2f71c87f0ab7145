import Foundation

extension Setting {
    /// Running in production: logs (and, as #21 goes on, metrics, traces, hooks and webhooks).
    static let operations: [Setting] = [
        .init(
            key: "log-level", environment: ["LATCHKEY_LOG_LEVEL", "GOTRUE_LOG_LEVEL"], defaultValue: "info",
            summary: "trace, debug, info, notice, warning, error or critical (`latchkey serve --log-level` wins)."
        ),
        .init(
            key: "log-format", environment: ["LATCHKEY_LOG_FORMAT"], defaultValue: "text",
            summary:
                "`json`: one JSON object per line (`time`, `level`, `message`, `request_id`, `route`, `status`, `duration_ms`, `user_id` where known) for a log shipper; `text`: lines for a person."
        ),
        .init(
            key: "log-requests", environment: ["LATCHKEY_LOG_REQUESTS"], defaultValue: "false",
            summary:
                "A line for every request at `info` (method, route pattern, status, duration, user); otherwise at `debug`. Paths, queries and bodies are never logged: they carry codes and tokens."
        ),
    ]
}
