import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import LatchkeyCore

/// The console's two views: the search, and one user with everything that is theirs.
extension AdminConsoleController {
    func usersPage(_ request: Request, csrf: String) async throws -> Response {
        let q = String(request.uri.queryParameters["q"] ?? "").trimmingCharacters(in: .whitespaces)
        var values: [String: Any] = ["csrf_field": Self.csrfField(csrf), "q": q, "oauth": useCases.oauthClients != nil]
        if let done = request.uri.queryParameters["done"].flatMap({ Self.done[String($0)] }) { values["info"] = done }
        if !q.isEmpty {
            let found = try await search(q)
            values["searched"] = true
            values["count"] = found.count
            values["users"] = found.map { user -> [String: Any] in
                [
                    "id": user.id.lowercasedString, "label": Self.label(user), "created": Self.when(user.createdAt),
                    "last": Self.when(user.lastSignInAt), "banned": (user.bannedUntil ?? .distantPast) > time.now(),
                ]
            }
        }
        return pages.response("admin-users", title: "Users", values: values, wide: true)
    }

    /// Users whose id, phone or exact address is `q`, then those whose address contains it.
    func search(_ q: String) async throws -> [User] {
        var found: [User] = []
        if let exact = try? await useCases.users.user(lookup: q) { found.append(exact) }
        if UUID(text: q) == nil {
            let (list, _) = try await useCases.users.list(page: 1, perPage: 50, emailFilter: q)
            found += list.users.filter { user in !found.contains { $0.id == user.id } }
        }
        return found
    }

    static func label(_ user: User) -> String {
        if !user.email.isEmpty { return user.email }
        if let phone = user.phoneNumber { return phone }
        return user.isAnonymous ? "Anonymous \(user.id.lowercasedString.prefix(8))" : user.id.lowercasedString
    }

    func userPage(
        _ id: String, csrf: String, info: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok,
        confirmDelete: Bool = false
    ) async throws -> Response {
        let user: User
        do {
            user = try await useCases.users.user(id: id)
        } catch let error as AuthError where error.code == .userNotFound {
            return pages.response(
                "message", title: "No such user", values: ["text": "There is no user with this id; they may have been deleted."],
                status: .notFound)
        }
        let userID = user.id.lowercasedString
        let passkeys = try await useCases.passkeys.passkeys(ofUser: userID)
        let sessions = try await useCases.users.sessions(ofUser: userID)
        let (events, _) = try await useCases.audit.page(1, perPage: 25, userID: userID, actions: [])
        let banned = (user.bannedUntil ?? .distantPast) > time.now()
        let grants = try await useCases.oauthServer?.grants(userID: user.id) ?? []
        let clientNames = Dictionary(grants.map { ($0.client.id, $0.client.name) }, uniquingKeysWith: { a, _ in a })
        var values: [String: Any] = [
            "csrf_field": Self.csrfField(csrf), "id": userID, "email": user.email, "email_confirmed": user.emailConfirmedAt != nil,
            "phone": user.phoneNumber ?? "—", "created": Self.when(user.createdAt), "last": Self.when(user.lastSignInAt),
            "banned": banned, "banned_until": banned ? Self.when(user.bannedUntil) : "—",
            "unconfirmed": !user.email.isEmpty && user.emailConfirmedAt == nil,
            "identities": (user.identities ?? []).map {
                ["provider": $0.provider, "subject": $0.id, "last": Self.when($0.lastSignInAt)]
            },
            "factors": (user.factors ?? []).map {
                [
                    "id": $0.id.lowercasedString, "user_id": userID, "name": $0.friendlyName ?? "Unnamed",
                    "type": $0.factorType.rawValue + ($0.phone.map { " " + $0 } ?? ""), "status": $0.status.rawValue,
                ]
            },
            "has_factors": !(user.factors ?? []).isEmpty,
            "passkeys": passkeys.map {
                [
                    "id": $0.id.lowercasedString, "user_id": userID, "name": $0.friendlyName ?? "Passkey",
                    "created": Self.when($0.createdAt), "synced": $0.backedUp == true,
                ] as [String: Any]
            },
            "sessions": sessions.map { session -> [String: Any] in
                var row: [String: Any] = [
                    "created": Self.when(session.createdAt), "aal": session.aal, "ip": session.ip ?? "—", "agent": session.userAgent ?? "—",
                ]
                if let client = session.oauthClientID?.lowercasedString { row["client"] = clientNames[client] ?? client }
                return row
            },
            "oauth": useCases.oauthServer != nil,
            "grants": grants.map {
                [
                    "name": $0.client.name.isEmpty ? $0.client.id : $0.client.name, "client": $0.client.id, "user_id": userID,
                    "scopes": $0.scopes.joined(separator: " "), "granted": Self.when($0.grantedAt),
                ]
            },
            "has_sessions": !sessions.isEmpty,
            "events": events.map {
                [
                    "when": Self.when($0.createdAt), "action": $0.payload.action, "actor": $0.payload.actorUsername,
                    "ip": $0.ipAddress,
                ]
            },
            "confirm_delete": confirmDelete, "confirm_word": Self.confirmWord(user),
        ]
        values["info"] = info
        values["error"] = error
        return pages.response("admin-user", title: Self.label(user), values: values, status: status, wide: true)
    }

    /// The OAuth server's clients, newest first.
    func oauthClientsPage() async throws -> Response {
        guard let clients = useCases.oauthClients else {
            return pages.response(
                "message", title: "The OAuth server is off", values: ["text": "Turn it on with GOTRUE_OAUTH_SERVER_ENABLED."],
                status: .notFound)
        }
        let list = try await clients.list().clients
        let rows = list.map { client -> [String: Any] in
            [
                "name": client.clientName ?? "—", "id": client.clientID.lowercasedString, "type": client.clientType,
                "uris": client.redirectURIs, "created": Self.when(client.createdAt), "registration": client.registrationType,
            ]
        }
        return pages.response(
            "admin-oauth-clients", title: "OAuth clients", values: ["clients": rows, "has_clients": !rows.isEmpty], wide: true)
    }
}
