import Foundation
import LatchkeyAPI

extension AccessTokenClaims {
    /// The claims of a token's payload: read by ``JSONText`` when it takes the payload as it is
    /// (a fifth of `JSONDecoder`'s cost on every signed-in request), else by `JSONDecoder`, which
    /// reads it or fails.
    public static func decode(json data: Data) throws -> AccessTokenClaims {
        if let object = data.withUnsafeBytes({ JSONText.decodeObject($0.bindMemory(to: UInt8.self)) }),
            let claims = AccessTokenClaims(jsonObject: object)
        {
            return claims
        }
        return try JSONDecoder().decode(AccessTokenClaims.self, from: data)
    }

    /// The payload as it is signed, written by ``JSONWriter`` in ``encode(to:)``'s order with the
    /// same claims left out: what `JSONEncoder` writes, but for escaping `/` (a fifth of its cost
    /// on every sign-in and refresh). `nil` for a number JSON cannot write (in custom claims or
    /// metadata), which `JSONEncoder` then refuses as it always did.
    public func json() -> [UInt8]? {
        var writer = JSONWriter(style: .compact, capacity: 512)
        if let custom { return writer.object(custom) ? writer.bytes : nil }
        var first = true
        func key(_ name: StaticString) {
            writer.key(name, first: first)
            first = false
        }
        func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            writer.string(value)
        }
        func int(_ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(name)
            writer.int(value)
        }
        func object(_ name: StaticString, _ value: [String: JSONValue]?) -> Bool {
            guard let value else { return true }
            key(name)
            return writer.object(value)
        }
        writer.open()
        string("iss", iss)
        string("sub", sub)
        if let aud, let resource {
            key("aud")
            _ = writer.array([aud, resource]) { $0.string($1) }
        } else {
            string("aud", aud)
        }
        int("exp", exp)
        int("iat", iat)
        int("nbf", nbf)
        string("email", email)
        string("phone", phone)
        guard object("app_metadata", appMetadata), object("user_metadata", userMetadata) else { return nil }
        string("role", role)
        string("aal", aal)
        if let amr {
            key("amr")
            _ = writer.array(amr) { writer, entry in
                writer.open()
                writer.key("method", first: true)
                writer.string(entry.method)
                writer.key("timestamp")
                writer.int(entry.timestamp)
                writer.close()
                return true
            }
        }
        string("session_id", sessionID)
        if let isAnonymous {
            key("is_anonymous")
            writer.bool(isAnonymous)
        }
        string("client_id", clientID)
        string("scope", scope)
        writer.close()
        return writer.bytes
    }

    /// The claims in a parsed payload, read by the rules of ``init(from:)``; `nil` for anything
    /// those rules would refuse or read otherwise (left to `JSONDecoder`).
    init?(jsonObject object: [String: JSONValue]) {
        /// A string claim: absent or `null` is `nil`; another type refuses the payload.
        func string(_ key: String) -> String?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .string(let value)?: return .some(value)
            default: return nil
            }
        }
        /// A number claim as whole seconds.
        func seconds(_ key: String) -> Int?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .number(let value)? where abs(value) < 9_007_199_254_740_992: return .some(Int(value))
            default: return nil
            }
        }
        func metadata(_ key: String) -> [String: JSONValue]?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .object(let value)?: return .some(value)
            default: return nil
            }
        }
        guard let iss = string("iss"), let sub = string("sub"), let exp = seconds("exp"), let iat = seconds("iat"),
            let nbf = seconds("nbf"), let email = string("email"), let phone = string("phone"),
            let appMetadata = metadata("app_metadata"), let userMetadata = metadata("user_metadata"), let role = string("role"),
            let aal = string("aal"), let sessionID = string("session_id")
        else { return nil }
        // `aud`: a string, or the first of a list of strings.
        let aud: String?
        switch object["aud"] {
        case nil, .null?: aud = nil
        case .string(let value)?: aud = value
        case .array(let items)?:
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count else { return nil }
            aud = strings.first
        default: return nil
        }
        let isAnonymous: Bool?
        switch object["is_anonymous"] {
        case nil, .null?: isAnonymous = nil
        case .bool(let value)?: isAnonymous = value
        default: return nil
        }
        self.init(
            iss: iss, sub: sub, aud: aud, exp: exp, iat: iat, email: email, phone: phone, appMetadata: appMetadata,
            userMetadata: userMetadata, role: role, aal: aal, amr: Self.amr(object["amr"]), sessionID: sessionID,
            isAnonymous: isAnonymous)
        self.nbf = nbf
        // An OAuth client's claims (#40), read as ``init(from:)`` reads them: a string, else absent.
        if case .string(let clientID)? = object["client_id"] { self.clientID = clientID }
        if case .string(let scope)? = object["scope"] { self.scope = scope }
    }

    /// `amr` as ``init(from:)`` reads it: the list when every entry is a method with whole-second
    /// timestamp, else `nil`.
    private static func amr(_ value: JSONValue?) -> [AuthenticationMethod]? {
        guard case .array(let items)? = value else { return nil }
        var methods: [AuthenticationMethod] = []
        for item in items {
            guard case .object(let fields) = item, case .string(let method)? = fields["method"],
                case .number(let timestamp)? = fields["timestamp"], let seconds = Int(exactly: timestamp)
            else { return nil }
            methods.append(AuthenticationMethod(method: method, timestamp: seconds))
        }
        return methods
    }
}
