extension Range where Bound == Int {
    /// The first position in the range for which `isBefore` is false, when it is true for a
    /// first part of the range and false for the rest (a binary search; `upperBound` when it
    /// is true throughout). The store's sorted tables (children in display order, spliced
    /// edits by offset, runs of text by start) are all searched through this one.
    @inlinable
    package func partitionPoint(_ isBefore: (Int) throws -> Bool) rethrows -> Int {
        var low = lowerBound
        var high = upperBound
        while low < high {
            let middle = low + (high - low) / 2
            if try isBefore(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
