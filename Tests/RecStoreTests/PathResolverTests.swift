import RecSystem
import RecTestSupport
import Testing

@testable import RecStore

@Suite("Path resolution")
struct PathResolverTests {
    let document: Document

    init() throws {
        document = try Fixture.document()
    }

    func resolver(at folder: ItemID = .root) -> PathResolver {
        PathResolver(document: document, currentFolder: folder)
    }

    @Test("absolute paths start at the root wherever the current folder is")
    func absolute() throws {
        for current in [ItemID.root, Fixture.work, Fixture.ideas, Fixture.home] {
            let r = resolver(at: current)
            #expect(try r.resolve("/").id == .root)
            #expect(try r.resolve("/Work").id == Fixture.work)
            #expect(try r.resolve("/Work/Ideas").id == Fixture.ideas)
            #expect(try r.resolve("/Work/Ideas/standup").id == Fixture.standup)
            #expect(try r.resolve("//Work//Ideas").id == Fixture.ideas)
        }
    }

    @Test("relative paths start at the current folder")
    func relative() throws {
        #expect(try resolver(at: .root).resolve("Work").id == Fixture.work)
        #expect(try resolver(at: Fixture.work).resolve("Ideas").id == Fixture.ideas)
        #expect(try resolver(at: Fixture.work).resolve("Ideas/standup").id == Fixture.standup)
        #expect(try resolver(at: Fixture.ideas).resolve("../../Home").id == Fixture.home)
        // The same relative name from another folder is not found.
        let error = recError { _ = try resolver(at: Fixture.home).resolve("Ideas") }
        #expect(error == RecError.failure("Ideas", "no such folder or recording"))
    }

    @Test("'.' is the current folder and '..' its parent; the root's parent is the root")
    func dotAndDotDot() throws {
        #expect(try resolver(at: Fixture.ideas).resolve(".").id == Fixture.ideas)
        #expect(try resolver(at: Fixture.ideas).resolve("./.").id == Fixture.ideas)
        #expect(try resolver(at: Fixture.ideas).resolve("..").id == Fixture.work)
        #expect(try resolver(at: Fixture.ideas).resolve("../..").id == .root)
        #expect(try resolver(at: Fixture.ideas).resolve("../../../../..").id == .root)
        #expect(try resolver(at: .root).resolve("..").id == .root)
        #expect(try resolver(at: Fixture.home).resolve("/..").id == .root)
        #expect(try resolver(at: .root).resolve("/../Work/./Ideas/..").id == Fixture.work)
    }

    @Test("a trailing '/' is allowed on folders and refused on recordings")
    func trailingSlash() throws {
        #expect(try resolver().resolve("/Work/").id == Fixture.work)
        #expect(try resolver().resolve("Work/Ideas/").id == Fixture.ideas)
        let error = recError { _ = try resolver().resolve("/Work/Ideas/standup/") }
        #expect(error == RecError.failure("/Work/Ideas/standup/", "not a folder"))
    }

    @Test("a current folder that is gone or is a recording falls back to the root")
    func currentFolderFallsBack() throws {
        #expect(resolver(at: Fixture.standup).currentFolder == .root)
        #expect(resolver(at: ItemID("12345678-0000-4000-8000-000000000000")!).currentFolder == .root)
        #expect(try resolver(at: Fixture.standup).resolve("Work").id == Fixture.work)
    }

    @Test("a missing last component is a creatable name; a missing intermediate folder is an error")
    func missing() throws {
        #expect(try resolver().locate("/Work/New") == .missing(parent: document[Fixture.work]!, name: "New"))
        #expect(
            try resolver(at: Fixture.ideas).locate("take 2")
                == .missing(parent: document[Fixture.ideas]!, name: "take 2"))
        let notFound = recError { _ = try resolver().resolve("/Work/New") }
        #expect(notFound == RecError.failure("/Work/New", "no such folder or recording"))
        #expect(notFound?.exitCode == 1)

        let intermediate = recError { _ = try resolver().locate("/Nope/deeper/x") }
        #expect(intermediate == RecError.failure("/Nope/deeper/x", "no such folder: /Nope"))
        let nested = recError { _ = try resolver(at: Fixture.work).locate("Ideas/Nope/x") }
        #expect(nested == RecError.failure("Ideas/Nope/x", "no such folder: /Work/Ideas/Nope"))
    }

    @Test("a walk names what is missing below the deepest folder there, .. taking a missing name back")
    func walkMissing() throws {
        let root = document.root
        #expect(
            try resolver().walk("/Nope/deeper/x")
                == .missing(parent: root, names: ["Nope", "deeper", "x"], endsInSlash: false))
        #expect(
            try resolver(at: Fixture.work).walk("Ideas/New/")
                == .missing(
                    parent: document[Fixture.ideas]!, names: ["New"], endsInSlash: true))
        #expect(try resolver().walk("/Nope/../Work") == .existing(document[Fixture.work]!))
        #expect(
            try resolver().walk("/Work/a/./b/../c")
                == .missing(
                    parent: document[Fixture.work]!, names: ["a", "c"], endsInSlash: false))
        #expect(try resolver(at: Fixture.ideas).absolutePath("../x/../Ideas/y") == "/Work/Ideas/y")
        let under = recError { _ = try resolver().walk("@beef/x") }
        #expect(under == RecError.failure("@beef/x", "/Work/Ideas/standup is not a folder"))
        let missing = resolver().missing("/Nope/x", parent: root, names: ["Nope", "x"], hint: "use -p to create it")
        #expect(missing == RecError.failure("/Nope/x", "no such folder: /Nope (use -p to create it)"))
    }

    @Test("a recording cannot be used as a folder")
    func recordingAsFolder() throws {
        let through = recError { _ = try resolver().locate("/Work/Ideas/standup/x") }
        #expect(through == RecError.failure("/Work/Ideas/standup/x", "/Work/Ideas/standup is not a folder"))
        let asFolder = recError { _ = try resolver().resolveFolder("/Work/Ideas/standup") }
        #expect(asFolder == RecError.failure("/Work/Ideas/standup", "not a folder"))
        #expect(try resolver().resolveFolder("/Work").id == Fixture.work)
    }

    @Test("an empty path or an invalid component is a usage error")
    func invalidPaths() throws {
        let empty = recError { _ = try resolver().resolve("") }
        #expect(empty?.kind == .usage)
        #expect(empty?.exitCode == 64)
        let control = recError { _ = try resolver().locate("/Work/a\u{7}b") }
        #expect(control == RecError.usage("a\\u{7}b", "a name cannot contain control characters"))
    }

    @Test(
        "a unique UUID prefix of 4 or more hex digits finds the item",
        arguments: [
            ("@a0b1", Fixture.home),
            ("@A0B1C2", Fixture.home),
            ("@3f2a1", Fixture.work),
            ("@3f2a-1111", Fixture.work),
            ("@3F2A2222-0000-4000-8000-000000000002", Fixture.ideas),
            ("@beef", Fixture.standup),
            ("@0000", ItemID.root),
        ])
    func uniquePrefix(path: String, expected: ItemID) throws {
        #expect(try resolver(at: Fixture.home).resolve(path).id == expected)
    }

    @Test("a UUID prefix can start a path")
    func prefixThenPath() throws {
        #expect(try resolver().resolve("@3f2a1/Ideas").id == Fixture.ideas)
        #expect(try resolver().resolve("@3f2a2/standup").id == Fixture.standup)
        #expect(try resolver().resolve("@3f2a2/..").id == Fixture.work)
        #expect(try resolver().locate("@a0b1/New") == .missing(parent: document[Fixture.home]!, name: "New"))
    }

    @Test("an ambiguous prefix is an error that lists every candidate")
    func ambiguousPrefix() throws {
        let error = recError { _ = try resolver().resolve("@3f2a") }
        #expect(error?.kind == .failure)
        #expect(error?.subject == "@3f2a")
        #expect(
            error?.reason == "ambiguous UUID prefix, matching 2 items: @3f2a11110000 /Work, @3f2a22220000 /Work/Ideas")
    }

    @Test("a prefix matching nothing is a failure")
    func unknownPrefix() throws {
        let error = recError { _ = try resolver().resolve("@ffff") }
        #expect(error == RecError.failure("@ffff", "no item has a UUID starting with ffff"))
    }

    @Test(
        "a prefix that is too short, too long or not hex is a usage error",
        arguments: ["@", "@3f2", "@3-f-2", "@zzzz", "@3f2g", "@a0b1c2d3-0000-4000-8000-0000000000030", "@ 3f2a"])
    func malformedPrefix(path: String) throws {
        let error = recError { _ = try resolver().resolve(path) }
        #expect(error?.kind == .usage)
        #expect(error?.reason == "a UUID prefix needs 4 to 32 hex digits after '@'")
    }

    @Test("a name beginning with '@' is reached as ./@name")
    func atName() throws {
        var tx = DocumentStore.Transaction(document: document)
        let at = Item.folder(id: ItemID("c0ffee00-0000-4000-8000-000000000005")!, name: "@beef", parent: .root)
        try tx.add(at)
        let r = PathResolver(document: tx.document, currentFolder: .root)
        #expect(try r.resolve("./@beef").id == at.id)
        #expect(try r.resolve("/@beef").id == at.id)
        #expect(try r.resolve("@beef").id == Fixture.standup)
    }
}
