import Foundation
import RecCore
import Testing

/// `devices`: the PCMs worth choosing: those with a description, and every one the user
/// defined in ~/.asoundrc (as `aplay -L` lists them), the default marked; `--all` lists
/// every one ALSA names.
@Suite("Devices: described PCMs and the user's own, the default marked")
struct DevicesListTests {
    static let config = """
        pcm.!default {
          type asym
          playback.pcm { type file slave.pcm null file "/dev/null" format "raw" }
          capture.pcm { type file slave.pcm null file "/dev/null" infile "/dev/null" format "raw" }
        }
        pcm.recnotes_test_mic {
          type file slave.pcm null file "/dev/null" infile "/dev/null" format "raw"
          hint { show on description "recnotes test microphone" }
        }
        pcm.recnotes_bare {
          type file slave.pcm null file "/dev/null" infile "/dev/null" format "raw"
          hint { show on }
        }
        pcm.recnotes_plain {
          type file slave.pcm null file "/dev/null" infile "/dev/null" format "raw"
        }
        pcm {
          recnotes_nested { type null }
        }
        pcm.recnotes_hidden {
          type null
          hint { show off description "hidden on purpose" }
        }
        pcm.recnotes_needs_args {
          @args [ FILE ]
          @args.FILE { type string }
          type file slave.pcm null file $FILE format "raw"
        }
        ctl.recnotes_control { type hw card 0 }
        """

    static func names(_ run: AudioCLI.Result) -> [String] {
        run.lines.map { String($0.prefix { $0 != " " }) }
    }

    @Test func describedAndUserDefinedDevices() throws {
        let cli = try AudioCLI(asoundrc: Self.config)
        let text = try cli.run("devices")
        #expect(text.status == 0, "\(text.stderr)")
        let listed = Self.names(text)
        for name in ["recnotes_test_mic", "recnotes_bare", "recnotes_plain", "recnotes_nested", "default"] {
            #expect(listed.contains(name), "\(name) in \(text.stdout)")
        }
        for name in ["recnotes_hidden", "recnotes_needs_args", "recnotes_control"] {
            #expect(!listed.contains(name), "\(name) in \(text.stdout)")
        }
        #expect(text.lines.contains { $0.hasPrefix("default ") && $0.contains("(default)") }, "\(text.stdout)")
        #expect(text.lines.filter { $0.contains("(default)") }.count == 1)
        // A PCM with no description says where it is defined.
        #expect(
            text.lines.contains { $0.hasPrefix("recnotes_plain ") && $0.hasSuffix("defined in ~/.asoundrc") },
            "\(text.stdout)")
        #expect(text.lines.contains { $0.hasPrefix("recnotes_test_mic ") && $0.hasSuffix("recnotes test microphone") })

        // The default follows $RECNOTES_DEVICE; --json lists the same devices.
        cli.extraEnvironment["RECNOTES_DEVICE"] = "recnotes_test_mic"
        let chosen = try cli.run("devices", "--json")
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(chosen.stdout.utf8)) as? [[String: Any]])
        #expect(
            devices.filter { $0["default"] as? Bool == true }.map { $0["name"] as? String } == ["recnotes_test_mic"])
        #expect(Set(devices.compactMap { $0["name"] as? String }) == Set(listed))
        let plain = try #require(devices.first { $0["name"] as? String == "recnotes_plain" })
        #expect(plain["description"] as? String == "")
        #expect(plain["capture"] as? Bool == true && plain["playback"] as? Bool == true)
    }

    @Test func userDefinedDevicesAreListedEvenWhenALSAHidesThoseWithoutAHint() throws {
        // With showall off, ALSA's own list leaves out a PCM with no hint block; aplay -L too.
        let cli = try AudioCLI(asoundrc: Self.config + "\ndefaults.namehint.showall off\n")
        let listed = Self.names(try cli.run("devices"))
        #expect(listed.contains("recnotes_plain") && listed.contains("recnotes_nested"), "\(listed)")
        #expect(!listed.contains("recnotes_hidden") && !listed.contains("recnotes_needs_args"), "\(listed)")
        #expect(listed.filter { $0 == "recnotes_plain" }.count == 1)
    }

    /// A system configuration of its own (ALSA_CONFIG_PATH) that defines a PCM with no
    /// description: not the user's, so only --all lists it.
    @Test func aSystemPCMWithoutADescriptionOnlyWithAll() throws {
        let cli = try AudioCLI(asoundrc: Self.config)
        let system = cli.home + "/alsa.conf"
        try """
        @hooks [ { func load files [ "~/.asoundrc" ] errors false } ]
        defaults.namehint.showall on
        pcm.recnotes_system_bare { type null }
        pcm.recnotes_system_null { type null hint { show on description "Discard all samples" } }
        """.write(toFile: system, atomically: true, encoding: .utf8)
        cli.extraEnvironment["ALSA_CONFIG_PATH"] = system
        let listed = Self.names(try cli.run("devices"))
        #expect(listed.contains("recnotes_system_null") && listed.contains("recnotes_plain"), "\(listed)")
        #expect(!listed.contains("recnotes_system_bare"), "\(listed)")
        #expect(Self.names(try cli.run("devices", "--all")).contains("recnotes_system_bare"))
    }
}
