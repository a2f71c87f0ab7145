import Foundation
import LatchkeyAPI

extension Hooks {
    /// The claims the hook may not change while ``protectsClaims`` holds: who the token is for,
    /// who issued it, when, and how the session proved itself. `exp` may only move earlier.
    static let protectedClaims = ["iss", "sub", "aud", "iat", "session_id", "aal", "amr", "is_anonymous"]

    /// `customize-access-token`: the hook sees the claims about to be signed (and how the user
    /// signed in) and answers the claims to sign. The answer must keep GoTrue's required claims
    /// with their types (GoTrue's schema); with ``protectsClaims`` it may also not change the
    /// protected ones, nor make the token live longer. A broken answer fails the sign-in as
    /// GoTrue's does (500, with what is wrong).
    public func customize(_ claims: AccessTokenClaims, userID: UUID, method: String) async throws -> AccessTokenClaims {
        guard isEnabled(.customAccessToken) else { return claims }
        guard case .object(let original) = Self.json(claims) else { return claims }
        let answer = try await invoke(
            .customAccessToken,
            ["user_id": .string(userID.lowercasedString), "claims": .object(original), "authentication_method": .string(method)],
            userID: userID)
        guard let output = answer["claims"] else { throw Self.claimsError("output claims field is missing") }
        guard case .object(let changed) = output else { throw Self.claimsError("output claims must be an object") }
        let problems =
            Self.schemaProblems(changed) + (protectsClaims ? Self.protectionProblems(changed, original: original) : [])
            + Self.roleProblems(changed, original: original, operatorRoles: operatorRoles)
        guard problems.isEmpty else {
            throw Self.claimsError("output claims do not conform to the expected schema: \n" + problems.map { "- \($0)\n" }.joined())
        }
        return try AccessTokenClaims(custom: changed)
    }

    static func claimsError(_ message: String) -> AuthError {
        var error = AuthError(.unexpectedFailure, message)
        error.status = 500
        return error
    }

    /// What GoTrue's `MinimumViableTokenSchema` refuses in `claims`.
    static func schemaProblems(_ claims: [String: JSONValue]) -> [String] {
        var problems: [String] = []
        for name in ["aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"] where claims[name] == nil {
            problems.append("\(name) is required")
        }
        for (name, value) in claims {
            let fits: Bool
            switch name {
            case "aud":
                fits = value.stringValue != nil || (value.arrayValue?.allSatisfy { $0.stringValue != nil } ?? false)
            case "exp", "iat", "nbf":
                fits = value.numberValue.map { $0.isFinite && $0.rounded() == $0 && abs($0) < 1e15 } ?? false
            case "jti", "iss", "sub", "email", "phone", "role", "aal", "session_id", "client_id":
                fits = value.stringValue != nil
            case "app_metadata", "user_metadata":
                fits = value.objectValue != nil
            case "amr":
                fits = value.arrayValue?.allSatisfy { $0.stringValue != nil || $0.objectValue != nil } ?? false
            default:
                fits = true
            }
            if !fits { problems.append("\(name): invalid type") }
        }
        return problems.sorted()
    }

    /// A user's token made an operator's: a `role` among the operator roles that the original
    /// claims did not have. Always refused: a hook mapping `user_metadata.role` (which the user
    /// writes) to `role` would otherwise let any user call the admin API.
    static func roleProblems(_ claims: [String: JSONValue], original: [String: JSONValue], operatorRoles: Set<String>) -> [String] {
        guard let role = claims["role"]?.stringValue, operatorRoles.contains(role), claims["role"] != original["role"] else { return [] }
        return ["role may not be changed to the operator role \(role)"]
    }

    /// The protected claims `claims` changed from `original`, and an `exp` moved later.
    static func protectionProblems(_ claims: [String: JSONValue], original: [String: JSONValue]) -> [String] {
        var problems = protectedClaims.filter { claims[$0] != original[$0] }.map { "\($0) may not be changed" }
        if let exp = claims["exp"]?.numberValue, let limit = original["exp"]?.numberValue, exp > limit {
            problems.append("exp may not be later than \(Int(limit))")
        }
        return problems
    }
}

extension AccessTokenClaims {
    /// Claims a hook answered, signed as they are (GoTrue signs the hook's map): the known ones
    /// read for the server's own use, all of them kept in ``custom``.
    init(custom: [String: JSONValue]) throws {
        let data = try JSONEncoder().encode(JSONValue.object(custom))
        self = try JSONDecoder().decode(AccessTokenClaims.self, from: data)
        self.custom = custom
    }
}
