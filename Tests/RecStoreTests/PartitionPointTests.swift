import PropertyBased
import RecValues
import Testing

/// The binary search every sorted table of the store goes through finds what a linear scan
/// finds.
@Suite("partitionPoint: the one binary search")
struct PartitionPointTests {
    @Test("the first position not before the key, on random sorted runs, every key, ranges not from 0")
    func matchesLinearScan() {
        var random = Xoshiro(seed: (7, 11, 13, 17))
        for _ in 0..<500 {
            let count = Int.random(in: 0...40, using: &random)
            let values = (0..<count).map { _ in Int.random(in: 0...20, using: &random) }.sorted()
            let start = Int.random(in: -3...3, using: &random)
            let range = start..<(start + count)
            for key in -1...21 {
                let expected = range.first { values[$0 - start] >= key } ?? range.upperBound
                #expect(range.partitionPoint { values[$0 - start] < key } == expected, "\(values), key \(key)")
            }
        }
    }
}
