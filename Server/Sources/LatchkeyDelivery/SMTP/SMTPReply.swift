import NIOCore

/// One SMTP reply: its three-digit code and its text lines (RFC 5321 §4.2).
struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]

    /// The text, lines joined by spaces, for errors and logs.
    var text: String { lines.joined(separator: " ") }
}

/// Splits the byte stream into replies, joining the lines of multi-line replies (`250-…`).
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// The longest reply line accepted; RFC 5321 allows 512 octets.
    static let maxLineLength = 4096
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maxLineLength { throw SMTPError(.malformedReply, "reply line too long") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex + 1
        guard var bytes = buffer.readBytes(length: length) else { return .needMoreData }
        // Byte-wise: "\r\n" is a single Character in Swift.
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        let line = String(decoding: bytes, as: UTF8.self)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)), (200...599).contains(code) else {
            throw SMTPError(.malformedReply, "not an SMTP reply: \(line.prefix(80))")
        }
        let continues = bytes.count > 3 && bytes[3] == UInt8(ascii: "-")
        lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        if !continues {
            context.fireChannelRead(Self.wrapInboundOut(SMTPReply(code: code, lines: lines)))
            lines = []
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
