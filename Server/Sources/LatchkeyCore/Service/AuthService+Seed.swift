import Foundation
import LatchkeyAPI

extension AuthService {
    /// Creates `count` confirmed email users without passwords, `PREFIX-N@DOMAIN` for N from
    /// `start`, in transactions of `batch` users; calls `progress` with the total after each.
    /// For load tests at scale: no mail, no audit rows.
    public func adminSeedUsers(
        count: Int, start: Int = 0, prefix: String = "seed", domain: String = "example.com", batch: Int = 5_000,
        progress: (Int) -> Void = { _ in }
    ) async throws {
        guard (1...10_000_000).contains(count), start >= 0 else { throw AuthError.validation("count must be 1–10,000,000") }
        guard EmailAddress.canonical("\(prefix)-\(start)@\(domain)") != nil else {
            throw AuthError.validation("\(prefix)-\(start)@\(domain) is not an email address")
        }
        var done = 0
        while done < count {
            let size = min(max(1, batch), count - done)
            let users = (0..<size).map { offset in
                codes.newUser(
                    email: "\(prefix)-\(start + done + offset)@\(domain)".lowercased(), passwordHash: nil, data: [:], confirmed: true)
            }
            do {
                try await store.insertUsers(users.map { (user: $0.0, identity: $0.1) })
            } catch let error as StoreError where error.isDuplicate {
                throw AuthError(.emailExists, "an address from \(prefix)-\(start + done) on is taken; choose another --start or --prefix")
            }
            done += size
            progress(done)
        }
    }
}
