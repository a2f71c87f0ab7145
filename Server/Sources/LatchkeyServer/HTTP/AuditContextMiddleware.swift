import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// Resolves each request's client once (``ClientResolver``) into the context, for the rate
/// limits and audit events of everything after it, and binds its ``AuditContext``.
struct AuditContextMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let resolver: ClientResolver

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.client = resolver.client(request, context)
        let client = context.client
        return try await AuditContext.$current.withValue(AuditContext(ip: client.ip, userAgent: client.userAgent)) {
            try await next(request, context)
        }
    }
}
