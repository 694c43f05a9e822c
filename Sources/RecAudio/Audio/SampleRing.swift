import Synchronization

/// A single-producer, single-consumer ring of samples that needs no locks: the producer
/// owns `head`, the consumer owns `tail`, and each only reads the other's index. Neither
/// side ever waits on the other inside the ring.
///
/// Indices count samples since the start and only grow; a slot is `index & mask`.
// @unchecked Sendable: `storage` is a raw buffer shared by exactly one producer and one
// consumer; a slot is written only between the consumer's release of `tail` past it and
// the producer's release of `head` over it, so the two never touch the same slot at once.
package final class SampleRing: @unchecked Sendable {
    package let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Int16>
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    /// At least `minimumCapacity` samples, rounded up to a power of two.
    package init(minimumCapacity: Int) {
        var size = 1
        while size < max(minimumCapacity, 2) { size <<= 1 }
        capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: 0, count: size)
    }

    deinit { storage.deallocate() }

    /// Samples waiting to be read.
    package var count: Int { head.load(ordering: .acquiring) - tail.load(ordering: .acquiring) }

    /// Producer side: copies as many of `samples` as fit and returns how many did.
    package func write(_ samples: UnsafePointer<Int16>, count: Int) -> Int {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        let n = min(count, capacity - (h - t))
        guard n > 0 else { return 0 }
        let start = h & mask
        let first = min(n, capacity - start)
        (storage + start).update(from: samples, count: first)
        if first < n { storage.update(from: samples + first, count: n - first) }
        head.store(h + n, ordering: .releasing)
        return n
    }

    /// Consumer side: copies up to `count` samples, a whole multiple of `multiple`, and
    /// returns how many it copied.
    package func read(into samples: UnsafeMutablePointer<Int16>, count: Int, multiple: Int = 1) -> Int {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        var n = min(count, h - t)
        n -= n % max(multiple, 1)
        guard n > 0 else { return 0 }
        let start = t & mask
        let first = min(n, capacity - start)
        samples.update(from: storage + start, count: first)
        if first < n { (samples + first).update(from: storage, count: n - first) }
        tail.store(t + n, ordering: .releasing)
        return n
    }
}
