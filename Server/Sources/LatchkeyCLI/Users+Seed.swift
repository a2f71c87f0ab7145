import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyServer

extension Users {
    /// `latchkey users seed COUNT`: many confirmed users at once, for load tests at scale.
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create COUNT confirmed users without passwords (PREFIX-N@DOMAIN), for load tests; no mail, no audit rows.")
        @OptionGroup var data: DataOptions
        @Argument(help: "How many users (1–10,000,000).") var count: Int
        @Option(help: "The first N.") var start = 0
        @Option(help: "The addresses' local part before -N.") var prefix = "seed"
        @Option(help: "The addresses' domain.") var domain = "example.com"

        func run() async throws {
            try await Users.withUseCases(data) { useCases in
                let began = Date()
                var reported = 0
                try await useCases.admin.users.seed(count: count, start: start, prefix: prefix, domain: domain) { done in
                    if done - reported >= 100_000 || done == count {
                        reported = done
                        print("\(done) users (\(Int(Date().timeIntervalSince(began))) s)")
                    }
                }
            }
        }
    }
}
