import AsyncHTTPClient
import Foundation
import LatchkeyAPI
import LatchkeyCore
import Logging
import NIOCore
import NIOHTTP1

/// Calls hooks over HTTP as GoTrue does: a `POST` of the JSON payload signed as Standard Webhooks
/// (`webhook-id`, `webhook-timestamp`, `webhook-signature`), within `timeout` for the whole call,
/// tried again (after `backoff`) when the endpoint cannot be reached and when it answers 429 or
/// 503 with a `Retry-After`, up to `attempts` tries. Answers are read up to `responseLimit` bytes
/// and must be JSON objects; 204 is an empty answer.
public struct HTTPHookCaller: HookCaller {
    let endpoints: [HookName: HookEndpoint]
    let client: HTTPClient
    let timeout: Duration
    let backoff: Duration
    let attempts: Int
    let responseLimit: Int
    let time: any TimeSource
    let random: any RandomSource
    let logger: Logger
    /// Where a hook may be.
    let policy: OutboundPolicy

    /// - Parameter client: ``OutboundHTTP/makeClient()``'s.
    public init(
        endpoints: [HookName: HookEndpoint], client: HTTPClient, timeout: Duration = .seconds(5),
        backoff: Duration = .seconds(2), attempts: Int = 3, responseLimit: Int = 200 * 1024, time: any TimeSource,
        random: any RandomSource, logger: Logger, policy: OutboundPolicy = OutboundPolicy()
    ) {
        self.policy = policy
        self.endpoints = endpoints
        self.client = client
        self.timeout = timeout
        self.backoff = backoff
        self.attempts = max(1, attempts)
        self.responseLimit = responseLimit
        self.time = time
        self.random = random
        self.logger = logger
    }

    public func call(_ name: HookName, payload: [String: JSONValue]) async throws -> [String: JSONValue] {
        guard let endpoint = endpoints[name] else { throw Self.failure("Hook \(name.rawValue) is not configured") }
        guard let text = JSONText.encode(payload) else { throw Self.failure("Error marshaling JSON input.") }
        let body = Array(text.utf8)
        if let problem = await policy.problem(endpoint.url) {
            logger.error("hook endpoint refused", metadata: ["hook": "\(name.rawValue)", "reason": "\(problem)"])
            throw Self.failure("Hook endpoint is not allowed: \(problem)")
        }
        let deadline = ContinuousClock.now + timeout
        for attempt in 1...attempts {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw timedOut() }
            let id = random.uuid().lowercasedString
            let timestamp = Int(time.now().timeIntervalSince1970)
            let request = OutboundHTTP.signedPost(url: endpoint.url, body: body, id: id, timestamp: timestamp, secrets: endpoint.secrets)
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: .nanoseconds(left.nanoseconds))
            } catch {
                if Self.isTimeout(error) { throw timedOut() }
                logger.warning("hook unreachable", metadata: ["hook": "\(name.rawValue)", "attempt": "\(attempt)", "error": "\(error)"])
                guard attempt < attempts else { break }
                guard deadline - ContinuousClock.now > backoff else { throw timedOut() }
                try await Task.sleep(for: backoff)
                continue
            }
            switch response.status.code {
            case 200, 202:
                return try await read(response)
            case 204:
                _ = try? await response.body.collect(upTo: responseLimit)
                return [:]
            case 429, 503:
                _ = try? await response.body.collect(upTo: responseLimit)
                if attempt < attempts, !(response.headers.first(name: "retry-after") ?? "").isEmpty { continue }
                throw Self.failure("Service currently unavailable due to hook")
            default:
                // A refusal sent with an error status instead of GoTrue's 200 is read all the same.
                // (`read` takes the body whatever it finds: a body is read once.)
                let answer = try? await read(response)
                if (400..<500).contains(response.status.code), let answer, Hooks.refusal(in: answer) != nil { return answer }
                switch response.status.code {
                case 400: throw Self.failure("Invalid payload sent to hook")
                case 401: throw Self.failure("Hook requires authorization token")
                default: throw Self.failure("Unexpected status code returned from hook: \(response.status.code)")
                }
            }
        }
        var error = AuthError(.hookTimeoutAfterRetry, "Failed to reach hook after maximum retries")
        error.status = 422
        throw error
    }

    /// The JSON object of an answer; its body is taken in every case (a body may be read only once).
    func read(_ response: HTTPClientResponse) async throws -> [String: JSONValue] {
        let type = response.headers.first(name: "content-type") ?? ""
        let media = type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard media == "application/json" else {
            _ = try? await response.body.collect(upTo: responseLimit)
            var error = AuthError(
                .hookPayloadInvalidContentType,
                type.isEmpty ? "Invalid Content-Type: Missing Content-Type header" : "Invalid JSON response. Received content-type: \(type)"
            )
            error.status = 400
            throw error
        }
        let bytes: ByteBuffer
        do {
            bytes = try await response.body.collect(upTo: responseLimit)
        } catch is NIOTooManyBytesError {
            var error = AuthError(.hookPayloadOverSizeLimit, "Payload size exceeded size limit of \(responseLimit) bytes")
            error.status = 422
            throw error
        } catch {
            throw Self.isTimeout(error) ? timedOut() : Self.failure("Error reading the hook's answer")
        }
        guard let object = JSONText.decodeObject(String(decoding: bytes.readableBytesView, as: UTF8.self)) else {
            throw Self.failure("Error unmarshaling JSON output.")
        }
        return object
    }

    func timedOut() -> AuthError {
        var error = AuthError(
            .hookTimeout, "Failed to reach hook within maximum time of \(String(format: "%.6f", timeout.milliseconds / 1000)) seconds")
        error.status = 422
        return error
    }

    static func failure(_ message: String) -> AuthError {
        var error = AuthError(.unexpectedFailure, message)
        error.status = 500
        return error
    }

    static func isTimeout(_ error: any Error) -> Bool {
        guard let error = error as? HTTPClientError else { return false }
        return error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
    }
}
