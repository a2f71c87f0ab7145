import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import Logging

/// `latchkey users …`: manage users straight in the store, with the server running or not.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List, show, create, update, ban, delete, invite users, make sign-in links and delete stale anonymous users (works with the server stopped).",
        subcommands: [
            List.self, Show.self, Create.self, Update.self, Ban.self, Unban.self, ResetMFA.self, Delete.self, Invite.self, Link.self,
            Seed.self, CleanupAnonymous.self,
        ])

    struct Output: ParsableArguments {
        @OptionGroup var data: DataOptions
        @Flag(help: "Print JSON instead of a table.") var json = false
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Users, newest first.")
        @OptionGroup var output: Output
        @Option(help: "Only users whose email contains this.") var filter: String?
        @Option(help: "Page, from 1.") var page = 1
        @Option(name: .customLong("per-page"), help: "Users per page (1–1000).") var perPage = 50

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                guard page >= 1, (1...1000).contains(perPage) else { throw ValidationError("page ≥ 1, per-page 1–1000") }
                let (list, total) = try await useCases.admin.users.list(page: page, perPage: perPage, emailFilter: filter)
                if output.json { return try Users.printJSON(list) }
                Users.printTable(list.users)
                print("\(list.users.count) of \(total) user\(total == 1 ? "" : "s") (page \(page))")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One user, by id, email or phone.")
        @OptionGroup var output: Output
        @Argument(help: "The user's id, email address or phone number.") var user: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let found = try await Users.find(user, useCases)
                if output.json { return try Users.printJSON(found) }
                Users.printDetails(found)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a user (no mail is sent).")
        @OptionGroup var output: Output
        @Option var email: String?
        @Option var phone: String?
        @Option(help: "A password (checked against the policy).") var password: String?
        @Option(name: .customLong("password-hash"), help: "A bcrypt hash imported from GoTrue.") var passwordHash: String?
        @Flag(help: "Mark the email and phone as confirmed.") var confirm = false
        @Option(help: "user_metadata as a JSON object.") var data: String?
        @Option var role: String?
        @Option(help: "The user's id (a UUID), to keep the one it had in GoTrue.") var id: String?

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                var attributes = AdminUserAttributes(
                    email: email, phone: phone, password: password, passwordHash: passwordHash, emailConfirm: confirm,
                    phoneConfirm: confirm, userMetadata: try Users.object(data), role: role)
                attributes.id = id
                let user = try await useCases.admin.users.create(attributes)
                if output.json { return try Users.printJSON(user) }
                print("Created \(user.id.lowercasedString) \(Users.label(user))")
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a user; an email or phone change applies at once.")
        @OptionGroup var output: Output
        @Argument(help: "The user's id, email address or phone number.") var user: String
        @Option var email: String?
        @Option var phone: String?
        @Option var password: String?
        @Option(name: .customLong("password-hash"), help: "A bcrypt hash imported from GoTrue.") var passwordHash: String?
        @Flag(help: "Mark the email and phone as confirmed.") var confirm = false
        @Option(help: "user_metadata keys to merge, as a JSON object (null deletes).") var data: String?
        @Option var role: String?

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let found = try await Users.find(user, useCases)
                let attributes = AdminUserAttributes(
                    email: email, phone: phone, password: password, passwordHash: passwordHash, emailConfirm: confirm ? true : nil,
                    phoneConfirm: confirm && (phone != nil || !found.phone.isEmpty) ? true : nil,
                    userMetadata: try Users.object(data), role: role)
                let updated = try await useCases.admin.users.update(id: found.id.uuidString, attributes)
                if output.json { return try Users.printJSON(updated) }
                Users.printDetails(updated)
            }
        }
    }

    struct Ban: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ban a user and end its sessions.")
        @OptionGroup var output: Output
        @Argument(help: "The user's id, email address or phone number.") var user: String
        @Option(help: "How long, as a Go duration: 24h, 1h30m, 8760h (default: 100 years).") var duration = "876000h"

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let found = try await Users.find(user, useCases)
                let updated = try await useCases.admin.users.update(id: found.id.uuidString, AdminUserAttributes(banDuration: duration))
                if output.json { return try Users.printJSON(updated) }
                print("Banned \(Users.label(updated)) until \(updated.bannedUntil.map(WireJSON.formatDate) ?? "-")")
            }
        }
    }

    struct Unban: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lift a ban.")
        @OptionGroup var output: Output
        @Argument(help: "The user's id, email address or phone number.") var user: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let found = try await Users.find(user, useCases)
                let updated = try await useCases.admin.users.update(id: found.id.uuidString, AdminUserAttributes(banDuration: "none"))
                if output.json { return try Users.printJSON(updated) }
                print("Unbanned \(Users.label(updated))")
            }
        }
    }

    struct ResetMFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-mfa", abstract: "Remove every second factor of a user and sign the user out everywhere (a lost phone).")
        @OptionGroup var output: Output
        @Argument(help: "The user's id, email address or phone number.") var user: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let found = try await Users.find(user, useCases)
                let removed = try await useCases.account.mfa.resetFactors(ofUser: found.id.uuidString)
                if output.json { return try Users.printJSON(removed) }
                print(
                    "Removed \(removed.count) second factor\(removed.count == 1 ? "" : "s") of \(Users.label(found)); signed out everywhere"
                )
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user and everything it owns.")
        @OptionGroup var output: Output
        @Argument(help: "The user's id, email address or phone number.") var user: String

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let found = try await Users.find(user, useCases)
                try await useCases.admin.users.delete(id: found.id.uuidString)
                if output.json { return print(#"{"deleted":"\#(found.id.lowercasedString)"}"#) }
                print("Deleted \(found.id.lowercasedString) \(Users.label(found))")
            }
        }
    }

    struct CleanupAnonymous: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cleanup-anonymous",
            abstract: "Delete anonymous users made more than DAYS days ago, with everything they own.")
        @OptionGroup var output: Output
        @Option(name: .customLong("older-than"), help: "Days since the anonymous user was made.") var days: Int

        func validate() throws {
            guard days >= 0 else { throw ValidationError("--older-than must be 0 or more days") }
        }

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let deleted = try await useCases.signIn.anonymous.deleteStale(olderThanDays: days)
                if output.json { return print(#"{"deleted":\#(deleted)}"#) }
                print("Deleted \(deleted) anonymous user\(deleted == 1 ? "" : "s") made more than \(days) day\(days == 1 ? "" : "s") ago")
            }
        }
    }

    // MARK: Helpers

    /// Runs `body` with the use cases over the data options' store (no HTTP application, no
    /// metrics or traces, the environment's webhook left as it is), as the operator (audit events
    /// name the CLI user), and shuts them down after.
    static func withUseCases(_ data: DataOptions, _ body: (UseCases) async throws -> Void) async throws {
        let configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment, overrides: data.overrides)
        var logger = Logger(label: "latchkey")
        logger.logLevel = .error
        let useCases = try await makeUseCases(configuration: configuration, logger: logger)
        do {
            let name = ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "operator"
            let context = AuditContext(ip: nil, userAgent: "latchkey-cli", operatorName: "cli:\(name)")
            try await AuditContext.$current.withValue(context) { try await body(useCases) }
            try await useCases.shutdown()
        } catch let error as AuthError {
            try? await useCases.shutdown()
            FileHandle.standardError.write(Data("\(error.code.rawValue): \(error.message)\n".utf8))
            throw ExitCode.failure
        } catch {
            try? await useCases.shutdown()
            throw error
        }
    }

    /// A user by id, exact email address or phone number.
    static func find(_ key: String, _ useCases: UseCases) async throws -> User {
        try await useCases.admin.users.user(lookup: key)
    }

    /// The user's email, else its phone.
    static func label(_ user: User) -> String { user.email.isEmpty ? user.phone : user.email }

    static func object(_ raw: String?) throws -> [String: JSONValue]? {
        guard let raw else { return nil }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8)), case .object(let object) = value else {
            throw ValidationError("--data must be a JSON object")
        }
        return object
    }

    static func printJSON(_ value: some Encodable) throws {
        print(String(decoding: try WireJSON.makeEncoder().encode(value), as: UTF8.self))
    }

    static func printTable(_ users: [User]) {
        let rows = users.map { user in
            [
                user.id.lowercasedString, user.email, user.phone,
                user.emailConfirmedAt != nil || user.phoneConfirmedAt != nil ? "yes" : "no",
                user.bannedUntil.map { $0 > Date() ? "banned" : "" } ?? "", String(WireJSON.formatDate(user.createdAt).prefix(19)),
            ]
        }
        let header = ["ID", "EMAIL", "PHONE", "CONFIRMED", "STATUS", "CREATED"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            let line = row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
            print(line.replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression))
        }
    }

    static func printDetails(_ user: User) {
        let fields: [(String, String)] = [
            ("id", user.id.lowercasedString), ("email", user.email), ("phone", user.phone),
            ("email confirmed", user.emailConfirmedAt.map(WireJSON.formatDate) ?? "no"),
            ("phone confirmed", user.phoneConfirmedAt.map(WireJSON.formatDate) ?? "no"), ("role", user.role),
            ("banned until", user.bannedUntil.map(WireJSON.formatDate) ?? "-"),
            ("last sign-in", user.lastSignInAt.map(WireJSON.formatDate) ?? "never"),
            ("created", WireJSON.formatDate(user.createdAt)),
            ("providers", (user.appMetadata["providers"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")),
            (
                "factors",
                (user.factors ?? []).map {
                    [$0.factorType.rawValue, $0.friendlyName, "(\($0.status))"].compactMap { $0 }.joined(separator: " ")
                }
                .joined(separator: ", ")
            ),
            ("user_metadata", String(decoding: (try? JSONEncoder().encode(user.userMetadata)) ?? Data(), as: UTF8.self)),
        ]
        for (name, value) in fields { print(name.padding(toLength: 16, withPad: " ", startingAt: 0) + value) }
    }
}
