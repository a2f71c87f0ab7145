import Foundation
import LatchkeyCore
import NIOCore
import NIOSSL

/// Hands messages to an SMTP server (RFC 5321): implicit TLS or STARTTLS, `AUTH PLAIN` or
/// `LOGIN`, a MIME body with both parts, one connection per message.
public struct SMTPMailer: Mailer {
    public let configuration: SMTPConfiguration
    private let tls: NIOSSLContext

    /// Prepares the TLS context; throws when the CA file cannot be read.
    public init(configuration: SMTPConfiguration) throws {
        self.configuration = configuration
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile { tlsConfiguration.trustRoots = .file(caFile) }
        self.tls = try NIOSSLContext(configuration: tlsConfiguration)
    }

    public func send(_ message: EmailMessage) async throws {
        let mime = try MIMEMessage(
            message, from: configuration.senderAddress, senderName: configuration.senderName, date: Date())
        try await deliver(mime.rendered, from: configuration.senderAddress, to: message.to)
    }

    /// The SMTP conversation for one message.
    func deliver(_ body: String, from sender: String, to recipients: [String]) async throws {
        for address in [sender] + recipients where !MIMEMessage.isSafeAddress(address) {
            throw SMTPError(.invalidMessage, "address cannot be sent to: \(address.debugDescription)", isPermanent: true)
        }
        guard !recipients.isEmpty else { throw SMTPError(.invalidMessage, "no recipients", isPermanent: true) }
        let implicit = configuration.security == .tls || (configuration.security == .auto && configuration.port == 465)
        let (connection, greeting) = try await SMTPConnection.connect(
            host: configuration.host, port: configuration.port, tls: implicit ? tls : nil,
            serverHostname: serverHostname, timeout: configuration.timeout)
        do {
            try expect(greeting, 220, "greeting")
            var capabilities = try await hello(connection)
            var secure = implicit
            if !secure, configuration.security != .none {
                if capabilities.contains("STARTTLS") {
                    try expect(try await connection.command("STARTTLS"), 220, "STARTTLS")
                    try await connection.startTLS(tls, serverHostname: serverHostname)
                    capabilities = try await hello(connection)
                    secure = true
                } else if configuration.security == .startTLS {
                    throw SMTPError(.tlsRequired, "the server does not offer STARTTLS")
                }
            }
            if let username = configuration.username, !username.isEmpty {
                guard secure || configuration.isLoopback || configuration.security == .none else {
                    throw SMTPError(.tlsRequired, "refusing to send SMTP credentials without TLS")
                }
                try await authenticate(connection, username: username, password: configuration.password ?? "", capabilities: capabilities)
            }
            try expect(try await connection.command("MAIL FROM:<\(sender)>"), 250, "MAIL FROM", envelope: true)
            for recipient in recipients {
                let reply = try await connection.command("RCPT TO:<\(recipient)>")
                try expect(reply, reply.code == 251 ? 251 : 250, "RCPT TO", envelope: true)
            }
            try expect(try await connection.command("DATA"), 354, "DATA", envelope: true)
            var data = connection.channel.allocator.buffer(capacity: body.utf8.count + 16)
            data.writeString(MIMEMessage.dotStuffed(body))
            data.writeString("\r\n.\r\n")
            try expect(try await connection.send(data), 250, "message", envelope: true)
            _ = try? await connection.command("QUIT")
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
    }

    /// `EHLO`, and the capabilities the server lists (upper-cased keywords and their arguments).
    private func hello(_ connection: SMTPConnection) async throws -> Set<String> {
        let reply = try await connection.command("EHLO \(configuration.heloName)")
        try expect(reply, 250, "EHLO")
        var capabilities = Set<String>()
        for line in reply.lines.dropFirst() {
            let words = line.uppercased().split(separator: " ").map(String.init)
            guard let keyword = words.first else { continue }
            capabilities.insert(keyword)
            for argument in words.dropFirst() { capabilities.insert("\(keyword) \(argument)") }
        }
        return capabilities
    }

    private func authenticate(_ connection: SMTPConnection, username: String, password: String, capabilities: Set<String>) async throws {
        if capabilities.contains("AUTH PLAIN") {
            let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            try expect(try await connection.command("AUTH PLAIN \(token)"), 235, "AUTH PLAIN")
        } else if capabilities.contains("AUTH LOGIN") {
            try expect(try await connection.command("AUTH LOGIN"), 334, "AUTH LOGIN")
            try expect(try await connection.command(Data(username.utf8).base64EncodedString()), 334, "AUTH LOGIN user")
            try expect(try await connection.command(Data(password.utf8).base64EncodedString()), 235, "AUTH LOGIN password")
        } else {
            let offered = capabilities.filter { $0.hasPrefix("AUTH") }.sorted().joined(separator: ", ")
            throw SMTPError(
                .authenticationUnavailable,
                "the server offers neither AUTH PLAIN nor AUTH LOGIN (offered: \(offered.isEmpty ? "none" : offered))")
        }
    }

    /// Throws unless `reply` has the expected code. A 5xx refusal of the envelope or the message
    /// is permanent; everything else may pass on a later try.
    private func expect(_ reply: SMTPReply, _ code: Int, _ step: String, envelope: Bool = false) throws {
        guard reply.code != code else { return }
        throw SMTPError(
            .rejected, "\(step) refused: \(reply.text.prefix(200))", replyCode: reply.code, isPermanent: envelope && reply.code >= 500)
    }

    /// The name checked against the server's certificate; an IP address is checked as such.
    private var serverHostname: String? {
        let host = configuration.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }
}
