import Foundation
import Synchronization

/// A real SMTP server (`Tests/support/smtp_sink.py`, on aiosmtpd) in a child process, and what
/// it received, as Python's standard `email` parser read it. With another script (the fake
/// Twilio), the same harness runs that server and reads its records.
final class SMTPSink: Sendable {
    /// One received message.
    struct Mail: Decodable, Sendable {
        var mailFrom: String
        var rcptTos: [String]
        var tls: Bool
        var auth: String?
        var from: String
        var to: String
        var subject: String
        var date: String
        var messageId: String
        var contentType: String
        var text: String?
        var html: String?
        var defects: [String]

        /// The numeric code in the plain-text part.
        var code: String? { text?.firstMatch(of: /is (\d{6,10})\./).map { String($0.1) } }
    }

    let directory: URL
    let port: Int
    let options: [String]
    let script: String
    private let process = Mutex<Process?>(nil)

    private init(directory: URL, port: Int, options: [String], script: String) {
        self.directory = directory
        self.port = port
        self.options = options
        self.script = script
    }

    /// Starts a sink with `smtp_sink.py` options (`--tls starttls`, `--auth user:pass`, …).
    static func start(_ options: [String] = [], script: String = "smtp_sink.py") async throws -> SMTPSink {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (port, process) = try await launch(directory: directory, options: options, script: script)
        let sink = SMTPSink(directory: directory, port: port, options: options, script: script)
        let started = process
        sink.process.withLock { $0 = started }
        return sink
    }

    /// Whether the sink speaks TLS (and so has a ``caFile``).
    var hasTLS: Bool { options.contains("starttls") || options.contains("implicit") }

    /// The CA certificate the sink's TLS certificate chains to.
    var caFile: String { directory.appendingPathComponent("ca.pem").path }

    /// Kills the server (SIGKILL: no goodbye to clients) and waits for it to exit.
    func stop() {
        process.withLock { process in
            guard let running = process else { return }
            kill(running.processIdentifier, SIGKILL)
            running.waitUntilExit()
            process = nil
        }
    }

    /// Starts the server again on the same port and folder.
    func restart() async throws {
        stop()
        let (_, process) = try await Self.launch(directory: directory, options: options + ["--port", "\(port)"], script: script)
        let started = process
        self.process.withLock { $0 = started }
    }

    /// Every message received so far, oldest first.
    func messages() throws -> [Mail] { try records(Mail.self) }

    /// Every record the server wrote so far, oldest first.
    func records<Record: Decodable>(_ type: Record.Type) throws -> [Record] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
            .map { try decoder.decode(Record.self, from: Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// Waits until at least `count` messages arrived.
    func waitForMessages(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Mail] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let received = try messages()
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SinkError("expected \(count) message(s), received \(try messages().count)")
    }

    deinit { stop() }

    /// Runs the script and waits until it listens; returns its port and process.
    private static func launch(directory: URL, options: [String], script name: String) async throws -> (Int, Process) {
        let ready = directory.appendingPathComponent("ready")
        try? FileManager.default.removeItem(at: ready)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("support/\(name)")
        let log = directory.appendingPathComponent("sink.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--dir", directory.path] + options
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<750 {
            if let text = try? String(contentsOf: ready, encoding: .utf8), let port = Int(text) { return (port, process) }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGKILL)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw SinkError(
            "the SMTP sink did not start (needs python3 with aiosmtpd and trustme: "
                + "pip install -r Server/Tests/compat/requirements.txt): \(output.suffix(600))")
    }
}

struct SinkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
