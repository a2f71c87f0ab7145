import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The operators' console (`/ui/admin/…`, off unless `LATCHKEY_ADMIN_CONSOLE=true`): an operator
/// signs in with a service token, exchanged for a short sealed cookie session that ends at
/// sign-out (its id is revoked for every instance) and as soon as the token would no longer be
/// accepted (its key retired, or the token expired), finds users
/// and acts on them through the same use cases as the admin API. Every action is recorded with
/// the operator's role as actor, like the API's.
struct AdminConsoleController {
    struct UseCases {
        let users: AdminUsers
        let mfa: MFA
        let passkeys: Passkeys
        let audit: AuditLog
        let codes: OneTimeCodes
        let authenticator: Authenticator
        /// The OAuth server's clients and the users' grants, when it is on.
        let oauthClients: OAuthClients?
        let oauthServer: OAuthServer?
    }

    let pages: PageRenderer
    let security: PageSecurity
    let useCases: UseCases
    /// Seconds a console session lasts.
    let sessionLength: Int
    let time: any TimeSource
    /// Where signed-out console sessions are recorded until they would have ended.
    let revocations: any RateLimitStore

    /// A console session: the operator's role, when it ends, its id (revoked at sign-out) and the
    /// service token it was opened with (checked again on every request; the cookie is sealed).
    struct Operator: Codable {
        var role: String
        var expiresAt: Double
        var id: String
        var token: String
    }

    /// The revocation record of console session `id`.
    static func revocationKey(_ id: String) -> String { "console:revoked:" + id }

    static let cookie = "lk_admin"

    /// What an action's page says when it is back (`?done=`).
    static let done: [String: String] = [
        "signed-out": "Signed out everywhere: every session and device key ended.", "banned": "Banned for 24 hours.",
        "unbanned": "The ban is lifted.", "factor": "The factor is removed.",
        "factors-reset": "Every second factor is removed, and the user is signed out everywhere.", "passkey": "The passkey is removed.",
        "resent": "A new confirmation is on its way.", "deleted": "The user is deleted.",
        "grant-revoked": "The application's access is revoked, and its sessions ended.",
    ]

    func register(_ routes: inout RouteRegistrar) {
        routes.on(.get, "/ui/admin") { _, _ in BrowserRedirect.seeOther("admin/users") }
        routes.on(.get, "/ui/admin/sign-in") { request, _ in signInPage(request) }
        routes.on(.post, "/ui/admin/sign-in") { request, context in
            do {
                let fields = try await FormBody.fields(of: request, context: context)
                try security.checkCSRF(request, token: fields["csrf"])
                let role: String
                do {
                    role = try await useCases.authenticator.authenticateAdmin(authorization: "Bearer \(fields["token"] ?? "")")
                } catch {
                    return signInPage(request, error: "That token is not an operator's.", status: .forbidden)
                }
                let session = Operator(
                    role: role, expiresAt: time.now().timeIntervalSince1970 + Double(sessionLength),
                    id: Base64URL.encode(SecureRandom.bytes(16)), token: fields["token"] ?? "")
                let cookie = security.setCookie(Self.cookie, try security.seal(session, name: Self.cookie), maxAge: sessionLength)
                var response = BrowserRedirect.seeOther("users")
                response.headers[.setCookie] = cookie
                return response
            } catch let refusal as PageRefusal {
                return pages.response("message", title: refusal.title, values: ["text": refusal.text], status: refusal.status)
            }
        }
        routes.on(.post, "/ui/admin/sign-out") { request, context in
            try await action(request, context) { _, _ in
                // A copy of the cookie must not outlive the sign-out: the id is revoked for every
                // instance on this database until the session would have ended. (`action` has
                // checked the session already.)
                if let session = security.open(Operator.self, cookie: Self.cookie, in: request) {
                    _ = try await revocations.incrementRateLimit(
                        key: Self.revocationKey(session.id), windowStart: Date(timeIntervalSince1970: 0),
                        expiresAt: Date(timeIntervalSince1970: session.expiresAt))
                }
                var response = BrowserRedirect.seeOther("sign-in")
                response.headers[.setCookie] = security.setCookie(Self.cookie, "", maxAge: 0)
                return response
            }
        }
        routes.on(.get, "/ui/admin/users") { request, _ in
            try await signedIn(request) { _, csrf in try await usersPage(request, csrf: csrf) }
        }
        routes.on(.get, "/ui/admin/user") { request, _ in
            try await signedIn(request) { _, csrf in
                let done = request.uri.queryParameters["done"].flatMap { Self.done[String($0)] }
                return try await userPage(String(request.uri.queryParameters["id"] ?? ""), csrf: csrf, info: done)
            }
        }
        routes.on(.get, "/ui/admin/oauth-clients") { request, _ in
            try await signedIn(request) { _, _ in try await oauthClientsPage() }
        }
        registerActions(&routes)
    }

    func registerActions(_ routes: inout RouteRegistrar) {
        let actions: [(String, @Sendable (AdminConsoleController, [String: String]) async throws -> String)] = [
            (
                "sign-out-user",
                { console, fields in
                    try await console.useCases.users.signOut(id: fields["id"] ?? ""); return "signed-out"
                }
            ),
            (
                "ban",
                { console, fields in
                    try await console.ban(fields["id"] ?? "", duration: "24h"); return "banned"
                }
            ),
            (
                "unban",
                { console, fields in
                    try await console.ban(fields["id"] ?? "", duration: "none"); return "unbanned"
                }
            ),
            (
                "remove-factor",
                { console, fields in
                    _ = try await console.useCases.mfa.delete(factorID: fields["factor"] ?? "", ofUser: fields["id"] ?? "")
                    return "factor"
                }
            ),
            (
                "reset-factors",
                { console, fields in
                    _ = try await console.useCases.mfa.resetFactors(ofUser: fields["id"] ?? "")
                    return "factors-reset"
                }
            ),
            (
                "revoke-grant",
                { console, fields in
                    guard let server = console.useCases.oauthServer, let user = UUID(text: fields["id"] ?? "") else {
                        throw AuthError.adminUserNotFound
                    }
                    try await server.revokeGrant(clientID: fields["client"], userID: user)
                    return "grant-revoked"
                }
            ),
            (
                "remove-passkey",
                { console, fields in
                    try await console.useCases.passkeys.delete(passkeyID: fields["passkey"] ?? "", ofUser: fields["id"] ?? "")
                    return "passkey"
                }
            ),
        ]
        for (name, run) in actions {
            routes.on(.post, "/ui/admin/\(name)") { request, context in
                try await action(request, context) { fields, csrf in
                    let id = fields["id"] ?? ""
                    do {
                        let done = try await run(self, fields)
                        return BrowserRedirect.seeOther("user?id=\(FormEncoding.component(id))&done=\(done)")
                    } catch let error as AuthError {
                        return try await userPage(id, csrf: csrf, error: error.message, status: HostedPagesController.status(error))
                    }
                }
            }
        }
        routes.on(.post, "/ui/admin/resend") { request, context in
            try await action(request, context) { fields, csrf in
                let id = fields["id"] ?? ""
                do {
                    let user = try await useCases.users.user(id: id)
                    _ = try await useCases.codes.resend(
                        ResendRequest(type: "signup", email: user.email), redirectTo: nil, client: context.client)
                    return BrowserRedirect.seeOther("user?id=\(FormEncoding.component(id))&done=resent")
                } catch let error as AuthError {
                    return try await userPage(id, csrf: csrf, error: error.message, status: HostedPagesController.status(error))
                }
            }
        }
        routes.on(.post, "/ui/admin/delete") { request, context in
            try await action(request, context) { fields, csrf in
                let id = fields["id"] ?? ""
                let user = try await useCases.users.user(id: id)
                guard let typed = fields["confirm"] else { return try await userPage(id, csrf: csrf, confirmDelete: true) }
                guard typed == Self.confirmWord(user) else {
                    return try await userPage(
                        id, csrf: csrf, error: "That is not what was asked: nothing was deleted.", status: .unprocessableContent,
                        confirmDelete: true)
                }
                try await useCases.users.delete(id: id)
                return BrowserRedirect.seeOther("users?done=deleted")
            }
        }
    }

    /// What an operator types to delete `user`: its address, else its id.
    static func confirmWord(_ user: User) -> String { user.email.isEmpty ? user.id.lowercasedString : user.email }

    func ban(_ id: String, duration: String) async throws {
        _ = try await useCases.users.update(id: id, AdminUserAttributes(banDuration: duration))
    }

    /// The operator of a console request, or `nil` when the session is missing, over, signed
    /// out, or its service token would no longer be accepted.
    func operatorSession(_ request: Request) async -> Operator? {
        guard let session = security.open(Operator.self, cookie: Self.cookie, in: request),
            session.expiresAt > time.now().timeIntervalSince1970,
            let role = try? await useCases.authenticator.authenticateAdmin(authorization: "Bearer \(session.token)"),
            role == session.role,
            let revoked = try? await revocations.rateLimitCount(
                key: Self.revocationKey(session.id), windowStart: Date(timeIntervalSince1970: 0)),
            revoked == 0
        else { return nil }
        return session
    }

    /// A console page for a signed-in operator; the sign-in page otherwise.
    func signedIn(_ request: Request, _ body: (Operator, String) async throws -> Response) async throws -> Response {
        guard let session = await operatorSession(request) else { return BrowserRedirect.seeOther("sign-in") }
        var context = AuditContext.current
        context.operatorName = session.role
        return try await AuditContext.$current.withValue(context) { try await body(session, security.csrf(for: request).token) }
    }

    /// A console action: the CSRF check, a live session, and the operator as the actor of what
    /// it records.
    func action(
        _ request: Request, _ context: APIRequestContext, _ body: ([String: String], String) async throws -> Response
    ) async throws -> Response {
        do {
            let fields = try await FormBody.fields(of: request, context: context)
            try security.checkCSRF(request, token: fields["csrf"])
            return try await signedIn(request) { _, csrf in try await body(fields, csrf) }
        } catch let refusal as PageRefusal {
            return pages.response("message", title: refusal.title, values: ["text": refusal.text], status: refusal.status)
        }
    }

    func signInPage(_ request: Request, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let csrf = security.csrf(for: request)
        var values: [String: Any] = ["csrf_field": Self.csrfField(csrf.token), "minutes": sessionLength / 60]
        values["error"] = error
        return pages.response(
            "admin-sign-in", title: "Operator sign-in", values: values, status: status, cookies: csrf.cookie.map { [$0] } ?? [])
    }

    static func csrfField(_ token: String) -> String {
        #"<input type="hidden" name="csrf" value="\#(EmailComposer.escape(token))">"#
    }

    static func when(_ date: Date?) -> String {
        date.map { $0.formatted(Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: false)) } ?? "—"
    }
}
