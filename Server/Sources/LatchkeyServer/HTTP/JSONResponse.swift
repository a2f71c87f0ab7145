import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// Builds JSON responses with the wire encoder.
enum JSONResponse {
    static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, noStore: Bool = false) throws -> Response {
        let data = try WireJSON.makeEncoder().encode(value)
        var headers: HTTPFields = [.contentType: "application/json;charset=UTF-8"]
        if noStore {
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("Pragma")!] = "no-cache"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func empty() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }
}
