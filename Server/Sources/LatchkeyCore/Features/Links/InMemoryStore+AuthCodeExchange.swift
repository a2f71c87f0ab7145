import Foundation
import Synchronization

extension InMemoryStore: AuthCodeExchangeStore {
    public func consumeFlowState(authCodeHash: String, now: Date) async throws -> ConsumedFlow? {
        state.withLock { state in
            guard let index = state.flows.firstIndex(where: { $0.authCodeHash == authCodeHash && $0.consumedAt == nil }) else { return nil }
            state.flows[index].consumedAt = now
            let flow = state.flows[index]
            return ConsumedFlow(flow: flow, user: state.users[flow.userID], session: flow.sessionID.flatMap { state.sessions[$0] })
        }
    }

    public func createFlowState(_ flow: FlowStateRecord) async throws {
        state.withLock { $0.flows.append(flow) }
    }
}
