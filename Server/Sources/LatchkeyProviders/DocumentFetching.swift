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

/// ``DocumentFetching`` over AsyncHTTPClient: bounded in time and size, and on a client that
/// follows no redirect (``OutboundHTTP``'s): a provider's answer cannot send Latchkey to another
/// address than the one its URL rule accepted.
public struct HTTPDocumentFetcher: DocumentFetching {
    let client: HTTPClient
    let timeout: TimeAmount
    let maxBytes: Int
    /// Where a document may be fetched from.
    let policy: OutboundPolicy

    public init(
        client: HTTPClient = .shared, timeout: Duration = .seconds(5), maxBytes: Int = 1 << 20, policy: OutboundPolicy = OutboundPolicy()
    ) {
        self.client = client
        self.policy = policy
        self.timeout = .nanoseconds(timeout.nanoseconds)
        self.maxBytes = maxBytes
    }

    public func document(at url: String) async throws -> Data {
        if let problem = await policy.problem(url) { throw FetchError(url: url, detail: problem) }
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
