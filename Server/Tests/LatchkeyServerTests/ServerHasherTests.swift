import LatchkeyCore
import LatchkeyServer
import NIOPosix
import Testing

/// The server's password hasher: scrypt on its NIO thread pool, and GoTrue's bcrypt hashes
/// checked through HummingbirdBcrypt (the domain only knows the `BcryptVerifier` protocol).
@Suite struct ServerHasherTests {
    @Test func bcryptHashesImportedFromGoTrueVerify() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let hasher = ScryptPasswordHasher(logN: 10, pool: pool)
        // OpenBSD's test vector: "U*U" at cost 5, in the `$2a$` form GoTrue stores.
        let hash = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(try await hasher.verify("U*U", against: hash))
        #expect(try await !hasher.verify("U*V", against: hash))
        let scrypt = try await hasher.hash("correct horse battery staple")
        #expect(try await hasher.verify("correct horse battery staple", against: scrypt))
        try await pool.shutdownGracefully()
    }
}
