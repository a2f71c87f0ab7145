import Crypto
import CryptoExtras
import Foundation
import JWTKit
import LatchkeyAPI
import LatchkeyCore
import Synchronization
import Testing

@testable import LatchkeyProviders

/// The reader and its key cache against an in-memory provider: the algorithm comes from the
/// key, a rotated key is fetched, made-up key ids cannot make it fetch more than once per floor,
/// and a provider that goes down keeps its last keys in use.
@Suite struct OpenIDTokenReaderTests {
    static let issuer = "https://idp.example"

    /// Serves a discovery document and a key set, counting fetches (each starts at discovery).
    final class Provider: DocumentFetching {
        struct State {
            var keys: [[String: JSONValue]] = []
            var fetches = 0
            var down = false
            var discoveryIssuer = OpenIDTokenReaderTests.issuer
            var jwksURI = OpenIDTokenReaderTests.issuer + "/jwks"
        }
        let state = Mutex(State())

        func document(at url: String) async throws -> Data {
            let state = self.state.withLock { state -> State in
                if url.hasSuffix("/openid-configuration") { state.fetches += 1 }
                return state
            }
            if state.down { throw FetchError(url: url, detail: "down") }
            let body: JSONValue =
                url.hasSuffix("/openid-configuration")
                ? ["issuer": .string(state.discoveryIssuer), "jwks_uri": .string(state.jwksURI)]
                : ["keys": .array(state.keys.map { .object($0) })]
            return try JSONEncoder().encode(body)
        }

        var fetches: Int { state.withLock { $0.fetches } }
    }

    struct Fixture {
        let provider = Provider()
        let time = ManualTimeSource()
        let reader: OpenIDTokenReader
        let rsa = try! Insecure.RSA.PrivateKey(backing: try! _RSA.Signing.PrivateKey(keySize: .bits2048))
        let ec = ES256PrivateKey()

        init() {
            reader = OpenIDTokenReader(keys: OpenIDKeyCache(fetcher: provider, time: time, ttl: 3600, refetchFloor: 30))
        }

        func publish(rsaKid: String = "rsa-1", ecKid: String? = "ec-1") {
            let rsaPublic = rsa.publicKey
            let parameters = try! rsaPublic.getKeyPrimitives()
            var keys: [[String: JSONValue]] = [
                [
                    "kty": "RSA", "kid": .string(rsaKid), "use": "sig", "alg": "RS256",
                    "n": .string(Base64URL.encode(parameters.modulus)), "e": .string(Base64URL.encode(parameters.publicExponent)),
                ]
            ]
            if let ecKid, let params = ec.parameters {
                keys.append(["kty": "EC", "crv": "P-256", "kid": .string(ecKid), "x": .string(params.x), "y": .string(params.y)])
            }
            // A symmetric key in the set is never used.
            keys.append(["kty": "oct", "kid": "shared", "k": .string(Base64URL.encode(Array("secret".utf8)))])
            provider.state.withLock { $0.keys = keys }
        }

        func sign(
            kid: String?, es: Bool = false, claims: [String: JSONValue] = ["sub": "ada", "iss": .string(OpenIDTokenReaderTests.issuer)]
        )
            async throws -> String
        {
            let collection = JWTKeyCollection()
            if es {
                await collection.add(ecdsa: ec, kid: kid.map { JWKIdentifier(string: $0) })
            } else {
                await collection.add(rsa: rsa, digestAlgorithm: .sha256, kid: kid.map { JWKIdentifier(string: $0) })
            }
            return try await collection.sign(Claims(claims: claims), kid: kid.map { JWKIdentifier(string: $0) })
        }
    }

    struct Claims: JWTPayload {
        var claims: [String: JSONValue]
        init(claims: [String: JSONValue]) { self.claims = claims }
        init(from decoder: any Decoder) throws { claims = try [String: JSONValue](from: decoder) }
        func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    static func raw(_ header: [String: JSONValue], _ claims: [String: JSONValue], signature: [UInt8] = []) -> String {
        let encode = { (value: [String: JSONValue]) in Base64URL.encode(Array(try! JSONEncoder().encode(value))) }
        return "\(encode(header)).\(encode(claims)).\(Base64URL.encode(signature))"
    }

    func refusal(_ f: Fixture, _ token: String) async -> IDTokenRefusal.Reason? {
        do {
            _ = try await f.reader.verified(token, issuer: Self.issuer)
            return nil
        } catch { return (error as? IDTokenRefusal)?.reason }
    }

    @Test func rsaAndECTokensVerifyUnderTheirKeys() async throws {
        let f = Fixture()
        f.publish()
        let rs = try await f.reader.verified(try await f.sign(kid: "rsa-1"), issuer: Self.issuer)
        #expect(rs.algorithm == "RS256" && rs.claims["sub"] == "ada")
        let es = try await f.reader.verified(try await f.sign(kid: "ec-1", es: true), issuer: Self.issuer)
        #expect(es.algorithm == "ES256")
        #expect(f.provider.fetches == 1)
        #expect(f.reader.unverifiedClaims(try await f.sign(kid: "rsa-1"))?["sub"] == "ada")
    }

    @Test func noneSharedSecretsAndMismatchedKeysAreRefused() async throws {
        let f = Fixture()
        f.publish()
        let claims: [String: JSONValue] = ["sub": "ada"]
        #expect(await refusal(f, Self.raw(["alg": "none"], claims)) == .algorithm)
        #expect(await refusal(f, Self.raw(["alg": "HS256", "kid": "shared"], claims, signature: [1, 2, 3])) == .algorithm)
        #expect(await refusal(f, Self.raw(["kid": "rsa-1"], claims)) == .algorithm)
        // An RS256 header naming the EC key: no key of that id may sign RS256.
        let rsSigned = try await f.sign(kid: "ec-1")
        #expect(await refusal(f, rsSigned) == .unknownKey)
        // A tampered payload.
        let parts = try await f.sign(kid: "rsa-1").split(separator: ".")
        let forged = "\(parts[0]).\(Base64URL.encode(Array(#"{"sub":"eve"}"#.utf8))).\(parts[2])"
        #expect(await refusal(f, forged) == .signature)
        for junk in ["", "a.b", "a.b.c.d", "....", String(repeating: "x.", count: 9000)] {
            #expect(await refusal(f, junk) == .malformed)
        }
    }

    /// A new key id fetches the set again, once; made-up ids within the floor fetch nothing more;
    /// after the TTL the set is fetched again, and while the provider is down its last keys serve.
    @Test func theCacheFetchesRotatedKeysWithinItsFloor() async throws {
        let f = Fixture()
        f.publish()
        _ = try await f.reader.verified(try await f.sign(kid: "rsa-1"), issuer: Self.issuer)
        f.publish(rsaKid: "rsa-2")
        // Within the floor of the first fetch, the new id is not fetched yet.
        #expect(await refusal(f, try await f.sign(kid: "rsa-2")) == .unknownKey)
        f.time.advance(by: 31)
        _ = try await f.reader.verified(try await f.sign(kid: "rsa-2"), issuer: Self.issuer)
        #expect(f.provider.fetches == 2)
        for n in 0..<10 { #expect(await refusal(f, try await f.sign(kid: "made-up-\(n)")) == .unknownKey) }
        #expect(f.provider.fetches == 2)
        f.provider.state.withLock { $0.down = true }
        f.time.advance(by: 3601)
        _ = try await f.reader.verified(try await f.sign(kid: "rsa-2"), issuer: Self.issuer)
        #expect(f.provider.fetches == 3)
    }

    /// Forged tokens naming a new issuer each time (every Entra tenant is accepted) neither grow
    /// the cache without bound nor make a fetch each: at most `newIssuersPerWindow` new issuers are
    /// fetched per floor, and at most `maxIssuers` are kept.
    @Test func madeUpIssuersNeitherGrowTheCacheNorFetchEach() async throws {
        let provider = Provider()
        let time = ManualTimeSource()
        let cache = OpenIDKeyCache(fetcher: provider, time: time, ttl: 3600, refetchFloor: 30, maxIssuers: 8, newIssuersPerWindow: 5)
        for round in 0..<4 {
            for n in 0..<50 { _ = try? await cache.keys(issuer: "https://login.example/\(round)-\(n)/v2.0") }
            time.advance(by: 31)
        }
        #expect(provider.fetches == 20)
        #expect(await cache.issuerCount <= 8)
    }

    /// A provider's discovery document naming an internal address as its key set is not followed.
    @Test func aKeySetOnAnInternalAddressIsNotFetched() async throws {
        let f = Fixture()
        f.publish()
        f.provider.state.withLock { $0.jwksURI = "https://169.254.169.254/latest/meta-data" }
        #expect(await refusal(f, try await f.sign(kid: "rsa-1")) == .unreachable)
    }

    @Test func aProviderThatCannotBeReadIsUnreachable() async throws {
        let down = Fixture()
        down.provider.state.withLock { $0.down = true }
        #expect(await refusal(down, try await down.sign(kid: "rsa-1")) == .unreachable)
        let impostor = Fixture()
        impostor.publish()
        impostor.provider.state.withLock { $0.discoveryIssuer = "https://other.example" }
        #expect(await refusal(impostor, try await impostor.sign(kid: "rsa-1")) == .unreachable)
        let plain = Fixture()
        plain.publish()
        plain.provider.state.withLock { $0.jwksURI = "http://idp.example/jwks" }
        #expect(await refusal(plain, try await plain.sign(kid: "rsa-1")) == .unreachable)
        let insecure = Fixture()
        insecure.publish()
        await #expect(throws: IDTokenRefusal.self) {
            try await insecure.reader.verified(try await insecure.sign(kid: "rsa-1"), issuer: "http://idp.example")
        }
    }
}
