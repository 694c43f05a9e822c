#if canImport(Glibc)
    import Glibc
#endif

/// A recording's or folder's UUID, held as two words so that a 100,000-item store parses
/// and hashes without going through Foundation's string-based UUID.
package struct ItemID: Hashable, Comparable, Sendable, CustomStringConvertible {
    package var high: UInt64
    package var low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The root folder, as in the book: the all-zero UUID.
    package static let root = ItemID(high: 0, low: 0)

    /// A random version-4 UUID.
    package static func random() -> ItemID {
        var g = SystemRandomNumberGenerator()
        var high = g.next() as UInt64
        var low = g.next() as UInt64
        high = (high & ~0xF000) | 0x4000
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return ItemID(high: high, low: low)
    }

    package init?(_ text: String) {
        var text = text
        let parsed: ItemID? = text.withUTF8 { ItemID(utf8: $0) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Parses the canonical 8-4-4-4-12 form, either case. Unrolled over the fixed layout:
    /// this runs once per UUID in the store, a few hundred thousand times per load.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36, bytes[8] == 45, bytes[13] == 45, bytes[18] == 45, bytes[23] == 45 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var bad: UInt8 = 0
        @inline(__always) func nibble(_ i: Int) -> UInt64 {
            let v = hexLookup(bytes[i])
            bad |= v
            return UInt64(v & 0x0F)
        }
        for i in 0..<8 { high = high << 4 | nibble(i) }
        for i in 9..<13 { high = high << 4 | nibble(i) }
        for i in 14..<18 { high = high << 4 | nibble(i) }
        for i in 19..<23 { low = low << 4 | nibble(i) }
        for i in 24..<36 { low = low << 4 | nibble(i) }
        guard bad & 0x80 == 0 else { return nil }
        self.init(high: high, low: low)
    }

    /// The lowercase canonical form, as `uuidgen` prints it.
    package var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeUTF8(into: buffer.baseAddress!)
            return 36
        }
    }

    /// The 32 hex digits without dashes; `@` prefixes are matched against this.
    package var hexDigits: String {
        String(description.filter { $0 != "-" })
    }

    /// Whether the UUID's hex digits begin with these nibble values (0...15).
    package func hasPrefix(nibbles: [UInt8]) -> Bool {
        for (i, nibble) in nibbles.enumerated() {
            let word = i < 16 ? high : low
            if UInt8((word >> UInt64(60 - (i % 16) * 4)) & 0xF) != nibble { return false }
        }
        return true
    }

    /// The 36 bytes of `8-4-4-4-12` lowercase hex at `out`, eight digits at a time
    /// (`hexDigits`), the dashes put once: a loop per digit was the slow part of writing a UUID.
    func writeUTF8(into out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        let a = Self.hexDigits(UInt32(truncatingIfNeeded: high >> 32))
        let b = Self.hexDigits(UInt32(truncatingIfNeeded: high))
        let c = Self.hexDigits(UInt32(truncatingIfNeeded: low >> 32))
        let d = Self.hexDigits(UInt32(truncatingIfNeeded: low))
        raw.storeBytes(of: a.littleEndian, toByteOffset: 0, as: UInt64.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: b).littleEndian, toByteOffset: 9, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: b >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: c).littleEndian, toByteOffset: 19, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: c >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        raw.storeBytes(of: d.littleEndian, toByteOffset: 28, as: UInt64.self)
        out[8] = UInt8(ascii: "-")
        out[13] = UInt8(ascii: "-")
        out[18] = UInt8(ascii: "-")
        out[23] = UInt8(ascii: "-")
    }

    /// The eight lowercase hex digits of `x`, the first (most significant) in the lowest byte:
    /// each nibble spread to a byte of its own, then '0' added, and 'a' - '9' - 1 more to
    /// those of 10 or more (which adding 6 carries into the byte's fifth bit).
    @inline(__always)
    static func hexDigits(_ x: UInt32) -> UInt64 {
        var v = UInt64(x)
        v = (v | v << 16) & 0x0000_FFFF_0000_FFFF
        v = (v | v << 8) & 0x00FF_00FF_00FF_00FF
        v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // Now the least significant nibble is in the lowest byte: the digits' order reversed.
        v = v.byteSwapped
        let letters = ((v &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return v &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }

    package static func < (lhs: ItemID, rhs: ItemID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// The value of a hex digit, or 0x80 for anything else. Two subtractions and selects rather
/// than a `switch` on ranges: a UUID's digits and letters come in no order a branch
/// predictor could learn (parsing 14,000 UUIDs took 2% of a `find --json` of 7,040 hits).
@inline(__always)
func hexLookup(_ byte: UInt8) -> UInt8 {
    let digit = byte &- 48
    let letter = (byte | 0x20) &- 97  // either case
    return digit < 10 ? digit : letter < 6 ? letter &+ 10 : 0x80
}
