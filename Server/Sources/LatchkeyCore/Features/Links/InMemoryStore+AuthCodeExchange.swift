import Foundation
import Synchronization

extension InMemoryStore: AuthCodeExchangeStore {
    public func consumeFlowState(authCodeHash: String, now: Date) async throws -> ConsumedFlow? {
        state.withLock { state in
            guard let index = state.flows.firstIndex(where: { $0.authCodeHash == authCodeHash && $0.consumedAt == nil }) else { return nil }
            state.flows[index].consumedAt = now
            return ConsumedFlow(flow: state.flows[index], user: state.users[state.flows[index].userID])
        }
    }
}
