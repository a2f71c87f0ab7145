import Foundation
import Synchronization
import Testing

@testable import LatchkeyCore

/// A decision about a user is made again on a fresh copy each time another write lands first, and
/// given up (409 `conflict`) only after eight copies.
@Suite struct FreshCopiesTests {
    @Test func aDecisionIsRetriedOnFreshCopiesThenGivenUp() async throws {
        let store = InMemoryStore()
        let user = UserRecord(
            id: UUID(), aud: "authenticated", role: "authenticated", email: "ada@example.com", passwordHash: nil, appMetadata: [:],
            userMetadata: [:], createdAt: Date(), updatedAt: Date())
        store.add(user)
        let copies = Mutex<[Int64]>([])
        await #expect(throws: StoreError.conflict("raced")) {
            try await store.onFreshCopies(of: user) { copy in
                copies.withLock { $0.append(copy.version) }
                store.change(user.id) { $0.lastSignInAt = Date() }  // another sign-in lands first, every time
                throw StoreError.conflict("raced")
            }
        }
        #expect(copies.withLock { $0 } == [0, 1, 2, 3, 4, 5, 6, 7])

        // Once the writes stop racing it, the next copy's decision lands.
        let landed = Mutex(0)
        let answer = try await store.onFreshCopies(of: user) { copy in
            guard
                landed.withLock({ count in
                    count += 1
                    return count
                }) > 3
            else { throw StoreError.conflict("raced") }
            return copy.version
        }
        #expect(answer == 8 && landed.withLock { $0 } == 4)
    }
}
