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

/// Who is calling: the socket's peer, or the first address of a trusted proxy header when one
/// is configured, and the user agent.
struct ClientResolver: Sendable {
    let trustedIPHeader: HTTPField.Name?

    func client(_ request: Request, _ context: APIRequestContext) -> ClientInfo {
        var ip = context.peerAddress
        if let trustedIPHeader, let forwarded = request.headers[trustedIPHeader] {
            let first = forwarded.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if !first.isEmpty, first.utf8.count <= 64 { ip = first }
        }
        return ClientInfo(ip: ip, userAgent: request.headers[.userAgent].map { String($0.prefix(512)) })
    }
}
