import Crypto
import Foundation
import LatchkeyAPI

/// A benchmark client's device key: registered once, then signing one RFC 7523 assertion per
/// sign-in.
struct DeviceKeySigner: Sendable {
    let key: P256.Signing.PrivateKey
    let keyID: String
    let userID: String

    /// The public key as `POST /device-keys` takes it.
    static func jwk(_ key: P256.Signing.PrivateKey) -> String {
        let raw = key.publicKey.rawRepresentation
        return #"{"kty":"EC","crv":"P-256","x":"\#(base64URL(raw.prefix(32)))","y":"\#(base64URL(raw.suffix(32)))"}"#
    }

    /// A fresh assertion addressed to `tokenEndpoint`.
    func assertion(tokenEndpoint: String) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"ES256","typ":"JWT"}"#
        let claims =
            #"{"iss":"\#(keyID)","sub":"\#(userID)","aud":"\#(tokenEndpoint)","iat":\#(now),"exp":\#(now + 120),"jti":"\#(UUID().uuidString)"}"#
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Self.base64URL(signature)
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension API {
    /// Registers a new device key for `user`.
    func enrolDevice(_ user: BenchUser) async throws -> DeviceKeySigner {
        let key = P256.Signing.PrivateKey()
        let data = try await post(
            "/device-keys", #"{"name":"bench","public_key":\#(DeviceKeySigner.jwk(key))}"#, bearer: user.accessToken)
        let registered = try WireJSON.makeDecoder().decode(DeviceKey.self, from: data)
        let session = try WireJSON.makeDecoder().decode(User.self, from: try await get("/user", bearer: user.accessToken))
        return DeviceKeySigner(key: key, keyID: registered.id.uuidString.lowercased(), userID: session.id.uuidString.lowercased())
    }

    /// One device-key sign-in: sign an assertion and exchange it for a session.
    func deviceSignIn(_ device: DeviceKeySigner) async throws {
        let assertion = try device.assertion(tokenEndpoint: base + "/token")
        _ = try await post("/token?grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", #"{"assertion":"\#(assertion)"}"#)
    }
}
