import Foundation
import Hummingbird
import LatchkeyCore

/// The captcha as the API applies it, where GoTrue does: the token from the JSON body's
/// `gotrue_meta_security.captcha_token` (`null` is none, as supabase-py sends it), checked before
/// the endpoint reads anything else; a request with an operator's token passes without one.
struct CaptchaGuard: Sendable {
    let gate: CaptchaGate
    let authenticator: Authenticator

    /// The body as `T`, once the captcha (when on) has passed.
    func body<T: Decodable>(_ type: T.Type, of request: Request, context: APIRequestContext) async throws -> T {
        let data = Data(try await request.collectBody(context: context).readableBytesView)
        try await check(data, request: request, context: context)
        return try Request.decodeJSON(type, from: data)
    }

    /// Checks the captcha of a request whose body the endpoint does not otherwise read.
    func check(_ request: Request, context: APIRequestContext) async throws {
        guard gate.isOn else { return }
        try await check(Data(try await request.collectBody(context: context).readableBytesView), request: request, context: context)
    }

    /// Checks the captcha token in `body` (a JSON object, else `400 bad_json`, as GoTrue).
    func check(_ body: Data, request: Request, context: APIRequestContext) async throws {
        guard gate.isOn else { return }
        if let authorization = request.headers[.authorization],
            (try? await authenticator.authenticateAdmin(authorization: authorization)) != nil
        {
            return
        }
        let envelope = try Request.decodeJSON(CaptchaEnvelope.self, from: body)
        try await gate.check(envelope.security?.captchaToken, client: context.client)
    }
}

/// The part of a request body that carries the captcha token.
struct CaptchaEnvelope: Decodable {
    struct Security: Decodable {
        let captchaToken: String?
        enum CodingKeys: String, CodingKey { case captchaToken = "captcha_token" }
    }
    let security: Security?
    enum CodingKeys: String, CodingKey { case security = "gotrue_meta_security" }
}
