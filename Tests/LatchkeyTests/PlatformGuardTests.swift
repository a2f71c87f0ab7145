import Foundation
import Testing

/// The SDK builds on every Apple platform and Linux, which no machine here can check by
/// compiling: instead, every Apple-only symbol must stand inside a guard that keeps it from the
/// platforms that lack it, and docs/platforms.md must list every `#if` of the sources.
@Suite struct PlatformGuardTests {
    /// A symbol some platform lacks, and what an enclosing `#if` must say for it to be safe.
    struct Rule: Sendable {
        let symbol: String
        /// Each string must appear in the conditions of the enclosing `#if` blocks.
        let requires: [String]
        /// None of these may appear there (they would let a platform without it in).
        let forbids: [String]
    }

    static let rules: [Rule] = [
        // iOS, tvOS, watchOS, visionOS and Mac Catalyst have no home folder API.
        Rule(
            symbol: "homeDirectoryForCurrentUser", requires: ["os(macOS)"], forbids: ["os(iOS)", "os(tvOS)", "os(watchOS)", "os(visionOS)"]),
        Rule(symbol: "NSUserName", requires: ["os(macOS)"], forbids: ["os(iOS)", "os(tvOS)", "os(watchOS)", "os(visionOS)"]),
        Rule(symbol: "NSFullUserName", requires: ["os(macOS)"], forbids: ["os(iOS)", "os(tvOS)", "os(watchOS)", "os(visionOS)"]),
        // LocalAuthentication's prompt text and unlock reuse exist on neither watchOS nor tvOS.
        Rule(symbol: "localizedReason", requires: ["canImport(LocalAuthentication)", "!os(tvOS)", "!os(watchOS)"], forbids: []),
        Rule(
            symbol: "touchIDAuthenticationAllowableReuseDuration",
            requires: ["canImport(LocalAuthentication)", "!os(tvOS)", "!os(watchOS)"],
            forbids: []),
        Rule(symbol: "LATouchIDAuthentication", requires: ["canImport(LocalAuthentication)", "!os(tvOS)", "!os(watchOS)"], forbids: []),
        Rule(symbol: "LAContext", requires: ["canImport(LocalAuthentication)"], forbids: []),
        Rule(symbol: "LAError", requires: ["canImport(LocalAuthentication)"], forbids: []),
        Rule(symbol: "SecureEnclave", requires: ["canImport(CryptoKit)"], forbids: []),
        Rule(symbol: "SecItem", requires: ["canImport(Security)"], forbids: []),
        Rule(symbol: "SecAccessControl", requires: ["canImport(Security)"], forbids: []),
        Rule(symbol: "kSec", requires: ["canImport(Security)"], forbids: []),
        Rule(symbol: "UIApplication", requires: ["canImport(UIKit)"], forbids: []),
        Rule(symbol: "UIDevice", requires: ["canImport(UIKit)"], forbids: []),
        Rule(symbol: "NSApplication", requires: ["canImport(AppKit)"], forbids: []),
        Rule(symbol: "import UIKit", requires: ["canImport(UIKit)"], forbids: []),
        Rule(symbol: "import AppKit", requires: ["canImport(AppKit)"], forbids: []),
        Rule(symbol: "import CryptoKit", requires: ["canImport(CryptoKit)"], forbids: []),
        Rule(symbol: "import LocalAuthentication", requires: ["canImport(LocalAuthentication)"], forbids: []),
        Rule(symbol: "import Security", requires: ["canImport(Security)"], forbids: []),
        Rule(symbol: "import Observation", requires: ["canImport(Observation)"], forbids: []),
        // tvOS has no web authentication session; watchOS has one but no presentation context.
        Rule(symbol: "ASWebAuthenticationSession", requires: ["canImport(AuthenticationServices)", "!os(tvOS)"], forbids: []),
        Rule(
            symbol: "ASWebAuthenticationPresentationContextProviding",
            requires: ["canImport(AuthenticationServices)", "!os(tvOS)", "!os(watchOS)"], forbids: []),
        Rule(symbol: "ASAuthorizationAppleIDProvider", requires: ["canImport(AuthenticationServices)"], forbids: []),
        // Platform passkeys and the authorization sheet's presentation context: none on watchOS.
        Rule(
            symbol: "ASAuthorizationPlatformPublicKeyCredential",
            requires: ["canImport(AuthenticationServices)", "!os(watchOS)"], forbids: []),
        Rule(
            symbol: "ASAuthorizationControllerPresentationContextProviding",
            requires: ["canImport(AuthenticationServices)", "!os(watchOS)"], forbids: []),
    ]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// Every Swift file of the SDK's three libraries, relative to the root.
    static func sourceFiles() throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".swift") { files.append("Sources/" + path) }
        }
        return files.sorted()
    }

    /// A line of code with the conditions of the `#if` blocks around it.
    struct GuardedLine {
        let number: Int
        let text: String
        let conditions: [String]
    }

    /// The file's lines outside comments, each with its enclosing conditions (an `#else` branch
    /// counts as `else:` and its condition, which satisfies no rule).
    static func lines(of file: String) throws -> (code: [GuardedLine], directives: [(Int, String)]) {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        var stack: [String] = []
        var code: [GuardedLine] = []
        var directives: [(Int, String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("//") { continue }
            if line.hasPrefix("#if ") {
                stack.append(String(line.dropFirst(4)))
                directives.append((index + 1, String(line.dropFirst(4))))
            } else if line.hasPrefix("#elseif ") {
                stack[stack.count - 1] = String(line.dropFirst(8))
                directives.append((index + 1, String(line.dropFirst(8))))
            } else if line == "#else" {
                stack[stack.count - 1] = "else: " + stack[stack.count - 1]
            } else if line == "#endif" {
                stack.removeLast()
            } else {
                code.append(GuardedLine(number: index + 1, text: line, conditions: stack))
            }
        }
        return (code, directives)
    }

    @Test func noAppleOnlySymbolStandsOutsideItsGuard() throws {
        var offences: [String] = []
        for file in try Self.sourceFiles() {
            for line in try Self.lines(of: file).code {
                let guards = line.conditions.filter { !$0.hasPrefix("else: ") }.joined(separator: " && ")
                // A name inside a string literal (a notification's name) is not the symbol.
                let code = line.text.replacing(/"[^"]*"/, with: "\"\"")
                for rule in Self.rules where code.contains(rule.symbol) {
                    let missing = rule.requires.filter { !guards.contains($0) }
                    let letIn = rule.forbids.filter { guards.contains($0) }
                    if !missing.isEmpty || !letIn.isEmpty {
                        offences.append("\(file):\(line.number) uses \(rule.symbol) under `\(guards)`")
                    }
                }
            }
        }
        #expect(offences.isEmpty, "\(offences.joined(separator: "\n"))")
    }

    @Test func docsListEveryConditionalBlock() throws {
        // A `|` inside a table cell is written `\|`.
        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/platforms.md"), encoding: .utf8)
            .replacingOccurrences(of: "\\|", with: "|")
        var missing: [String] = []
        for file in try Self.sourceFiles() {
            for (number, condition) in try Self.lines(of: file).directives
            where !docs.contains("`\(file.split(separator: "/").last!)`") || !docs.contains("`\(condition)`") {
                missing.append("\(file):\(number) #if \(condition)")
            }
        }
        #expect(missing.isEmpty, "docs/platforms.md lacks:\n\(missing.joined(separator: "\n"))")
    }

    /// The rules catch what they are for: the line that broke the iOS build.
    @Test func theRulesCatchTheHomeFolderOutsideItsGuard() {
        let rule = Self.rules[0]
        let line = GuardedLine(number: 1, text: "FileManager.default.homeDirectoryForCurrentUser", conditions: ["canImport(Darwin)"])
        let guards = line.conditions.joined(separator: " && ")
        #expect(line.text.contains(rule.symbol) && !rule.requires.allSatisfy { guards.contains($0) })
    }

    @Test func theAppleWorkflowBuildsEveryPlatform() throws {
        let workflow = try String(contentsOf: Self.root.appendingPathComponent(".github/workflows/apple.yml"), encoding: .utf8)
        for destination in ["platform=iOS", "platform=tvOS", "platform=watchOS", "platform=visionOS", "variant=Mac Catalyst", "swift test"]
        {
            #expect(workflow.contains(destination), "apple.yml does not build \(destination)")
        }
    }
}
