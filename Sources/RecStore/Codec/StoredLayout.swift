/// What either store file may declare for a recording's audio. Looser than what recnotes
/// records (`AudioFormat.rateRange`): `import --keep` stores a file as it is, and a reader
/// must not refuse a store over a file that plays; it refuses only nonsense.
enum StoredLayout {
    static func isPlausible(rate: Int64, channels: Int64) -> Bool {
        (1...1_000_000).contains(rate) && (1...64).contains(channels)
    }
}
