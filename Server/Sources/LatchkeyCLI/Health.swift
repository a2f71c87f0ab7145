import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `latchkey health`: whether the server on this machine answers `GET /health` (the image's
/// health check, which has no curl).
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the server answers GET /health with 200 (a container's health check).")
    @Option(help: "The server's URL (default http://127.0.0.1 on LATCHKEY_PORT, PORT or 9999).") var url: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = environment["LATCHKEY_PORT"] ?? environment["PORT"] ?? "9999"
        let base = url ?? "http://127.0.0.1:\(port)"
        let request = HTTPClientRequest(url: (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/health")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(3))
            guard response.status.code == 200 else {
                print("unhealthy: \(response.status.code)")
                throw ExitCode(1)
            }
            print("ok")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            print("unreachable: \(error)")
            throw ExitCode(1)
        }
    }
}
