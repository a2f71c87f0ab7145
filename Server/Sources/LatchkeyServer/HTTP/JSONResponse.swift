import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// Builds JSON responses with the wire encoder.
enum JSONResponse {
    static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, noStore: Bool = false) throws -> Response {
        let body: ByteBuffer
        if let session = value as? Session, let bytes = WireWriter.json(session) {
            body = ByteBuffer(bytes: bytes)
        } else if let user = value as? User, let bytes = WireWriter.json(user) {
            body = ByteBuffer(bytes: bytes)
        } else {
            body = ByteBuffer(bytes: try WireJSON.makeEncoder().encode(value))
        }
        return make(bytes: body, status: status, noStore: noStore)
    }

    /// `/otp`'s and `/resend`'s answer, written directly when it can be.
    static func make(_ answer: OTPResponse) throws -> Response {
        guard let bytes = WireWriter.json(answer) else { return try make(answer, status: .ok, noStore: false) }
        return make(bytes: ByteBuffer(bytes: bytes))
    }

    /// A response of JSON already written.
    static func make(bytes body: ByteBuffer, status: HTTPResponse.Status = .ok, noStore: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "application/json;charset=UTF-8"]
        if noStore {
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("Pragma")!] = "no-cache"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    static func empty() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }
}
