import Foundation
import RecCore
import Testing

/// `devices`: the PCMs worth choosing (those with a description), the default marked;
/// `--all` lists every one ALSA names.
@Suite("Devices: described PCMs, the default marked")
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
        """

    @Test func onlyDescribedDevicesUnlessAll() throws {
        let cli = try AudioCLI(asoundrc: Self.config)
        let text = try cli.run("devices")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.lines.contains { $0.hasPrefix("recnotes_test_mic ") }, "\(text.stdout)")
        #expect(!text.lines.contains { $0.hasPrefix("recnotes_bare") }, "\(text.stdout)")
        #expect(text.lines.contains { $0.hasPrefix("default ") && $0.contains("(default)") }, "\(text.stdout)")
        #expect(text.lines.filter { $0.contains("(default)") }.count == 1)
        let all = try cli.run("devices", "--all")
        #expect(all.lines.contains { $0.hasPrefix("recnotes_bare") }, "\(all.stdout)")

        // The default follows $RECNOTES_DEVICE.
        cli.extraEnvironment["RECNOTES_DEVICE"] = "recnotes_test_mic"
        let chosen = try cli.run("devices", "--json")
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(chosen.stdout.utf8)) as? [[String: Any]])
        #expect(
            devices.filter { $0["default"] as? Bool == true }.map { $0["name"] as? String } == ["recnotes_test_mic"])
        #expect(!devices.contains { $0["name"] as? String == "recnotes_bare" })
    }
}
