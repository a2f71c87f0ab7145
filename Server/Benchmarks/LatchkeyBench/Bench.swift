import AsyncHTTPClient
import Foundation
import LatchkeyAPI
import NIOCore
import NIOHTTP1

/// A closed-loop load generator for a running Latchkey server: `concurrency` workers repeat one
/// operation for `seconds`, and the tool prints requests per second and latency percentiles.
///
///     latchkey-bench [URL[,URL…]] [SECONDS] [CONCURRENCY] [SCENARIOS]
///
/// Scenarios: password, code, mail, refresh, user, bare, device-key (comma-separated); `mail`
/// also prints `mail-wait`, the time from `/otp`'s answer to the code being readable; `bare` is
/// `GET /user` against `BareJWTRoute` (at `BENCH_BARE_URL`, default port 9997), the route's ceiling. The server must run with the dev
/// mailbox (no mail transport) and limits raised, as `scripts/bench` starts it.
@main
struct Bench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let url = arguments.count > 1 ? arguments[1] : "http://127.0.0.1:9999"
        let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 10 : 10
        let concurrency = arguments.count > 3 ? Int(arguments[3]) ?? 8 : 8
        let scenarios = (arguments.count > 4 ? arguments[4] : "password,code,refresh,user,bare,device-key").split(separator: ",").map(
            String.init)
        // Several comma-separated URLs: instances on one database, the workers spread over them.
        let apis = url.split(separator: ",").map { API(client: HTTPClient.shared, base: String($0)) }
        let api = apis[0]

        print("Latchkey benchmark: \(url), \(Int(seconds)) s per scenario, \(concurrency) concurrent clients")
        let users = try await api.makeUsers(count: concurrency)
        for scenario in scenarios {
            let result: Result
            switch scenario {
            case "password":
                result = try await run(seconds: seconds, workers: concurrency) { worker in
                    _ = try await apis[worker % apis.count].signIn(users[worker].email, users[worker].password)
                }
            case "code":
                result = try await run(seconds: seconds, workers: concurrency) { worker in
                    try await apis[worker % apis.count].codeSignIn(users[worker].email)
                }
            case "mail":
                // The time from /otp's answer to its message being readable (one op: both).
                let delays = Delays()
                result = try await run(seconds: seconds, workers: concurrency) { worker in
                    let (wait, firstRead) = try await apis[worker % apis.count].mailDelay(users[worker].email)
                    await delays.add(wait, firstRead: firstRead)
                }
                print(Result(latencies: await delays.values, errors: 0, elapsed: seconds).line("mail-wait"))
                print(
                    String(format: "mail: %.1f %% of codes were in the first mailbox read after /otp answered", await delays.firstReadShare)
                )
            case "refresh":
                let chains = RefreshChains(tokens: users.map(\.refreshToken))
                result = try await run(seconds: seconds, workers: concurrency) { worker in
                    let next = try await apis[worker % apis.count].refresh(await chains.token(worker))
                    await chains.set(worker, next)
                }
            case "user":
                result = try await run(seconds: seconds, workers: concurrency) { worker in
                    try await apis[worker % apis.count].getUser(users[worker].accessToken)
                }
            case "bare":
                // The same request against BareJWTRoute: Hummingbird and an ES256 verify, nothing else.
                let bare = API(
                    client: HTTPClient.shared, base: ProcessInfo.processInfo.environment["BENCH_BARE_URL"] ?? "http://127.0.0.1:9997")
                let token = String(decoding: try await bare.get("/token", json: false), as: UTF8.self)
                result = try await run(seconds: seconds, workers: concurrency) { _ in try await bare.getUser(token) }
            case "device-key":
                var devices: [DeviceKeySigner] = []
                for user in users { devices.append(try await api.enrolDevice(user)) }
                result = try await run(seconds: seconds, workers: concurrency) { [devices] worker in
                    try await apis[worker % apis.count].deviceSignIn(devices[worker])
                }
            default:
                print("unknown scenario \(scenario)")
                continue
            }
            print(result.line(scenario))
        }
    }

    actor Delays {
        var values: [Double] = []
        var firstReads = 0
        func add(_ value: Double, firstRead: Bool) {
            values.append(value)
            if firstRead { firstReads += 1 }
        }
        var firstReadShare: Double { values.isEmpty ? 0 : 100 * Double(firstReads) / Double(values.count) }
    }

    struct Result {
        var latencies: [Double]
        var errors: Int
        var elapsed: Double

        func line(_ name: String) -> String {
            let sorted = latencies.sorted()
            func percentile(_ p: Double) -> Double {
                sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
            }
            let rps = Double(latencies.count) / elapsed
            return String(
                format: "%-9@ %8.1f ops/s   p50 %7.2f ms   p99 %7.2f ms   ops %6d   errors %d", name as NSString, rps,
                percentile(0.5), percentile(0.99), latencies.count, errors)
        }
    }

    static func run(seconds: Double, workers: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Result {
        let start = ContinuousClock.now
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        let results = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var latencies: [Double] = []
                    var errors = 0
                    while ContinuousClock.now < deadline {
                        let began = ContinuousClock.now
                        do {
                            try await operation(worker)
                            let duration = ContinuousClock.now - began
                            latencies.append(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                        } catch {
                            errors += 1
                            if errors == 1 { print("  first error (worker \(worker)): \(error)") }
                            if errors > 1000 { break }
                        }
                    }
                    return (latencies, errors)
                }
            }
            return try await group.reduce(into: [([Double], Int)]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - start
        return Result(
            latencies: results.flatMap(\.0), errors: results.map(\.1).reduce(0, +),
            elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

actor RefreshChains {
    var tokens: [String]
    init(tokens: [String]) { self.tokens = tokens }
    func token(_ index: Int) -> String { tokens[index] }
    func set(_ index: Int, _ token: String) { tokens[index] = token }
}
