import ArgumentParser
import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyServer
import Logging

/// `latchkey serve`: runs the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the auth server.")

    @Option(help: "Address to listen on (LATCHKEY_HOST).") var host: String?
    @Option(help: "Port to listen on (PORT).") var port: Int?
    @OptionGroup var data: DataOptions
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (LATCHKEY_LOG_LEVEL).")
    var logLevel: String?

    func run() async throws {
        var overrides = data.overrides
        overrides["host"] = host
        overrides["port"] = port.map(String.init)
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment, overrides: overrides)
        } catch {
            throw ValidationError("\(error)")
        }
        var logger =
            configuration.logging.format == .json ? Logger(label: "latchkey") { JSONLogHandler(label: $0) } : Logger(label: "latchkey")
        logger.logLevel = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? configuration.logging.level
        for warning in configuration.warnings { logger.warning("\(warning)") }
        let app = try await buildApplication(configuration: configuration, logger: logger)
        let email =
            configuration.smtp.map { "SMTP via \($0.host):\($0.port) (\($0.security.rawValue)) from \($0.senderAddress)" }
                ?? """
                no mail transport configured: messages go to the dev mailbox
                           read it with `latchkey mailbox` or http://\(configuration.host):\(configuration.port)/_dev/mailbox
                """
        let keys =
            app.service.issuer.usesStoredKeys
            ? "ES256, key \(app.service.issuer.signingKeyID ?? "?") from the store (latchkey keys list)"
            : "\(app.service.issuer.algorithm) from GOTRUE_JWT_KEYS / GOTRUE_JWT_SECRET"
        if configuration.logging.format == .json {
            logger.notice(
                "listening",
                metadata: [
                    "version": .string(LatchkeyVersion.current), "address": .string("\(configuration.host):\(configuration.port)"),
                    "store": .string(configuration.storeDescription), "keys": .string(keys),
                    "email": .string(email.split(separator: "\n").first.map(String.init) ?? email),
                ])
        } else {
            print(
                """
                Latchkey \(LatchkeyVersion.current) listening on http://\(configuration.host):\(configuration.port)
                  store:   \(configuration.storeDescription)
                  keys:    \(keys)
                  email:   \(email)
                """)
        }
        do {
            try await app.application.runService()
        } catch {
            try? await app.shutdown()
            throw error
        }
        try await app.shutdown()
    }
}
