import Foundation
import LatchkeyCore
import Logging
import ServiceLifecycle

/// Re-reads the stored signing keys every `interval`, so that a key rotated or imported by
/// `latchkey keys` (or by another instance) is published and, at its time, signs.
struct SigningKeyReloadService: Service {
    let keys: SigningKeys
    let interval: Duration
    let logger: Logger

    func run() async throws {
        guard keys.issuer.usesStoredKeys else {
            // Configured keys never change; a service that returns would stop the server.
            try? await gracefulShutdown()
            return
        }
        await repeatUntilShutdown(every: interval) {
            do {
                let before = keys.issuer.signingKeyID
                try await keys.reload()
                if let now = keys.issuer.signingKeyID, now != before {
                    logger.info("a new key signs tokens", metadata: ["kid": "\(now)"])
                }
            } catch {
                logger.error("reloading the signing keys failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
