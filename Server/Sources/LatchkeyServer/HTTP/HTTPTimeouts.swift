import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// How long a connection may take over each part of a request, as GoTrue's server bounds them
/// (its header-read timeout is 2 s): without them a client that sends half its headers, or
/// nothing, or a body a byte at a time, holds a connection (and a file descriptor) for as long
/// as it likes, and a few hundred such clients exhaust the server (Slowloris).
public struct HTTPTimeouts: Sendable, Equatable {
    /// From a request's first byte to the end of its headers (`LATCHKEY_HTTP_HEADER_TIMEOUT`).
    public var header: Duration
    /// From the end of the headers to the end of the body (`LATCHKEY_HTTP_BODY_TIMEOUT`).
    public var body: Duration
    /// A connection with no request in progress: a new one that sends nothing, or a kept-alive
    /// one between requests (`LATCHKEY_HTTP_IDLE_TIMEOUT`).
    public var idle: Duration

    public init(header: Duration = .seconds(2), body: Duration = .seconds(30), idle: Duration = .seconds(30)) {
        self.header = header
        self.body = body
        self.idle = idle
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with ``HTTPTimeouts``: a connection that overstays one is closed.
    static func http1(timeouts: HTTPTimeouts) -> HTTPServerBuilder {
        .init { responder in TimedHTTP1Channel(inner: HTTP1Channel(responder: responder), timeouts: timeouts) }
    }
}

/// Hummingbird's HTTP/1 channel with a clock on each connection: a handler before the HTTP
/// decoder sees the first byte of each request, one after it sees where the headers and the body
/// end, and one after the responder sees the answer end.
struct TimedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel
    let timeouts: HTTPTimeouts

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let clock = ConnectionClock(timeouts: timeouts)
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionClock.BytesWatcher(clock: clock), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let state = try channel.pipeline.syncOperations.handler(type: HTTPConnectionStateHandler.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionClock.PartsWatcher(clock: clock), position: .before(state))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// One connection's deadline: waiting for a request (idle), reading its headers, reading its body,
/// or none while the request is handled. Lives on the connection's event loop.
final class ConnectionClock {
    enum Phase { case idle, head, body, handling }

    let timeouts: HTTPTimeouts
    private(set) var phase = Phase.idle
    /// Requests whose headers arrived and whose answer has not ended.
    private var inFlight = 0
    /// The answer being written says `Connection: close` (a `413` to a body not read).
    var closeAfterAnswer = false
    private var deadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(timeouts: HTTPTimeouts) {
        self.timeouts = timeouts
    }

    /// Enters `phase`, with its deadline (none while handling).
    func enter(_ phase: Phase) {
        self.phase = phase
        deadline?.cancel()
        deadline = nil
        guard let context else { return }
        let limit: Duration
        switch phase {
        case .idle: limit = timeouts.idle
        case .head: limit = timeouts.header
        case .body: limit = timeouts.body
        case .handling: return
        }
        let (seconds, attoseconds) = limit.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self] in
            self?.expire()
        }
    }

    private func expire() {
        deadline = nil
        context?.close(promise: nil)
    }

    func started(_ context: ChannelHandlerContext) {
        guard self.context == nil else { return }
        self.context = context
        enter(.idle)
    }

    func stopped() {
        deadline?.cancel()
        deadline = nil
        context = nil
    }

    /// Bytes arrived: the first of a request starts its header clock.
    func bytesArrived() {
        if phase == .idle { enter(.head) }
    }

    func headArrived() {
        inFlight += 1
        enter(.body)
    }

    func bodyEnded() {
        if phase == .body { enter(.handling) }
    }

    func answerEnded() {
        inFlight = max(0, inFlight - 1)
        // A body still arriving after the answer keeps its clock; otherwise wait for the next request.
        if inFlight == 0, phase == .handling { enter(.idle) }
    }

    /// Ends the connection after an answer that said `Connection: close`: the output is closed at
    /// once (the client sees the answer and the end), what the client still sends is read and
    /// dropped for a moment, so its socket is not reset before it reads the answer, then the
    /// connection is closed.
    func endAfterAnswer(_ context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        phase = .handling
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { [weak self] in self?.expire() }
    }

    /// Before the HTTP decoder: sees raw bytes.
    final class BytesWatcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let clock: ConnectionClock

        init(clock: ConnectionClock) { self.clock = clock }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { clock.started(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            clock.started(context)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            clock.stopped()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            clock.stopped()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            clock.bytesArrived()
            context.fireChannelRead(data)
        }
    }

    /// After the HTTP decoder: sees where headers and bodies end, and where answers end.
    final class PartsWatcher: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart
        let clock: ConnectionClock

        init(clock: ConnectionClock) { self.clock = clock }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: clock.headArrived()
            case .body: break
            case .end: clock.bodyEnded()
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(let head):
                if head.headerFields[.connection]?.lowercased() == "close" { clock.closeAfterAnswer = true }
                context.write(data, promise: promise)
            case .body:
                context.write(data, promise: promise)
            case .end:
                clock.answerEnded()
                guard clock.closeAfterAnswer else {
                    context.write(data, promise: promise)
                    return
                }
                context.writeAndFlush(data, promise: promise)
                clock.endAfterAnswer(context)
            }
        }
    }
}
