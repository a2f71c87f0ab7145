import Foundation
import JWTKit
import LatchkeyCore

/// JWTKit's JSON decoder for this server's tokens: an access token's payload is read by
/// ``AccessTokenClaims/decode(json:)`` (``JSONText`` straight into the claims, a fifth of
/// `JSONDecoder`'s cost on every signed-in request); anything else goes to `JSONDecoder` as
/// JWTKit's default would.
///
/// JWTKit decodes a payload only after its signature verified, so the payloads read here are
/// ones this server signed.
struct ClaimsDecoder: JWTJSONDecoder {
    /// The parser every key of a ``TokenIssuer`` reads tokens with.
    static let parser = DefaultJWTParser(jsonDecoder: ClaimsDecoder())

    private let fallback: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if type == AccessTokenPayload.self, let payload = AccessTokenPayload(try AccessTokenClaims.decode(json: data)) as? T {
            return payload
        }
        return try fallback.decode(type, from: data)
    }
}
