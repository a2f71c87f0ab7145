import AsyncHTTPClient
import Foundation
import LatchkeyCore
import NIOCore
import NIOHTTP1

/// Fetches a small JSON document over HTTP(S): what the key cache needs from the network.
public protocol DocumentFetching: Sendable {
    /// The body of a `200` answer to `GET url`; throws otherwise.
    func document(at url: String) async throws -> Data
}

/// ``DocumentFetching`` over AsyncHTTPClient: bounded in time and size (the shared client follows
/// at most five redirects).
public struct HTTPDocumentFetcher: DocumentFetching {
    let client: HTTPClient
    let timeout: TimeAmount
    let maxBytes: Int

    public init(client: HTTPClient = .shared, timeout: Duration = .seconds(5), maxBytes: Int = 1 << 20) {
        self.client = client
        self.timeout = .nanoseconds(timeout.nanoseconds)
        self.maxBytes = maxBytes
    }

    public func document(at url: String) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: timeout)
        guard response.status.code == 200 else { throw FetchError(url: url, detail: "answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: maxBytes)
        return Data(body.readableBytesView)
    }
}

/// A document could not be fetched.
public struct FetchError: Error, CustomStringConvertible {
    public var url: String
    public var detail: String
    public var description: String { "\(url): \(detail)" }
}
