import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey config`: the configuration `latchkey serve` would start with.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the configuration `latchkey serve` would start with.", subcommands: [Check.self])

    /// `latchkey config check`: reads the configuration as `serve` does (refusing what `serve`
    /// refuses) and prints every setting weaker than Latchkey recommends, with what hardens it.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the profile in force and every setting weaker than Latchkey recommends, with the variable that hardens it.",
            discussion: "Exits 1 when the configuration would not start the server, else 0.")
        @OptionGroup var data: DataOptions

        func run() throws {
            let configuration: ServerConfiguration
            do {
                configuration = try ServerConfiguration.load(environment: ProcessInfo.processInfo.environment, overrides: data.overrides)
            } catch {
                print("The server would not start: \(error)")
                throw ExitCode(1)
            }
            print(configuration.profileSummary)
            for warning in configuration.warnings { print("warning: \(warning)") }
            let findings = configuration.hardenings
            guard !findings.isEmpty else {
                print("Every setting is at Latchkey's recommendation or stricter.")
                return
            }
            print("\(findings.count) setting\(findings.count == 1 ? " is" : "s are") weaker than Latchkey recommends:")
            for finding in findings {
                print("  \(finding.setting) = \(finding.value): \(finding.risk)")
                print("      harden: \(finding.remedy)")
            }
        }
    }
}
