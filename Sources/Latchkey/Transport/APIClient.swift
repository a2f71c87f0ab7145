import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds requests to the auth server and turns its answers into values or ``LatchkeyError``.
struct APIClient: Sendable {
    let baseURL: URL
    let headers: [String: String]
    let transport: any HTTPTransport

    static let clientInfo = "latchkey-swift/0.1.0"

    func request(
        _ method: String, _ path: String, query: [String: String] = [:], body: (any Encodable & Sendable)? = nil,
        bearer: String? = nil
    ) throws -> URLRequest {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard var components = URLComponents(url: baseURL.appendingPathComponent(trimmed), resolvingAgainstBaseURL: false)
        else { throw LatchkeyError(code: .validationFailed, message: "Invalid server URL") }
        if !query.isEmpty { components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        guard let url = components.url else { throw LatchkeyError(code: .validationFailed, message: "Invalid server URL") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(APIVersion.current, forHTTPHeaderField: APIVersion.headerName)
        request.setValue(Self.clientInfo, forHTTPHeaderField: "X-Client-Info")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json;charset=UTF-8", forHTTPHeaderField: "Content-Type")
            request.httpBody = try WireJSON.makeEncoder().encode(body)
        }
        return request
    }

    /// Sends a request and decodes a successful answer as `T`.
    func send<T: Decodable>(_ request: URLRequest, as type: T.Type) async throws -> T {
        let data = try await sendRaw(request)
        do {
            return try WireJSON.makeDecoder().decode(T.self, from: data)
        } catch {
            throw LatchkeyError(code: .invalidResponse, message: "Unexpected answer from the server: \(error)")
        }
    }

    /// Sends a request and returns the body of a successful answer. A request the calling task
    /// cancelled throws `CancellationError`, as Swift concurrency expects (not `network_error`,
    /// which an app would show or retry).
    @discardableResult
    func sendRaw(_ request: URLRequest) async throws -> Data {
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await transport.send(request)
        } catch let error as LatchkeyError {
            throw error
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw LatchkeyError.network(error)
        }
        guard (200..<300).contains(response.statusCode) else { throw Self.error(from: data, response: response) }
        return data
    }

    /// Reads either error dialect (and the OAuth one) into a ``LatchkeyError``.
    static func error(from data: Data, response: HTTPURLResponse) -> LatchkeyError {
        let status = response.statusCode
        let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) }
        if [502, 503, 504].contains(status) {
            return LatchkeyError(
                code: .networkError, message: "The server is unavailable (\(status))", status: status, retryAfter: retryAfter)
        }
        let decoder = WireJSON.makeDecoder()
        let structured = APIVersion.usesStructuredErrors(response.value(forHTTPHeaderField: APIVersion.headerName))
        if structured, let body = try? decoder.decode(APIErrorBody.self, from: data) {
            return LatchkeyError(
                code: body.code, message: body.message, status: status, retryAfter: retryAfter,
                weakPasswordReasons: body.weakPassword?.reasons ?? [], codeRefusal: body.reason.flatMap(CodeRefusal.init(rawValue:)),
                attemptsRemaining: body.attemptsRemaining)
        }
        if let body = try? decoder.decode(LegacyAPIErrorBody.self, from: data) {
            return LatchkeyError(
                code: body.errorCode, message: body.msg, status: status, retryAfter: retryAfter,
                weakPasswordReasons: body.weakPassword?.reasons ?? [], codeRefusal: body.reason.flatMap(CodeRefusal.init(rawValue:)),
                attemptsRemaining: body.attemptsRemaining)
        }
        if let body = try? decoder.decode(OAuthErrorBody.self, from: data) {
            // Latchkey names the precise cause of an OAuth error in `x-sb-error-code`.
            let precise = response.value(forHTTPHeaderField: "x-sb-error-code").map(ErrorCode.init(rawValue:))
            let code = precise == .deviceKeyNotFound ? .deviceKeyNotFound : ErrorCode(body.error)
            return LatchkeyError(code: code, message: body.errorDescription, status: status)
        }
        return LatchkeyError(
            code: status >= 500 ? .unexpectedFailure : .unknown, message: "The server answered \(status)", status: status,
            retryAfter: retryAfter)
    }
}
