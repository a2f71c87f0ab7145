extension Duration {
    /// The duration in whole nanoseconds (what NIO's `TimeAmount` and swift-metrics' timers take).
    public var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    /// The duration in milliseconds, for logs and the audit log.
    public var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
