import Foundation
import Latchkey
import Testing

// The app's own code the README's Swift blocks call (ReadmeSnippets.swift): whatever an app
// shows, and where it routes.
@MainActor func show(_ value: Any) {}
@MainActor func showSpinner() {}
@MainActor func askForCode(length: Int) {}
@MainActor func showWrongCode(attemptsLeft: Int?) {}
@MainActor func enterApp(_ user: User) {}
@MainActor func showQRCode(svg: String) {}
@MainActor func showCheckYourOtherInbox() {}
@MainActor func offerSignIn(_ email: String) {}
enum Screen { case welcome, home }
@MainActor func route(to screen: Screen) {}
let walletAddress = "0x196a28d05bA75C8dC35B0F6e71DD622D1aC82b7E"
/// A wallet app's `personal_sign` (the app's own integration).
func signWithWallet(_ text: String) async throws -> Data { Data() }

/// The README's Swift blocks are type-checked as printed: ReadmeSnippets.swift holds each as a
/// function body (the SwiftUI app is Tests/AppleSurface/Sources/ReadmeSample), made by
/// `scripts/readme-snippets`; this fails when the README changed since.
@Suite struct ReadmeSnippetTests {
    @Test func everySwiftBlockOfTheReadmeIsCompiled() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let compiled = try String(contentsOf: root.appendingPathComponent("Tests/LatchkeyTests/ReadmeSnippets.swift"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(blocks.count >= 7)
        for block in blocks where !block.contains("@main") {
            let body = block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("import ") }
                .joined(separator: "\n")
            #expect(
                compiled.contains("// README block begins\n" + body.trimmingCharacters(in: .newlines) + "\n// README block ends"),
                "README block not in ReadmeSnippets.swift (run scripts/readme-snippets):\n\(block)")
        }
    }
}
