import AsyncHTTPClient
import Foundation
import LatchkeyAPI
import LatchkeyCore
import Logging
import NIOCore
import NIOHTTP1

/// Verifies captcha tokens with the provider's `siteverify` endpoint as GoTrue does: a form
/// `POST` of `secret`, `response` and `remoteip`, whose JSON answer's `success` decides (whatever
/// the HTTP status) and whose `error-codes` say why not.
public struct HTTPCaptchaVerifier: CaptchaVerifying {
    let settings: CaptchaSettings
    let client: HTTPClient
    let policy: OutboundPolicy
    let logger: Logger

    public init(settings: CaptchaSettings, client: HTTPClient, policy: OutboundPolicy, logger: Logger) {
        self.settings = settings
        self.client = client
        self.policy = policy
        self.logger = logger
    }

    public func verify(token: String, remoteIP: String) async throws -> CaptchaVerdict {
        if let problem = await policy.problem(settings.verifyURL) {
            logger.error("captcha verify endpoint refused", metadata: ["reason": "\(problem)"])
            throw CaptchaUnavailable(reason: problem)
        }
        var request = HTTPClientRequest(url: settings.verifyURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Latchkey")
        request.body = .bytes(
            ByteBuffer(string: FormEncoding.encode([("secret", settings.secret), ("response", token), ("remoteip", remoteIP)])))
        do {
            // The deadline covers the whole exchange, the answer's body included.
            let response = try await client.execute(request, deadline: .now() + .nanoseconds(settings.timeout.nanoseconds))
            let body = try await response.body.collect(upTo: 64 * 1024)
            guard let answer = try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView)).objectValue else {
                throw CaptchaUnavailable(reason: "the provider answered \(response.status.code) without JSON")
            }
            let codes = answer["error-codes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return CaptchaVerdict(success: answer["success"]?.boolValue == true, errorCodes: codes)
        } catch {
            logger.error("captcha provider unreachable", metadata: ["error": "\(error)", "provider": "\(settings.provider.rawValue)"])
            throw error
        }
    }
}

/// The captcha provider could not be asked, or did not answer JSON.
public struct CaptchaUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "captcha verification failed: \(reason)" }
}
