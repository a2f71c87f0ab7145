import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import NIOCore

/// A response as the tests read it: from the suite's client or from a connection of its own.
protocol TestAnswer: Sendable {
    var status: HTTPResponse.Status { get }
    var headers: HTTPFields { get }
    var bytes: ByteBuffer { get }
}

extension TestResponse: TestAnswer {
    var bytes: ByteBuffer { body }
}

extension TestClient.Response: TestAnswer {
    var bytes: ByteBuffer { body ?? ByteBuffer() }
}

extension TestAnswer {
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decode(T.self, from: Data(bytes.readableBytesView))
    }

    /// The `error_code` of an API error.
    var errorCode: String? { (try? decode(APIErrorBody.self))?.code.rawValue }
    /// The OAuth `error` of a refused grant.
    var oauthError: String? { (try? decode(OAuthErrorBody.self))?.error }
    var text: String { String(buffer: bytes) }
}

extension TestClientProtocol {
    /// Sends `count` requests at once, each over a connection of its own, and returns the answers
    /// in the order of `index`.
    ///
    /// The suite's client has one connection and pipelines on it, and the server answers one
    /// connection's requests one after another: a race needs connections of their own. Each
    /// request has a minute to be answered, however loaded the machine running the suite.
    func concurrently(
        _ count: Int, _ method: HTTPRequest.Method, _ uri: String, bearer: String? = nil,
        json: @escaping @Sendable (_ index: Int) -> String?
    ) async throws -> [TestClient.Response] {
        guard let port else { throw TestClient.Error.connectionNotOpen }
        var headers: HTTPFields = [apiVersionHeader: "2024-01-01", .contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        let shared = headers
        return try await withThrowingTaskGroup(of: (Int, TestClient.Response).self) { group in
            for index in 0..<count {
                group.addTask {
                    try await TestClient.withClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(60))) {
                        let request = TestClient.Request(
                            uri, method: method, authority: "localhost", headers: shared, body: json(index).map { ByteBuffer(string: $0) })
                        return (index, try await $0.execute(request))
                    }
                }
            }
            var answers = [TestClient.Response?](repeating: nil, count: count)
            for try await (index, answer) in group { answers[index] = answer }
            return answers.compactMap { $0 }
        }
    }

    /// ``concurrently(_:_:_:bearer:json:)`` with the same body each time.
    func concurrently(
        _ count: Int, _ method: HTTPRequest.Method, _ uri: String, json: String?, bearer: String? = nil
    ) async throws -> [TestClient.Response] {
        try await concurrently(count, method, uri, bearer: bearer) { _ in json }
    }
}
