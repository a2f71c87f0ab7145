import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Binds each request's ``AuditContext`` (client address and user agent) for the audit events
/// the request writes.
struct AuditContextMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let resolver: ClientResolver

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = resolver.client(request, context)
        return try await AuditContext.$current.withValue(AuditContext(ip: client.ip, userAgent: client.userAgent)) {
            try await next(request, context)
        }
    }
}
