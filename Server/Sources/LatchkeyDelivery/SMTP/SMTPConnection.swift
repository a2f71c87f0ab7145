import NIOCore
import NIOPosix
import NIOSSL

/// One connection to an SMTP server: send a command, await its reply, each within the timeout.
struct SMTPConnection: Sendable {
    let channel: any Channel
    let timeout: TimeAmount
    let failure: SMTPConnectionFailure

    /// Connects and returns the connection with the server's greeting. With `tls`, TLS starts at
    /// once (implicit TLS).
    static func connect(
        host: String, port: Int, tls: NIOSSLContext?, serverHostname: String?, timeout: Duration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> (SMTPConnection, SMTPReply) {
        let loop = group.next()
        let greeting = loop.makePromise(of: SMTPReply.self)
        let failure = SMTPConnectionFailure()
        let amount = TimeAmount(timeout)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(amount)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    try channel.pipeline.syncOperations.addHandler(SMTPClientHandler(greeting: greeting, failure: failure))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            greeting.fail(error)
            throw SMTPError(.connectionFailed, "cannot connect to \(host):\(port): \(error)")
        }
        let connection = SMTPConnection(channel: channel, timeout: amount, failure: failure)
        let reply = try await connection.await(greeting)
        return (connection, reply)
    }

    /// Sends one command line (CRLF is added) and returns the reply.
    func command(_ line: String) async throws -> SMTPReply {
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
        buffer.writeString(line)
        buffer.writeString("\r\n")
        return try await send(buffer)
    }

    /// Sends raw bytes (a message body) and returns the reply they complete.
    func send(_ bytes: ByteBuffer) async throws -> SMTPReply {
        let promise = channel.eventLoop.makePromise(of: SMTPReply.self)
        // A write that never reaches the handler (the channel closed first) fails the reply too.
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { promise.fail($0) }
        channel.writeAndFlush(SMTPCommand(bytes: bytes, reply: promise), promise: written)
        return try await self.await(promise)
    }

    /// Starts TLS on the open connection (after the server's `220` to `STARTTLS`).
    func startTLS(_ context: NIOSSLContext, serverHostname: String?) async throws {
        try await channel.eventLoop.submit { [channel] in
            let handler = try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
            try channel.pipeline.syncOperations.addHandler(handler, position: .first)
        }.get()
    }

    /// Closes the connection; errors are ignored, the message is already handed over or failed.
    func close() async {
        try? await channel.close()
    }

    /// Waits for `promise`, failing it and closing the connection when the timeout passes first.
    private func await(_ promise: EventLoopPromise<SMTPReply>) async throws -> SMTPReply {
        let timeout = self.timeout
        let timer = channel.eventLoop.scheduleTask(in: timeout) { [channel] in
            promise.fail(SMTPError(.timeout, "no reply within \(timeout.nanoseconds / 1_000_000_000) s"))
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            return try await promise.futureResult.get()
        } catch {
            // Report the cause (a refused certificate) rather than its consequence (a closed channel).
            throw failure.error.map { SMTPError(.connectionFailed, "\($0)") } ?? error
        }
    }
}
