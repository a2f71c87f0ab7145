import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Managing device keys through the use case, over the in-memory store (which records the audit
/// events in its own log), a manual clock and seeded randomness.
@Suite struct DeviceKeysTests {
    static let jwk: [String: JSONValue] = [
        "kty": "EC", "crv": "P-256", "x": "rk8TDfcVl21nqqV2LqX6XuGyG-9tFtypdQeAsfR0jGU",
        "y": "bGIcaZrzIvF7-m9ARGdysAoTcnw2W2y2zAROn2cea_0",
    ]

    func keys(_ store: InMemoryStore, verified: Bool = false) -> DeviceKeys {
        DeviceKeys(
            store: store, gate: SecondFactorGate(factors: TestPrincipals.Factors(verified: verified)), time: ManualTimeSource(),
            random: SeededRandomSource(seed: 3))
    }

    @Test func registerListRevokeWithTheirAuditEvents() async throws {
        let store = InMemoryStore()
        let keys = keys(store)
        let ada = TestPrincipals.signedIn()
        let key = try await keys.register(RegisterDeviceKeyRequest(name: "  Ada's iPhone ", publicKey: Self.jwk), principal: ada)
        #expect(key.name == "Ada's iPhone")
        #expect(key.id == SeededRandomSource(seed: 3).uuid())
        #expect(try await keys.list(principal: ada).deviceKeys.map(\.id) == [key.id])
        #expect(try await keys.list(principal: TestPrincipals.signedIn()).deviceKeys.isEmpty)
        await #expect(throws: DeviceKeys.notFound) { try await keys.revoke(id: key.id.uuidString, principal: TestPrincipals.signedIn()) }
        try await keys.revoke(id: key.id.uuidString, principal: ada)
        await #expect(throws: DeviceKeys.notFound) { try await keys.revoke(id: key.id.uuidString, principal: ada) }
        let recorded = try await store.auditEvents(AuditQuery()).events.map(\.action)
        #expect(recorded == [.deviceKeyRevoked, .deviceKeyRegistered])
    }

    @Test func refusals() async throws {
        let store = InMemoryStore()
        let keys = keys(store)
        let ada = TestPrincipals.signedIn()
        var offCurve = Self.jwk
        offCurve["y"] = .string(Base64URL.encode([UInt8](repeating: 7, count: 32)))
        var priv = Self.jwk
        priv["d"] = .string("x")
        let cases: [(String?, [String: JSONValue]?, Int?)] = [
            (" ", Self.jwk, nil), (String(repeating: "n", count: 101), Self.jwk, nil), ("a", nil, nil), ("a", priv, nil),
            ("a", offCurve, 422),
        ]
        for (name, jwk, status) in cases {
            do {
                _ = try await keys.register(RegisterDeviceKeyRequest(name: name, publicKey: jwk), principal: ada)
                Issue.record("accepted \(String(describing: name))")
            } catch let error as AuthError {
                #expect(error.code == .validationFailed && error.status == status)
            }
        }
        for _ in 0..<DeviceKeys.maxKeys {
            _ = try await keys.register(RegisterDeviceKeyRequest(name: "k", publicKey: Self.jwk), principal: ada)
        }
        await #expect(throws: AuthError.unprocessable("A user can register at most 20 device keys")) {
            try await keys.register(RegisterDeviceKeyRequest(name: "k", publicKey: Self.jwk), principal: ada)
        }
        await #expect(throws: AuthError.self) {
            try await self.keys(store, verified: true).register(RegisterDeviceKeyRequest(name: "k", publicKey: Self.jwk), principal: ada)
        }
    }
}
