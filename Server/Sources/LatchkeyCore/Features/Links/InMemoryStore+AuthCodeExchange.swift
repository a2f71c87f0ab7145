import Foundation
import Synchronization

extension InMemoryStore: AuthCodeExchangeStore {
    public func consumeFlowState(authCodeHash: String, now: Date, accepting: @escaping @Sendable (FlowStateRecord) -> Bool)
        async throws -> FlowConsumption?
    {
        state.withLock { state in
            guard let index = state.flows.firstIndex(where: { $0.authCodeHash == authCodeHash && $0.consumedAt == nil }) else { return nil }
            guard accepting(state.flows[index]) else { return .refused(state.flows[index]) }
            state.flows[index].consumedAt = now
            let flow = state.flows[index]
            return .spent(ConsumedFlow(flow: flow, user: state.users[flow.userID], session: flow.sessionID.flatMap { state.sessions[$0] }))
        }
    }

    public func createFlowState(_ flow: FlowStateRecord) async throws {
        state.withLock { $0.flows.append(flow) }
    }
}
