import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's OAuth 2.1 / OpenID Connect server (#40): the authorization endpoint, the consent
/// API the consent page calls with the user's token, the token endpoint, userinfo, the user's
/// grants, and the discovery documents (OpenID Connect Discovery, RFC 8414). The user's routes
/// read the caller before they say the server is off (401 before 404, as the API document has it).
struct OAuthServerController {
    let server: OAuthServer
    /// This server's public URL: the discovery documents' endpoints.
    let externalURL: String
    let dynamicRegistration: Bool

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/oauth/authorize") { request, context in
            // The query is form-encoded (`+` a space, as clients write `scope`).
            let query = FormBody.fields(request.uri.query ?? "")
            let location = try await server.authorize(
                OAuthAuthorizeRequest(
                    clientID: query["client_id"], redirectURI: query["redirect_uri"], responseType: query["response_type"],
                    scope: query["scope"], state: query["state"], resource: query["resource"], codeChallenge: query["code_challenge"],
                    codeChallengeMethod: query["code_challenge_method"], nonce: query["nonce"]), client: context.client)
            return Response(
                status: .found, headers: [.location: location, .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
        }
        routes.signedIn(.get, "/oauth/authorizations/:authorization_id") { request, context in
            let view = try await server.authorization(
                id: context.parameters.get("authorization_id") ?? "", principal: context.principal, origin: request.headers[.origin])
            switch view {
            case .details(let details): return try JSONResponse.make(details, noStore: true)
            case .approved(let redirect): return try JSONResponse.make(redirect, noStore: true)
            }
        }
        routes.signedIn(.post, "/oauth/authorizations/:authorization_id/consent") { request, context in
            let body = try await request.decodeJSON(OAuthConsentRequest.self, context: context)
            return try JSONResponse.make(
                try await server.consent(
                    id: context.parameters.get("authorization_id") ?? "", body, principal: context.principal,
                    origin: request.headers[.origin]), noStore: true)
        }
        routes.on(.post, "/oauth/token") { request, context in
            try server.requireEnabled()
            let body = try await tokenRequest(request, context: context)
            return try JSONResponse.make(try await server.token(body, client: context.client), noStore: true)
        }
        for method in [HTTPRequest.Method.get, .post] {
            routes.signedIn(method, "/oauth/userinfo", allowingClients: true) { _, context in
                try JSONResponse.make(try server.userInfo(principal: context.principal), noStore: true)
            }
        }
        routes.signedIn(.get, "/user/oauth/grants") { _, context in
            try JSONResponse.make(try await server.grants(principal: context.principal), noStore: true)
        }
        routes.signedIn(.delete, "/user/oauth/grants") { request, context in
            try await server.revokeGrant(clientID: request.queryValue("client_id"), principal: context.principal)
            return Response(status: .noContent)
        }
        routes.on(.get, "/.well-known/openid-configuration") { _, _ in
            try discovery()
        }
        routes.on(.get, "/.well-known/oauth-authorization-server") { _, _ in
            try server.requireEnabled()
            return try discovery()
        }
    }

    /// The token request from a form body (RFC 6749) or a JSON one (GoTrue takes both), with
    /// `Authorization: Basic` read as RFC 6749 §2.3.1 writes it (each part form-encoded).
    func tokenRequest(_ request: Request, context: APIRequestContext) async throws -> OAuthTokenRequest {
        let fields: [String: String]
        if request.headers[.contentType]?.lowercased().contains("application/json") == true {
            let object = try await request.decodeJSON([String: JSONValue].self, context: context)
            fields = object.compactMapValues(\.stringValue)
        } else {
            fields = try await FormBody.fields(of: request, context: context)
        }
        var basic: (id: String, secret: String)?
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "basic", parts[1].utf8.count <= 4096,
                let decoded = Data(base64Encoded: String(parts[1])),
                let text = String(bytes: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else {
                var refusal = AuthError(.invalidCredentials, "Invalid client credentials: invalid basic auth", oauthError: "invalid_client")
                refusal.status = 401
                throw refusal
            }
            let decode = { (part: Substring) in part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
            basic = (decode(text[..<colon]), decode(text[text.index(after: colon)...]))
        }
        return OAuthTokenRequest(
            grantType: fields["grant_type"], code: fields["code"], refreshToken: fields["refresh_token"],
            redirectURI: fields["redirect_uri"], clientID: fields["client_id"], clientSecret: fields["client_secret"],
            codeVerifier: fields["code_verifier"], resource: fields["resource"], basic: basic)
    }

    /// OpenID Connect Discovery 1.0 and RFC 8414's metadata, one document (GoTrue's). Published
    /// whether the server is on or not, as GoTrue's `openid-configuration`.
    func discovery() throws -> Response {
        var base = externalURL
        while base.hasSuffix("/") { base.removeLast() }
        var document: [String: JSONValue] = [
            "issuer": .string(server.issuer),
            "authorization_endpoint": .string(base + "/oauth/authorize"),
            "token_endpoint": .string(base + "/oauth/token"),
            "jwks_uri": .string(base + "/.well-known/jwks.json"),
            "userinfo_endpoint": .string(base + "/oauth/userinfo"),
            "scopes_supported": .array(OAuthScopes.supported.map(JSONValue.string)),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": .array(server.signsIDTokens ? [.string(server.signingAlgorithm)] : []),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": server.settings.allowsPlainPKCE ? ["S256", "plain"] : ["S256"],
            "claims_supported": .array(
                [
                    "sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "email", "email_verified", "phone_number",
                    "phone_number_verified", "name", "picture", "preferred_username", "updated_at",
                ].map(JSONValue.string)),
        ]
        if dynamicRegistration { document["registration_endpoint"] = .string(base + "/oauth/clients/register") }
        var response = try JSONResponse.make(document)
        response.headers[.cacheControl] = "public, max-age=600"
        return response
    }
}
