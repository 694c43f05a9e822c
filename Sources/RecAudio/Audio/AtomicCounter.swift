import Synchronization

/// A counter one thread bumps and others read, without locks.
final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)

    func increment(by amount: Int = 1) { _ = value.wrappingAdd(amount, ordering: .relaxed) }
    func load() -> Int { value.load(ordering: .relaxed) }
}
