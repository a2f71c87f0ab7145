import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDelivery
import LatchkeyServer
import LatchkeyStore
import Testing

/// Mail through a real SMTP server (aiosmtpd in a child process): TLS, login, MIME, and the
/// outbox's promise that a server that is down delays mail but loses none.
@Suite struct SMTPDeliveryTests {
    static let sender = "auth@latchkey.test"

    /// A test server whose mail goes to `sink`, retrying quickly.
    static func server(_ sink: SMTPSink, security: SMTPConfiguration.Security = .auto, user: String? = nil) -> TestServer {
        TestServer { configuration in
            configuration.smtp = SMTPConfiguration(
                host: "127.0.0.1", port: sink.port, username: user, password: user.map { _ in "s3cret" }, senderAddress: sender,
                senderName: "Latchkey Łódź", security: security, caFile: sink.hasTLS ? sink.caFile : nil, timeout: .seconds(5))
            configuration.mailRetry = MailRetryPolicy(maxAttempts: 200, baseDelay: 0.05, maxDelay: 0.3)
        }
    }

    @Test func startTLSWithLoginDeliversAWellFormedMessageWhoseCodeSignsIn() async throws {
        let sink = try await SMTPSink.start(["--tls", "starttls", "--auth", "mailer:s3cret"])
        try await Self.server(sink, user: "mailer").run { client, app async throws in
            let signUp = try await client.send(
                .post, "/signup", json: #"{"email":"smtp@example.com","password":"correct horse battery staple"}"#)
            #expect(signUp.status == .ok)
            let mail = try #require(try await sink.waitForMessages(1).first)
            #expect(mail.tls)
            #expect(mail.auth == "mailer")
            #expect(mail.mailFrom == Self.sender)
            #expect(mail.rcptTos == ["smtp@example.com"])
            #expect(mail.from == "Latchkey Łódź <\(Self.sender)>")
            #expect(mail.to == "smtp@example.com")
            #expect(mail.subject == "Confirm your email address")
            #expect(mail.contentType == "multipart/alternative")
            #expect(mail.messageId.hasPrefix("<") && mail.messageId.hasSuffix("@latchkey.test>"))
            #expect(mail.date.hasSuffix("+0000"))
            #expect(mail.defects.isEmpty)
            #expect(mail.html?.contains("<strong>") == true)
            let code = try #require(mail.code)
            let verify = try await client.send(.post, "/verify", json: #"{"type":"signup","email":"smtp@example.com","token":"\#(code)"}"#)
            #expect(verify.status == .ok)
            // With a mail transport there is no dev mailbox.
            #expect(try await client.send(.get, "/_dev/mailbox").status == .notFound)
            // What was sent is erased from the outbox.
            let payloads = try await app.store.database.read { db in try await db.query("SELECT payload, sent_at FROM outbox", []) }
            #expect(payloads.count == 1)
            #expect(payloads.first?.string("payload") == "")
            #expect(payloads.first?.date("sent_at") != nil)
        }
    }

    @Test func implicitTLSCarriesTheResetEmail() async throws {
        let sink = try await SMTPSink.start(["--tls", "implicit"])
        try await Self.server(sink, security: .tls).run { client, _ async throws in
            try await client.send(.post, "/signup", json: #"{"email":"tls@example.com","password":"correct horse battery staple"}"#)
            let code = try #require(try await sink.waitForMessages(1).first?.code)
            try await client.send(.post, "/verify", json: #"{"type":"signup","email":"tls@example.com","token":"\#(code)"}"#)
            try await client.send(.post, "/recover", json: #"{"email":"tls@example.com"}"#)
            let reset = try #require(try await sink.waitForMessages(2).last)
            #expect(reset.tls)
            #expect(reset.subject == "Reset your password")
            #expect(reset.text?.contains("type=recovery") == true)
        }
    }

    @Test func aMailServerThatIsDownDelaysMailButLosesNone() async throws {
        let sink = try await SMTPSink.start()
        try await Self.server(sink).run { client, app async throws in
            try await client.send(.post, "/signup", json: #"{"email":"before@example.com","password":"correct horse battery staple"}"#)
            _ = try await sink.waitForMessages(1)

            sink.stop()
            for name in ["during1", "during2", "during3"] {
                let response = try await client.send(
                    .post, "/signup", json: #"{"email":"\#(name)@example.com","password":"correct horse battery staple"}"#)
                #expect(response.status == .ok)  // the sign-up does not wait for, or fail with, the mail server
            }
            try await client.send(.post, "/otp", json: #"{"email":"before@example.com"}"#)
            // Attempts fail while it is down, and the messages stay queued.
            var failedAttempts = 0
            for _ in 0..<250 where failedAttempts == 0 {
                failedAttempts = try await app.store.pendingOutbox(limit: 10).filter { $0.attempts > 0 && $0.lastError != nil }.count
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(failedAttempts > 0)
            #expect(try await app.store.pendingOutbox(limit: 10).count == 4)

            try await sink.restart()
            let received = try await sink.waitForMessages(5)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try sink.messages().count == 5)  // none twice
            #expect(Set(received.map(\.to)) == ["before@example.com", "during1@example.com", "during2@example.com", "during3@example.com"])
            #expect(try await app.store.pendingOutbox(limit: 10).isEmpty)
            // The queued code still signs in.
            let code = try #require(received.last(where: { $0.to == "during2@example.com" })?.code)
            #expect(
                try await client.send(.post, "/verify", json: #"{"type":"signup","email":"during2@example.com","token":"\#(code)"}"#)
                    .status == .ok)
        }
    }

    @Test func aPermanentRefusalIsGivenUpOnWithoutBlockingTheQueue() async throws {
        let sink = try await SMTPSink.start(["--reject", "bounce"])
        try await Self.server(sink).run { client, app async throws in
            try await client.send(.post, "/signup", json: #"{"email":"bounce@example.com","password":"correct horse battery staple"}"#)
            try await client.send(.post, "/signup", json: #"{"email":"fine@example.com","password":"correct horse battery staple"}"#)
            let received = try await sink.waitForMessages(1)
            #expect(received.map(\.to) == ["fine@example.com"])
            try await app.settleOutbox()
            let rows = try await app.store.database.read { db in
                try await db.query("SELECT recipient, attempts, failed_at, last_error, payload FROM outbox WHERE failed_at IS NOT NULL", [])
            }
            #expect(rows.map { $0.string("recipient") } == ["bounce@example.com"])
            #expect(rows.first?.int("attempts") == 1)
            #expect(rows.first?.string("last_error")?.contains("550") == true)
            #expect(rows.first?.string("payload") == "")
        }
    }

    @Test func anUnreadableCAFileFailsTheStartCleanly() async throws {
        let server = TestServer { configuration in
            configuration.smtp = SMTPConfiguration(host: "127.0.0.1", port: 25, senderAddress: Self.sender, caFile: "/nonexistent/ca.pem")
        }
        await #expect(throws: (any Error).self) { try await server.run { _, _ in } }
        // The database was closed: it opens again.
        try await TestServer(directory: server.directory).run { client, _ async throws in
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }

    @Test func theMailerReportsTimeoutsMissingTLSAndWrongLogins() async throws {
        let silent = try await SMTPSink.start(["--silent"])
        let slow = try SMTPMailer(
            configuration: SMTPConfiguration(host: "127.0.0.1", port: silent.port, senderAddress: Self.sender, timeout: .seconds(1)))
        let message = EmailMessage(to: ["x@example.com"], subject: "s", text: "t", html: "h")
        await #expect { try await slow.send(message) } throws: { ($0 as? SMTPError)?.code == .timeout }

        let plain = try await SMTPSink.start()
        let needsTLS = try SMTPMailer(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: plain.port, senderAddress: Self.sender, security: .startTLS, timeout: .seconds(20)))
        await #expect { try await needsTLS.send(message) } throws: { ($0 as? SMTPError)?.code == .tlsRequired }

        let guarded = try await SMTPSink.start(["--tls", "starttls", "--auth", "mailer:s3cret"])
        let wrong = try SMTPMailer(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: guarded.port, username: "mailer", password: "wrong", senderAddress: Self.sender,
                caFile: guarded.caFile, timeout: .seconds(20)))
        await #expect {
            try await wrong.send(message)
        } throws: { error in
            guard let error = error as? SMTPError else { return false }
            return error.replyCode == 535 && !error.isPermanent
        }
        // An untrusted certificate is refused.
        let untrusting = try SMTPMailer(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: guarded.port, senderAddress: Self.sender, security: .startTLS, timeout: .seconds(20)))
        await #expect { try await untrusting.send(message) } throws: { error in
            // Refused by the certificate check, not by waiting.
            !((error as? SMTPError)?.code == .timeout)
        }
        #expect(try guarded.messages().isEmpty)
        #expect(try plain.messages().isEmpty)
    }
}
