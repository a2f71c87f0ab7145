import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import Logging

/// Names each request (the caller's `X-Request-Id` when it is 1–128 characters of
/// `[A-Za-z0-9._:-]`, else the server's own id), echoes the name in the answer's `X-Request-Id`,
/// puts it in every log line of the request, and logs one line when the answer is ready: method,
/// route (the pattern, never the path with its ids or the query with its tokens), status,
/// duration and the user when the request proved who it was for.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    /// The level of the per-request line.
    let level: Logger.Level

    static let header = HTTPField.Name("X-Request-Id")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let given = request.headers[Self.header], Self.isSane(given) {
            // Hummingbird's own id is in every line already (`hb.request.id`, written as
            // `request_id` in JSON); a caller's replaces it.
            context.requestID = given
            context.logger[metadataKey: "hb.request.id"] = .string(given)
        }
        guard context.logger.logLevel <= level else {
            var response = try await next(request, context)
            response.headers[Self.header] = context.requestID
            return response
        }
        let facts = RequestFacts()
        let start = ContinuousClock.now
        var status = 500
        defer {
            let elapsed = ContinuousClock.now - start
            var metadata: Logger.Metadata = [
                "method": .string(request.method.rawValue), "route": .string(context.endpointPath ?? "unmatched"),
                "status": .stringConvertible(status),
                "duration_ms": .stringConvertible((elapsed.milliseconds * 1000).rounded(.down) / 1000),
            ]
            if let user = facts.userID { metadata["user_id"] = .string(user.lowercasedString) }
            context.logger.log(level: level, "request", metadata: metadata)
        }
        var response = try await RequestFacts.$current.withValue(facts) { try await next(request, context) }
        status = Int(response.status.code)
        response.headers[Self.header] = context.requestID
        return response
    }

    static func isSane(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x3a) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x61 && $0 <= 0x7a) || $0 == 0x2e || $0 == 0x5f
                    || $0 == 0x2d
            }
    }
}
