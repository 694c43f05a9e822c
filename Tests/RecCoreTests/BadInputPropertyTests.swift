import Foundation
import PropertyBased
import RecStore
import RecTestSupport
import Testing

@testable import RecCore
@testable import RecSystem

extension Gen {
    /// One of the generators, picked uniformly. (The library's own `oneOf` needs the Swift 6
    /// language mode, which these test targets do not use yet.)
    static func either<each S: Sequence>(_ generators: repeat Generator<Value, each S>) -> Generator<
        Value, Shrink.None<Value>
    > {
        var runners: [@Sendable (inout any SeededRandomNumberGenerator) -> Value] = []
        for generator in repeat each generators {
            runners.append { rng in generator.run(using: &rng) }
        }
        let all = runners
        return Generator(run: { rng in
            let index = Int.random(in: 0..<all.count, using: &rng)
            return all[index](&rng)
        })
    }
}

/// Property-based bad input for the parts of RecCore that read what a user types or what is
/// on disk: generated with swift-property-based's generators, driven by a fixed seed so a run
/// is repeatable (`RECNOTES_TEST_SEED` picks another), each failure reported with its input.
///
/// Every case must end in a value or a `RecError` (a documented exit code, one line), never
/// a trap; and where a value comes back it must be one the rules allow.
@Suite("Bad input: generated names, paths, @-prefixes, time specs, store locations and JSON")
struct BadInputPropertyTests {
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["RECNOTES_TEST_SEED"].flatMap { UInt64($0) } ?? 20_251_122

    static func rng(_ salt: UInt64) -> Xoshiro {
        var s = seed ^ salt
        func mix() -> UInt64 {
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Xoshiro(seed: (mix(), mix(), mix(), mix()))
    }

    // MARK: Generators

    /// Scalars from everywhere that matters: ASCII with its controls, Latin-1 (C1 controls,
    /// NBSP), general punctuation (spaces, line separators), combining marks, CJK, emoji.
    static let scalar = Gen<UnicodeScalar?>.either(
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{0}"..."\u{7F}").map(Optional.some),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{80}"..."\u{FF}").map(Optional.some),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{300}"..."\u{36F}").map(Optional.some),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{2000}"..."\u{206F}").map(Optional.some),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{3000}"..."\u{30FF}").map(Optional.some),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{1F300}"..."\u{1F64F}").map(Optional.some),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{E000}"..."\u{10FFFF}").map(Optional.some)
    ).map { $0! }

    static let name = Gen<String>.either(
        Gen.letterOrNumber.string(of: 1...12),
        scalar.array(of: 0...16).map { String(String.UnicodeScalarView($0)) },
        Gen.ascii.string(of: 0...10),
        Gen.letter.string(of: 250...260),
        Gen.character(in: "à"..."ÿ").string(of: 120...135),
        Gen<String?>.element(of: [
            " a", "a ", "\ta", ".", "..", "...", "a/b", "/", "\n", "a\u{7F}", "\u{85}", "\u{A0}x",
            "x\u{3000}", "\u{2028}", "e\u{301}", "\u{301}", "@3f2a", "-", "--", "*", "~", "\u{FEFF}",
        ]).map { $0! }
    )

    static let hex = Gen<Character?>.element(of: Array("0123456789abcdefABCDEF-")).map { $0! }

    static let atPrefix = Gen<String>.either(
        hex.string(of: 0...40).map { "@" + $0 },
        Gen<String?>.element(of: [
            "@", "@3f2a", "@3F2A", "@3f2a2222", "@beef", "@a0b1", "@0000", "@3f2a-", "@-3-f-2-a", "@zz", "@3f2",
            "@beef/x", "@3f2a/Ideas",
        ]).map { $0! },
        Gen.ascii.string(of: 0...8).map { "@" + $0 }
    )

    static let component = Gen<String>.either(
        Gen<String?>.element(of: ["Work", "Home", "Ideas", "standup", ".", "..", "", "work", "Ideas "]).map { $0! },
        name,
        atPrefix
    )

    static let path = Gen<String>.either(
        component.array(of: 0...5).map { $0.joined(separator: "/") },
        component.array(of: 1...5).map { "/" + $0.joined(separator: "/") },
        component.array(of: 1...4).map { $0.joined(separator: "/") + "/" },
        atPrefix
    )

    static let digits = Gen.number.string(of: 0...4)
    static let timeSpec = Gen<String>.either(
        // Near-misses of the grammar: signs, fields, fractions, suffixes.
        Gen<String?>.element(of: ["", "+", "-", " ", "s", "%", ":", "."]).map { $0! },
        digits.array(of: 1...4).map { $0.joined(separator: ":") },
        Generator<String, Shrink.None<String>>(run: { rng in
            let signs = ["", "+", "-", "--", " ", "\t"]
            let suffixes = ["", "s", "%", "ms", "S", " s", "s%", "%s", "h"]
            var text = signs.randomElement(using: &rng)!
            for i in 0..<Int.random(in: 1...4, using: &rng) {
                text += (i > 0 ? ":" : "") + String(Int.random(in: 0...120, using: &rng))
            }
            if Bool.random(using: &rng) { text += "." + String(Int.random(in: 0...999, using: &rng)) }
            return text + suffixes.randomElement(using: &rng)!
        }),
        Gen<String?>.element(of: [
            "nan", "inf", "-inf", "1e3", "1e400", "0x10", "١٢", "1_000", "99999999999999999999999", "1.", ".5",
            "1..2", "50%%", "100.0001%", "-0", "+0s", "00:00:00.000", "59:59", "60:00", "1:60", "1:2:3:4", "∞",
        ]).map { $0! },
        // Markers (#N, mark:LABEL) and their near-misses.
        Gen<String?>.element(of: [
            "#", "#0", "#1", "#2", "#-1", "#01", "#+1", "#1.5", "# 1", "#99999999999999999999", "##1",
            "mark:", "mark: ", "mark:a", "mark:A", "mark:b", "MARK:a", "mark:#1", " mark:a", "mark",
        ]).map { $0! },
        scalar.array(of: 0...6).map { String(String.UnicodeScalarView($0)) }
    )

    // MARK: Oracles

    /// The rules of a name, written out independently of NameRules.
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255, name != ".", name != ".." else { return false }
        for s in name.unicodeScalars where s == "/" || s.value < 0x20 || (0x7F...0x9F).contains(s.value) {
            return false
        }
        if name.unicodeScalars.first!.properties.isWhitespace || name.unicodeScalars.last!.properties.isWhitespace {
            return false
        }
        return true
    }

    /// A RecError as the CLI prints it: one line, exit code 1 or 64.
    static func checkError(
        _ error: Error, _ input: String, expectedKind: RecError.Kind? = nil, problems: inout [String]
    ) {
        guard let error = error as? RecError else {
            problems.append("\(input.debugDescription): not a RecError: \(error)")
            return
        }
        if error.description.unicodeScalars.contains(where: RecError.breaksLine) || error.description.isEmpty {
            problems.append("\(input.debugDescription): error is not one line: \(error.description.debugDescription)")
        }
        if let expectedKind, error.kind != expectedKind {
            problems.append("\(input.debugDescription): \(error.kind) error, expected \(expectedKind): \(error)")
        }
    }

    /// Runs `count` generated cases through `check`, which appends what is wrong.
    static func run<T>(
        _ label: String, count: Int, salt: UInt64, _ gen: Generator<T, some Sequence>,
        _ check: (T, inout [String]) -> Void
    ) -> Int {
        var rng = rng(salt)
        var problems: [String] = []
        for _ in 0..<count {
            let before = rng.currentSeed
            let value = gen.run(using: &rng)
            let found = problems.count
            check(value, &problems)
            if problems.count > found { problems[problems.count - 1] += " (case seed \(before))" }
        }
        #expect(
            problems.isEmpty,
            "\(label): \(problems.count) failing cases, e.g.\n\(problems.prefix(8).joined(separator: "\n"))")
        return count
    }

    // MARK: Properties

    @Test func generatedInputNeverTrapsAndIsJudgedByTheRules() throws {
        var total = 0
        var rejected = 0

        total += Self.run("names", count: 3_000, salt: 1, Self.name) { name, problems in
            let valid = Self.isValidName(name)
            if (NameRules.violation(name) == nil) != valid {
                problems.append(
                    "\(name.debugDescription): NameRules says \(NameRules.violation(name) ?? "valid"), the rules say \(valid ? "valid" : "invalid")"
                )
            }
            do {
                try NameRules.validate(name)
            } catch {
                rejected += 1
                Self.checkError(error, name, expectedKind: .usage, problems: &problems)
            }
            if NameRules.quoted(name).unicodeScalars.contains(where: {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
            }) {
                problems.append("\(name.debugDescription): quoted form breaks the line")
            }
        }

        let document = try Fixture.document()
        let folders: [ItemID] = [.root, Fixture.work, Fixture.ideas, Fixture.home, Fixture.standup, ItemID.random()]
        var folderIndex = 0
        func checkPath(_ path: String, _ problems: inout [String]) {
            folderIndex = (folderIndex + 1) % folders.count
            let resolver = PathResolver(document: document, currentFolder: folders[folderIndex])
            do {
                switch try resolver.locate(path) {
                case .existing(let item):
                    if document[item.id] != item {
                        problems.append("\(path.debugDescription): resolved to an item not in the document")
                    }
                    if path.hasSuffix("/") && path.count > 1 && !item.isFolder {
                        problems.append("\(path.debugDescription): a trailing / resolved to a recording")
                    }
                case .missing(let parent, let name):
                    if document[parent.id] == nil || !Self.isValidName(name)
                        || document.child(named: name, in: parent.id) != nil
                    {
                        problems.append(
                            "\(path.debugDescription): missing(\(parent.name), \(name.debugDescription)) is not a free, valid name in a real folder"
                        )
                    }
                }
            } catch {
                rejected += 1
                Self.checkError(error, path, problems: &problems)
            }
        }
        total += Self.run("paths", count: 3_000, salt: 2, Self.path, checkPath)
        total += Self.run("@-prefixes", count: 1_000, salt: 3, Self.atPrefix) { prefix, problems in
            checkPath(prefix, &problems)
            let resolver = PathResolver(document: document, currentFolder: .root)
            do {
                let item = try resolver.resolve(prefix)
                let digits = prefix.dropFirst().filter { $0 != "-" }.lowercased()
                if !item.id.hexDigits.hasPrefix(digits) { problems.append("\(prefix): matched \(item.id)") }
            } catch {
                rejected += 1
                Self.checkError(error, prefix, problems: &problems)
            }
        }

        total += Self.run("time specs", count: 3_000, salt: 4, Self.timeSpec) { text, problems in
            for allowRelative in [false, true] {
                do {
                    let spec = try TimeSpec.parse(text, allowRelative: allowRelative)
                    switch spec {
                    case .absolute(let s), .fromEnd(let s):
                        if !s.isFinite || s < 0 || s > TimeSpec.maximumSeconds {
                            problems.append("\(text.debugDescription): \(spec)")
                        }
                    case .percent(let p):
                        if !(0...100).contains(p) { problems.append("\(text.debugDescription): \(spec)") }
                    case .relative(let d):
                        if !d.isFinite || !allowRelative { problems.append("\(text.debugDescription): \(spec)") }
                    case .marker(let selector):
                        // #N with N from 1, or mark: and a label.
                        let number = selector.hasPrefix("#") ? Int(selector.dropFirst()) : nil
                        if !(selector.hasPrefix("mark:") && selector.count > 5) && !(number.map { $0 > 0 } ?? false) {
                            problems.append("\(text.debugDescription): \(spec)")
                        }
                        // Markers are resolved against a recording's markers, never as a time.
                        let markers = [Marker(frame: 10, label: "a")]
                        do {
                            let frame = try spec.markerFrame(in: markers, frames: 5, option: "--seek", path: "r")
                            if frame != 5 {
                                problems.append("\(text.debugDescription): frame \(String(describing: frame))")
                            }
                        } catch {
                            Self.checkError(error, text, expectedKind: .usage, problems: &problems)
                        }
                    }
                    for duration in [0.0, 0.5, 90, 3600] {
                        do {
                            let at = try spec.resolve(duration: duration, current: duration / 2, spec: text)
                            if !(0...duration).contains(at) {
                                problems.append("\(text.debugDescription) in \(duration) s resolved to \(at)")
                            }
                        } catch {
                            Self.checkError(error, text, expectedKind: .usage, problems: &problems)
                        }
                    }
                } catch {
                    rejected += 1
                    Self.checkError(error, text, expectedKind: .usage, problems: &problems)
                }
            }
        }

        let optionalPath = Gen<String?>.either(
            Self.path.map(Optional.some), Gen<String?>.always(nil), Gen<String?>.always(""))
        let environmentValue = Gen<String?>.either(
            Self.path.map(Optional.some), Gen<String?>.always(nil), Gen<String?>.always(""),
            Gen<String?>.always("relative/dir"))
        let locationInput = Gen<(String?, String?, String?, String?)>.either(
            optionalPath.array(of: 4).map { ($0[0], $0[1], $0[2], $0[3]) },
            environmentValue.array(of: 4).map { ($0[0], $0[1], $0[2], $0[3]) }
        )
        total += Self.run("store locations", count: 1_000, salt: 5, locationInput) { input, problems in
            let (explicit, recnotesHome, xdg, home) = input
            var environment: [String: String] = [:]
            environment["RECNOTES_HOME"] = recnotesHome
            environment["XDG_DATA_HOME"] = xdg
            environment["HOME"] = home
            do {
                let location = try StoreLocation.resolve(explicit: explicit, environment: environment)
                if location.directory.isEmpty { problems.append("\(input): an empty store directory") }
                if explicit == "" { problems.append("\(input): --store '' accepted") }
            } catch {
                rejected += 1
                Self.checkError(error, "\(input)", expectedKind: .usage, problems: &problems)
            }
        }

        // The JSON reader behind both stores: mutated and truncated valid files.
        var store = DocumentStore.Transaction(document: Document())
        try Fixture.build(into: &store)
        try store.remove(Fixture.home)
        let storeBytes = DocumentCodec.encode(store.document)
        let viewBytes = ViewStateCodec.encode(
            ViewState(
                folderStack: [.root, Fixture.work], selection: .init(recording: Fixture.standup, position: 3),
                recording: nil))
        let mutation = Generator<(Bool, [(Int, UInt8, Int)]), Shrink.None<(Bool, [(Int, UInt8, Int)])>>(run: { rng in
            let edits = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                (
                    Int.random(in: 0..<4096, using: &rng), UInt8.random(in: 0...255, using: &rng),
                    Int.random(in: 0...3, using: &rng)
                )
            }
            return (Bool.random(using: &rng), edits)
        })
        total += Self.run("mutated store.json and viewstate.json", count: 2_000, salt: 6, mutation) { input, problems in
            var bytes = input.0 ? storeBytes : viewBytes
            for (offset, byte, kind) in input.1 {
                let at = offset % (bytes.count + 1)
                switch kind {
                case 0: if at < bytes.count { bytes[at] = byte }  // overwrite
                case 1: bytes.insert(byte, at: at)  // insert
                case 2: bytes.removeSubrange(at..<bytes.count)  // truncate
                default: if at < bytes.count { bytes.remove(at: at) }  // delete
                }
            }
            bytes.withUnsafeBufferPointer { buffer in
                if input.0 {
                    do {
                        let (document, _) = try DocumentCodec.decode(buffer)
                        if document[.root] == nil { problems.append("decoded a store without a root") }
                    } catch is DocumentCodec.Corrupt {
                        rejected += 1
                    } catch {
                        problems.append("store decode threw \(error)")
                    }
                } else {
                    do {
                        _ = try ViewStateCodec.decode(buffer)
                    } catch {
                        rejected += 1
                    }
                }
            }
        }

        // Every truncation of a valid store is either still the whole document or refused.
        for end in 0..<storeBytes.count {
            let cut = Array(storeBytes[..<end])
            total += 1
            let decoded = try? cut.withUnsafeBufferPointer { try DocumentCodec.decode($0).0 }
            if let decoded {
                #expect(decoded.items.count == store.document.items.count, "truncated at \(end)")
            } else {
                rejected += 1
            }
        }

        print(
            "bad-input (RecCore): \(total) generated cases tried (\(rejected) rejections, each a one-line RecError), 0 crashes (seed \(Self.seed))"
        )
        #expect(total >= 10_000)
    }
}
