import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// GoTrue's admin endpoints (users, invitations, generated links, factors and the audit log),
/// for service-role tokens.
struct AdminController {
    /// `/admin/users…`.
    let users: AdminUsers
    let audit: AuditLog
    let mfa: MFA
    /// `POST /invite` and `POST /admin/generate_link`.
    let invitations: Invitations

    func register(_ routes: inout RouteRegistrar) {
        routes.asOperator(.get, "/admin/users") { request, _ in
            let page = try Self.positive(request.queryValue("page"), name: "page", default: 1, max: 1_000_000)
            let perPage = try Self.positive(request.queryValue("per_page"), name: "per_page", default: 50, max: 1000)
            let filter = request.queryValue("filter")
            let anonymous: Bool?
            switch request.queryValue("is_anonymous") {
            case nil: anonymous = nil
            case "true": anonymous = true
            case "false": anonymous = false
            default: throw AuthError.validation("is_anonymous must be true or false")
            }
            let (list, total) = try await users.list(
                page: page, perPage: perPage, emailFilter: filter, anonymous: anonymous)
            return try Self.paged(
                list, request: request, page: page, perPage: perPage, total: total, keeping: ["filter", "is_anonymous"])
        }
        routes.asOperator(.post, "/admin/users") { request, context in
            let body = try await request.decodeJSON(AdminUserAttributes.self, context: context)
            return try JSONResponse.make(try await users.create(body), noStore: true)
        }
        routes.asOperator(.get, "/admin/users/:id") { _, context in
            try JSONResponse.make(try await users.user(id: context.parameters.get("id") ?? ""), noStore: true)
        }
        routes.asOperator(.put, "/admin/users/:id") { request, context in
            let body = try await request.decodeJSON(AdminUserAttributes.self, context: context)
            return try JSONResponse.make(
                try await users.update(id: context.parameters.get("id") ?? "", body), noStore: true)
        }
        routes.asOperator(.delete, "/admin/users/:id") { request, context in
            let body = try await request.decodeJSON(AdminDeleteUserRequest.self, context: context, allowingEmpty: true)
            try await users.delete(id: context.parameters.get("id") ?? "", softDelete: body.shouldSoftDelete == true)
            return try JSONResponse.make([String: String](), noStore: true)
        }
        // GoTrue serves `/invite`; supabase-swift's `admin.inviteUserByEmail` posts to
        // `/admin/invite`, which GoTrue answers 404: both are the same invitation here.
        for path in ["/invite", "/admin/invite"] {
            routes.asOperator(.post, path) { request, context in
                let body = try await request.decodeJSON(InviteRequest.self, context: context)
                return try JSONResponse.make(
                    try await invitations.invite(body, redirectTo: request.queryValue("redirect_to")), noStore: true)
            }
        }
        routes.asOperator(.post, "/admin/generate_link") { request, context in
            var body = try await request.decodeJSON(GenerateLinkRequest.self, context: context)
            if body.redirectTo == nil { body.redirectTo = request.queryValue("redirect_to") }
            return try JSONResponse.make(try await invitations.generateLink(body), noStore: true)
        }
        routes.asOperator(.get, "/admin/users/:id/factors") { _, context in
            try JSONResponse.make(try await mfa.factors(ofUser: context.parameters.get("id") ?? ""), noStore: true)
        }
        // Latchkey's: every factor at once, and the user's sessions with them (a lost phone).
        routes.asOperator(.delete, "/admin/users/:id/factors") { _, context in
            try JSONResponse.make(try await mfa.resetFactors(ofUser: context.parameters.get("id") ?? ""), noStore: true)
        }
        routes.asOperator(.delete, "/admin/users/:id/factors/:fid") { _, context in
            let factor = try await mfa.delete(
                factorID: context.parameters.get("fid") ?? "", ofUser: context.parameters.get("id") ?? "")
            return try JSONResponse.make(factor, noStore: true)
        }
        routes.asOperator(.get, "/admin/audit") { request, _ in
            let page = try Self.positive(request.queryValue("page"), name: "page", default: 1, max: 1_000_000)
            let perPage = try Self.positive(request.queryValue("per_page"), name: "per_page", default: 50, max: 1000)
            let actions = (request.queryValue("action") ?? "").split(separator: ",").map(String.init)
            let (entries, total) = try await audit.page(
                page, perPage: perPage, userID: request.queryValue("user_id"), actions: actions)
            return try Self.paged(
                entries, request: request, page: page, perPage: perPage, total: total, keeping: ["user_id", "action"])
        }
    }

    /// A page of results with GoTrue's `X-Total-Count` and `Link` headers.
    static func paged(
        _ value: some Encodable, request: Request, page: Int, perPage: Int, total: Int, keeping names: [String]
    ) throws -> Response {
        var response = try JSONResponse.make(value, noStore: true)
        response.headers[HTTPField.Name("X-Total-Count")!] = String(total)
        response.headers[HTTPField.Name("Link")!] = links(
            path: request.uri.path, page: page, perPage: perPage, total: total,
            query: names.compactMap { name in request.queryValue(name).map { (name, $0) } })
        return response
    }

    static func positive(_ raw: String?, name: String, default fallback: Int, max: Int) throws -> Int {
        guard let raw else { return fallback }
        guard let value = Int(raw), (1...max).contains(value) else {
            throw AuthError(.validationFailed, "\(name) must be a number from 1 to \(max)")
        }
        return value
    }

    /// GoTrue's `Link` header: `next` while pages remain, and `last`.
    static func links(path: String, page: Int, perPage: Int, total: Int, query: [(String, String)]) -> String {
        let last = max(1, (total + perPage - 1) / perPage)
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        let extra = query.map { "&\($0)=" + ($1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "") }.joined()
        var links: [String] = []
        if page < last { links.append("<\(path)?page=\(page + 1)&per_page=\(perPage)\(extra)>; rel=\"next\"") }
        links.append("<\(path)?page=\(last)&per_page=\(perPage)\(extra)>; rel=\"last\"")
        return links.joined(separator: ", ")
    }
}
