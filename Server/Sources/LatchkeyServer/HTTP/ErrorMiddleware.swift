import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import Logging

/// Catches every error below it and answers in the API's error format: a domain error with its
/// code, a store write that kept losing a race with 409 `conflict`, a bad body with `bad_json`,
/// an oversized one with 413, and anything else with a 500 whose details go to the log only,
/// with the request id.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    /// The methods each path answers: another method on a known path is `405` with `Allow`.
    var allowed = AllowedMethods()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = await answer(request, context: context, next: next)
        // The rest of a body too large to read is not read: the connection ends with this answer,
        // rather than staying open while the client goes on sending.
        if response.status == .contentTooLarge { response.headers[.connection] = "close" }
        return response
    }

    func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async -> Response {
        do {
            return try await next(request, context)
        } catch let error as AuthError {
            return APIErrorResponder.response(for: error, request: request, requestID: context.requestID)
        } catch let error as StoreError where error.isConflict {
            // Another request kept changing the same user while this one retried: GoTrue's 409.
            context.logger.info("write conflict", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return APIErrorResponder.response(
                for: AuthError(.conflict, "The user was changed by another request; try again"), request: request,
                requestID: context.requestID)
        } catch let error as HTTPError {
            let methods = error.status == .notFound ? allowed.methods(for: request.uri.path) : []
            if !methods.isEmpty {
                // A known path asked with a method it does not answer (TRACE, PATCH, …).
                var response = APIErrorResponder.response(
                    for: AuthError(.validationFailed, "Method \(request.method.rawValue) not allowed"), status: .methodNotAllowed,
                    request: request, requestID: context.requestID)
                response.headers[.allow] = methods.map(\.rawValue).joined(separator: ", ")
                return response
            }
            let mapped: AuthError
            switch error.status {
            case .contentTooLarge: mapped = AuthError(.requestEntityTooLarge, "Request body too large")
            case .notFound: mapped = AuthError(.notFound, "Not found")
            case .methodNotAllowed: mapped = AuthError(.validationFailed, "Method not allowed")
            case .badRequest: mapped = AuthError(.badJSON, error.body ?? "Bad request")
            default: mapped = AuthError(.unexpectedFailure, "Unexpected failure")
            }
            return APIErrorResponder.response(for: mapped, status: error.status, request: request, requestID: context.requestID)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return APIErrorResponder.response(
                for: AuthError(.unexpectedFailure, "Unexpected failure, please check server logs for more information"),
                request: request, requestID: context.requestID)
        }
    }
}
