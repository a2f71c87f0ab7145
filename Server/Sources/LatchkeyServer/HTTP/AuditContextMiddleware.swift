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

/// Who is calling: the socket's peer, or, when a trusted proxy header is configured, the
/// right-most address in it, and the user agent.
///
/// Proxies append to `X-Forwarded-For` (nginx's `$proxy_add_x_forwarded_for`, cloud load
/// balancers): the left-most entries are whatever the client sent, the right-most is the address
/// the trusted proxy saw. Taking the left-most would let any client pick its own address for
/// every per-IP limit, the MFA challenge's binding and the audit log.
struct ClientResolver: Sendable {
    let trustedIPHeader: HTTPField.Name?

    func client(_ request: Request, _ context: APIRequestContext) -> ClientInfo {
        var ip = context.peerAddress
        if let trustedIPHeader {
            // Several header lines read as one list, in order.
            let entries = request.headers[values: trustedIPHeader].flatMap { $0.split(separator: ",") }
            let last = entries.last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if !last.isEmpty, last.utf8.count <= 64 { ip = last }
        }
        return ClientInfo(ip: ip, userAgent: request.headers[.userAgent].map { String($0.prefix(512)) })
    }
}
