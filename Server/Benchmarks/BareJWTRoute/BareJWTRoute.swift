import Foundation
import Hummingbird
import JWTKit

/// The ceiling for `GET /user` on this machine: a Hummingbird route that verifies an ES256 access
/// token and answers a small JSON body, nothing else (no store, no user).
///
///     BareJWTRoute [PORT]
///
/// `GET /token` mints a token for the load generator; `GET /user` verifies the `Bearer` token.
@main
struct BareJWTRoute {
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    static func main() async throws {
        let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 9997 : 9997
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: ES256PrivateKey())
        let router = Router()
        router.get("token") { _, _ -> String in
            try await keys.sign(Claims(sub: "bench", exp: .init(value: .now.addingTimeInterval(3600))))
        }
        router.get("user") { request, _ -> Response in
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
                let claims = try? await keys.verify(String(header.dropFirst(7)), as: Claims.self)
            else { return Response(status: .forbidden) }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"id":"\#(claims.sub.value)"}"#)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
