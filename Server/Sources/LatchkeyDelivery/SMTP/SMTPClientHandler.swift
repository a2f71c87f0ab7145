import NIOCore
import Synchronization

/// The first error a connection saw (a failed TLS handshake, say), kept for the report when
/// later operations only learn that the channel closed.
final class SMTPConnectionFailure: Sendable {
    private let first = Mutex<(any Error)?>(nil)

    func record(_ error: any Error) {
        first.withLock { if $0 == nil { $0 = error } }
    }

    var error: (any Error)? { first.withLock { $0 } }
}

/// A command to write, with the promise its reply fulfils.
struct SMTPCommand: Sendable {
    var bytes: ByteBuffer
    var reply: EventLoopPromise<SMTPReply>
}

/// Pairs replies with the commands that asked for them, in order; the first reply (the
/// greeting) answers the promise given at creation. A closed or failed connection fails every
/// waiting promise.
final class SMTPClientHandler: ChannelDuplexHandler {
    typealias InboundIn = SMTPReply
    typealias OutboundIn = SMTPCommand
    typealias OutboundOut = ByteBuffer

    private var waiting: CircularBuffer<EventLoopPromise<SMTPReply>>
    private let failure: SMTPConnectionFailure

    init(greeting: EventLoopPromise<SMTPReply>, failure: SMTPConnectionFailure) {
        waiting = [greeting]
        self.failure = failure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = unwrapInboundIn(data)
        // A reply nobody waits for (a server's 421 before closing) is dropped; the close fails
        // the next command.
        waiting.popFirst()?.succeed(reply)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let command = unwrapOutboundIn(data)
        waiting.append(command.reply)
        context.write(wrapOutboundOut(command.bytes), promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failure.record(error)
        failAll(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(SMTPError(.connectionClosed, "the server closed the connection"))
        context.fireChannelInactive()
    }

    private func failAll(_ error: any Error) {
        while let promise = waiting.popFirst() { promise.fail(error) }
    }
}
