import Foundation
import Latchkey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport for app developers' tests: records every request and answers from a script.
///
/// ```swift
/// let transport = MockTransport()
/// await transport.respond(to: "POST", path: "/token", status: 200, json: sessionJSON)
/// let auth = AuthClient(configuration: .init(url: url, storage: InMemorySessionStorage(), transport: transport))
/// ```
public actor MockTransport: HTTPTransport {
    /// A request as it was sent.
    public struct Recorded: Sendable {
        /// The HTTP method, e.g. `POST`.
        public let method: String
        /// The URL path, e.g. `/token`.
        public let path: String
        /// The query parameters, e.g. `grant_type`.
        public let query: [String: String]
        /// The request headers.
        public let headers: [String: String]
        /// The request body, if any.
        public let body: Data?

        /// The body parsed as a JSON object.
        public var json: [String: JSONValue]? {
            body.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: $0) }
        }
    }

    /// A scripted answer.
    public struct Reply: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The response headers.
        public var headers: [String: String]
        /// The response body.
        public var body: Data

        /// Creates a reply; the headers default to `Content-Type: application/json`.
        public init(status: Int, headers: [String: String] = ["Content-Type": "application/json"], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// Every request sent so far, oldest first.
    public private(set) var requests: [Recorded] = []
    private var routes: [String: [Reply]] = [:]
    private var delay: Duration = .zero
    private var networkDown = false

    /// Creates a transport with no script: every request gets a 404 `not_found`.
    public init() {}

    /// Answers requests to `method path` with `replies` in order; the last one repeats.
    public func respond(to method: String, path: String, _ replies: Reply...) {
        routes["\(method) \(path)", default: []].append(contentsOf: replies)
    }

    /// Answers with `json` and `status`; errors carry the 2024-01-01 header like a real server.
    public func respond(to method: String, path: String, status: Int = 200, json: String) {
        var headers = ["Content-Type": "application/json"]
        if status >= 400 { headers["X-Supabase-Api-Version"] = "2024-01-01" }
        respond(to: method, path: path, Reply(status: status, headers: headers, body: Data(json.utf8)))
    }

    /// Waits this long before answering each request.
    public func setDelay(_ delay: Duration) { self.delay = delay }

    /// Fails every request as if the network were down.
    public func setNetworkDown(_ down: Bool) { networkDown = down }

    /// How many requests went to `method path`.
    public func count(_ method: String, _ path: String) -> Int {
        requests.filter { $0.method == method && $0.path == path }.count
    }

    /// Records `request` and answers with the next scripted reply for its method and path.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let url = request.url ?? URL(string: "http://invalid")!
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let method = request.httpMethod ?? "GET"
        let path = components?.path ?? url.path
        requests.append(
            Recorded(
                method: method, path: path, query: query, headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody))
        if delay > .zero { try await Task.sleep(for: delay) }
        if networkDown { throw URLError(.notConnectedToInternet) }
        let key = "\(method) \(path)"
        guard var queue = routes[key], let reply = queue.first else {
            return (
                Data(#"{"code":"not_found","message":"No scripted reply"}"#.utf8),
                Self.response(url, 404, ["X-Supabase-Api-Version": "2024-01-01"])
            )
        }
        if queue.count > 1 {
            queue.removeFirst()
            routes[key] = queue
        }
        return (reply.body, Self.response(url, reply.status, reply.headers))
    }

    static func response(_ url: URL, _ status: Int, _ headers: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }
}
