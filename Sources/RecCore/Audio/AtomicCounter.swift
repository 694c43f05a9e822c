import Atomics

/// A counter one thread bumps and others read, without locks.
final class AtomicCounter: Sendable {
    private let value = ManagedAtomic<Int>(0)

    func increment(by amount: Int = 1) { value.wrappingIncrement(by: amount, ordering: .relaxed) }
    func load() -> Int { value.load(ordering: .relaxed) }
}
