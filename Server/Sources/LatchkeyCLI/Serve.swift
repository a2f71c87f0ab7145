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
        let (useCases, application) = try await buildServer(configuration: configuration, logger: logger)
        let email =
            configuration.smtp.map { "SMTP via \($0.host):\($0.port) (\($0.security.rawValue)) from \($0.senderAddress)" }
                ?? """
                no mail transport configured: messages go to the dev mailbox
                           read it with `latchkey mailbox` or http://\(configuration.host):\(configuration.port)/_dev/mailbox
                """
        let keys =
            useCases.issuer.usesStoredKeys
            ? "ES256, key \(useCases.issuer.signingKeyID ?? "?") from the store (latchkey keys list)"
            : "\(useCases.issuer.algorithm) from GOTRUE_JWT_KEYS / GOTRUE_JWT_SECRET"
        // Under GoTrue's defaults, what Latchkey would harden (`latchkey config check` says the same).
        let hardenings = configuration.profile == .gotrue ? configuration.hardenings : []
        let hardeningLines =
            hardenings.isEmpty
            ? ""
            : "\n    Latchkey would harden:"
                + hardenings.map {
                    "\n      \($0.setting) = \($0.value) → \($0.remedy)"
                }.joined()
        if configuration.logging.format == .json {
            logger.notice(
                "listening",
                metadata: [
                    "version": .string(LatchkeyVersion.current), "address": .string("\(configuration.host):\(configuration.port)"),
                    "store": .string(configuration.storeDescription), "keys": .string(keys),
                    "server_secret": .string(useCases.serverSecretOrigin), "profile": .string(configuration.profile.rawValue),
                    "email": .string(email.split(separator: "\n").first.map(String.init) ?? email),
                ])
            for finding in hardenings {
                logger.notice(
                    "weaker than Latchkey recommends",
                    metadata: ["setting": .string(finding.setting), "value": .string(finding.value), "harden": .string(finding.remedy)])
            }
        } else {
            // Written at once: a container's log is a pipe, where print's buffer would keep it.
            FileHandle.standardOutput.write(
                Data(
                    """
                    Latchkey \(LatchkeyVersion.current) listening on http://\(configuration.host):\(configuration.port)
                      store:   \(configuration.storeDescription)
                      keys:    \(keys)
                      secret:  \(useCases.serverSecretOrigin)
                      email:   \(email)
                      \(configuration.profileSummary)\(hardeningLines)

                    """.utf8))
        }
        do {
            try await application.runService()
        } catch {
            try? await useCases.shutdown()
            throw error
        }
        try await useCases.shutdown()
    }
}
