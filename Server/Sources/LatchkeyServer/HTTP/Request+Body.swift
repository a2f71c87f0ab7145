import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

extension Request {
    /// Reads the body (at most 1 MB) and decodes it as JSON into `type`, answering bad input with
    /// `400 bad_json` or `413 request_entity_too_large` before any work is done. An empty body is
    /// not JSON (GoTrue's answer too), unless `allowingEmpty` (a body whose every field is
    /// optional, such as `DELETE /admin/users/{id}`'s), where it reads as `{}`.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: some RequestContext, allowingEmpty: Bool = false) async throws -> T {
        try Self.decodeJSON(type, from: Data(try await collectBody(context: context).readableBytesView), allowingEmpty: allowingEmpty)
    }

    /// `data`, already read, decoded as ``decodeJSON(_:context:allowingEmpty:)`` decodes a body.
    static func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data, allowingEmpty: Bool = false) throws -> T {
        var data = data
        if data.isEmpty {
            guard allowingEmpty else { throw AuthError(.badJSON, "Could not parse request body as JSON: EOF") }
            data = Data("{}".utf8)
        }
        let decoder = WireJSON.makeDecoder()
        do {
            return try decoder.decode(T.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) {
            let path = Self.path(context.codingPath)
            throw AuthError(
                .badJSON,
                path.isEmpty
                    ? "Could not read request body: expected a JSON object" : "Could not read request body: wrong type for '\(path)'")
        } catch let DecodingError.valueNotFound(_, context) {
            throw AuthError(.badJSON, "Could not read request body: missing value for '\(Self.path(context.codingPath))'")
        } catch {
            throw AuthError(.badJSON, "Could not parse request body as JSON")
        }
    }

    /// Whether `data` is a JSON object (its first byte past white space is `{`): what GoTrue reads
    /// whatever the `Content-Type` says (curl's `-d '{…}'` sends it as a form).
    static func isJSONObject(_ data: Data) -> Bool {
        data.first { ![0x20, 0x09, 0x0a, 0x0d].contains($0) } == UInt8(ascii: "{")
    }

    /// The body, at most `context.maxUploadSize` (1 MB), or `413 request_entity_too_large`: the one
    /// place a body is read.
    func collectBody(context: some RequestContext) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: context.maxUploadSize)
        } catch {
            throw AuthError(.requestEntityTooLarge, "Request body too large")
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map(\.stringValue).joined(separator: ".")
    }

    /// A query parameter's value, if present and not empty.
    func queryValue(_ name: String) -> String? {
        guard let value = uri.queryParameters.get(name), !value.isEmpty else { return nil }
        return value
    }
}
