import ArgumentParser
import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServer
import LatchkeyStore
import Logging

/// `latchkey mailbox`: prints the development mailbox from the data folder, newest first.
struct Mailbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the emails the server captured in its dev mailbox.")

    @OptionGroup var data: DataOptions
    @Option(help: "Only messages to this address.") var to: String?
    @Option(help: "How many messages to show.") var limit: Int = 10
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment, overrides: data.overrides)
        guard configuration.postgres != nil || FileManager.default.fileExists(atPath: configuration.databasePath) else {
            throw ValidationError("No database at \(configuration.databasePath): start the server first (latchkey serve)")
        }
        var logger = Logger(label: "latchkey")
        logger.logLevel = .warning
        let database = try await openDatabase(configuration, readers: 1, logger: logger)
        let store = SQLAuthStore(database: database)
        let address = to.map { EmailAddress.canonical($0) ?? $0 }
        let messages = try await store.mailbox(to: address, limit: max(1, limit))
        try await database.close()
        if json {
            let wire = messages.map {
                MailboxMessage(
                    id: $0.id.lowercasedString, to: $0.message.to, subject: $0.message.subject, text: $0.message.text,
                    html: $0.message.html, createdAt: WireJSON.formatDate($0.createdAt))
            }
            print(String(decoding: try WireJSON.makeEncoder().encode(MailboxResponse(messages: wire)), as: UTF8.self))
            return
        }
        if messages.isEmpty { print("The dev mailbox is empty.") }
        for message in messages {
            print("── \(WireJSON.formatDate(message.createdAt))  to \(message.message.to.joined(separator: ", "))")
            print("   \(message.message.subject)\n")
            print(message.message.text.split(separator: "\n", omittingEmptySubsequences: false).map { "   \($0)" }.joined(separator: "\n"))
            print("")
        }
    }
}
