import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer

extension Users {
    /// `latchkey users invite`: `POST /invite` from the terminal.
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invite an address: the invitation email is queued and sent by the running server.")
        @OptionGroup var output: Output
        @Argument(help: "The address to invite.") var email: String
        @Option(help: "user_metadata as a JSON object.") var data: String?
        @Option(name: .customLong("redirect-to"), help: "Where the invitation link sends the user.") var redirectTo: String?

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let user = try await useCases.admin.invitations.invite(
                    InviteRequest(email: email, data: try Users.object(data)), redirectTo: redirectTo)
                if output.json { return try Users.printJSON(user) }
                print("Invited \(user.email) (\(user.id.lowercasedString)); the email goes out from the server's outbox")
            }
        }
    }

    /// `latchkey users link`: `POST /admin/generate_link` from the terminal, for an operator to
    /// hand a user a link or code directly. No email is sent.
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a sign-in, recovery, invite or email-change link and code (no email is sent).")
        @OptionGroup var output: Output
        @Argument(help: "The user's email address.") var email: String
        @Option(help: "signup, invite, magiclink, recovery, email_change_current or email_change_new.") var type = "magiclink"
        @Option(name: .customLong("new-email"), help: "The new address, for the email-change types.") var newEmail: String?
        @Option(help: "The new user's password, for signup.") var password: String?
        @Option(name: .customLong("redirect-to"), help: "Where the link sends the user.") var redirectTo: String?

        func run() async throws {
            try await Users.withUseCases(output.data) { useCases in
                let link = try await useCases.admin.invitations.generateLink(
                    GenerateLinkRequest(type: type, email: email, newEmail: newEmail, password: password, redirectTo: redirectTo))
                if output.json { return try Users.printJSON(link) }
                print("Link (\(link.verificationType)) for \(link.user.email):")
                print("  \(link.actionLink)")
                print("Code: \(link.emailOTP)")
            }
        }
    }
}
