import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends HTTP requests for the SDK. ``URLSessionTransport`` is the default; tests inject a mock
/// (`LatchkeyTesting.MockTransport`).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and the response, or throws when no response came.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// The default transport over `URLSession`.
public struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    /// Creates a transport over `session`.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Sends `request` with `URLSession`; a non-HTTP response throws `invalid_response`.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw LatchkeyError(code: .invalidResponse, message: "Not an HTTP response")
        }
        return (data, http)
    }
}
