import AsyncHTTPClient
import Foundation
import LatchkeyCore
import Logging
import Testing

@testable import LatchkeyDelivery

/// A hook whose host resolves to an internal address is refused before any connection is made,
/// with GoTrue's 500 for a hook that cannot be called.
@Suite struct OutboundRefusalTests {
    @Test func aHookOnAnInternalAddressIsNotCalled() async throws {
        let client = OutboundHTTP.makeClient()
        let secret = "v1,whsec_" + Data("hook-secret-for-the-delivery-tests".utf8).base64EncodedString()
        let endpoint = try HookEndpoint(uri: "https://hooks.example/custom-claims", secrets: secret)
        let caller = HTTPHookCaller(
            endpoints: [.customAccessToken: endpoint], client: client, time: SystemTimeSource(), random: SystemRandomSource(),
            logger: Logger(label: "test"), policy: OutboundPolicy { _ in ["10.0.0.9"] })
        await #expect {
            try await caller.call(.customAccessToken, payload: [:])
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.status == 500 && error.message.contains("hooks.example resolves to the internal address 10.0.0.9")
        }
        try await client.shutdown()
    }
}
