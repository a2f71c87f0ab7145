import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore

/// JWTKit's JSON decoder for this server's tokens: an access token's payload is read by
/// ``AccessTokenClaims/decode(json:)`` (``JSONText`` straight into the claims, a fifth of
/// `JSONDecoder`'s cost on every signed-in request), and a header of plain values (strings,
/// numbers, booleans, nulls: `alg`, `kid`, `typ`) by ``JSONText`` too, as `JWTHeaderField`
/// decodes them (a number is `int` when it is whole, else `decimal`); anything else goes to
/// `JSONDecoder` as JWTKit's default would, with its depth limit for nested header fields.
///
/// JWTKit decodes a payload only after its signature verified, so the payloads read here are
/// ones this server signed. A header is read before: it is anyone's text, which ``JSONText``
/// reads or refuses (at most 64 levels, nothing left over), as it reads stored metadata.
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
        if type == JWTHeader.self, let header = Self.header(data) as? T { return header }
        return try fallback.decode(type, from: data)
    }

    /// A header whose fields are all plain values, or `nil` for `JSONDecoder` to read or refuse.
    static func header(_ data: Data) -> JWTHeader? {
        guard let object = data.withUnsafeBytes({ JSONText.decodeObject($0.bindMemory(to: UInt8.self)) }) else { return nil }
        var fields: [String: JWTHeaderField] = [:]
        for (name, value) in object {
            switch value {
            case .string(let text): fields[name] = .string(text)
            case .bool(let flag): fields[name] = .bool(flag)
            case .null: fields[name] = .null
            case .number(let number): fields[name] = Int(exactly: number).map(JWTHeaderField.int) ?? .decimal(number)
            case .array, .object: return nil
            }
        }
        return JWTHeader(fields: fields)
    }
}

/// JWTKit's JSON encoder for this server's tokens: an access token's payload is written by
/// ``AccessTokenClaims/json()`` and a header of plain values (`alg`, `kid`, `typ`) by
/// ``JSONWriter``, instead of `JSONEncoder` on every sign-in and refresh; anything else goes to
/// `JSONEncoder` as JWTKit's default would.
struct ClaimsEncoder: JWTJSONEncoder {
    /// The serializer every key of a ``TokenIssuer`` signs with.
    static let serializer = DefaultJWTSerializer(jsonEncoder: ClaimsEncoder())

    private let fallback: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    func encode<T: Encodable>(_ value: T) throws -> Data {
        if let payload = value as? AccessTokenPayload, let bytes = payload.claims.json() { return Data(bytes) }
        if let header = value as? JWTHeader, let bytes = Self.header(header) { return Data(bytes) }
        return try fallback.encode(value)
    }

    /// A header whose fields are all plain values, or `nil` for `JSONEncoder` to write.
    static func header(_ header: JWTHeader) -> [UInt8]? {
        var members: [String: JSONValue] = [:]
        for (name, field) in header.fields {
            switch field {
            case .string(let text): members[name] = .string(text)
            case .bool(let flag): members[name] = .bool(flag)
            case .int(let number) where abs(number) < 1 << 53: members[name] = .number(Double(number))
            case .null: members[name] = .null
            default: return nil
            }
        }
        var writer = JSONWriter(style: .compact, capacity: 64)
        return writer.object(members) ? writer.bytes : nil
    }
}
