/// The `X-Supabase-Api-Version` header, which selects the error dialect.
///
/// Requests that carry a version of `2024-01-01` or later get errors as
/// `{"code": "<error_code>", "message": "…"}` and the header echoed back; older requests get the
/// legacy `{"code": <status>, "error_code": "…", "msg": "…"}` body.
public enum APIVersion {
    /// The header's name.
    public static let headerName = "X-Supabase-Api-Version"
    /// The newest version this module speaks.
    public static let current = "2024-01-01"

    /// Whether a request's header value selects the 2024-01-01 error dialect.
    public static func usesStructuredErrors(_ headerValue: String?) -> Bool {
        guard let value = headerValue?.trimmingWhitespace(), value.count == 10 else { return false }
        return value >= current
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
