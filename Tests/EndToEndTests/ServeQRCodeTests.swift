import Foundation
import Testing

/// At a terminal, `serve` prints its URL as a QR code for a phone's camera: in a real terminal
/// (tmux) the code on the screen, drawn as a picture, is read back by zbarimg (zbar-tools) as
/// the URL, token and all. In a pipe it prints nothing of the kind.
@Suite struct ServeQRCodeTests {
    static let zbarimg = "/usr/bin/zbarimg"

    /// The screen's half-block lines as a picture zbarimg reads (PGM): light modules white,
    /// four pixels a module, with a white border.
    static func picture(of lines: [String]) -> Data {
        let rows = lines.filter { $0.contains { "█▀▄".contains($0) } }
        let width = rows.map(\.count).max() ?? 0
        var light: [[Bool]] = []
        for line in rows {
            let characters = Array(line) + Array(repeating: " ", count: width - line.count)
            light.append(characters.map { "█▀".contains($0) })
            light.append(characters.map { "█▄".contains($0) })
        }
        let (scale, border) = (4, 16)
        let (w, h) = (width * scale + 2 * border, light.count * scale + 2 * border)
        var pixels = [UInt8](repeating: 255, count: w * h)
        for y in 0..<(light.count * scale) {
            for x in 0..<(width * scale) where !light[y / scale][x / scale] {
                pixels[(y + border) * w + x + border] = 0
            }
        }
        return Data("P5\n\(w) \(h)\n255\n".utf8) + Data(pixels)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zbarimg), "zbar-tools is missing"))
    func theCodeAtATerminalIsTheURL() throws {
        let sandbox = try Sandbox()
        let tokenFile = sandbox.root + "/token"
        try "0123456789abcdef0123456789abcdef\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let session = try TmuxSession(
            width: 120, height: 60, directory: sandbox.root, environment: sandbox.baseEnvironment,
            command: [
                Sandbox.binary, "--store", sandbox.store, "serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile,
            ])
        #expect(session.waitUntil { $0.contains { $0.contains("▄") } })
        let lines = session.lines()
        let url = try #require(lines.first { $0.hasPrefix("http://") }).trimmingCharacters(in: .whitespaces)
        #expect(url.hasSuffix("?token=0123456789abcdef0123456789abcdef"), "\(url)")
        let picture = sandbox.root + "/code.pgm"
        try Self.picture(of: lines).write(to: URL(fileURLWithPath: picture))
        let read = try Sandbox.execute(Self.zbarimg, ["--raw", "-q", picture], environment: ["PATH": "/usr/bin:/bin"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == url, "\(read.stdout)")
    }

    @Test func inAPipeThereIsNoCode() throws {
        let sandbox = try Sandbox()
        let server = try ServeProcess(sandbox)
        #expect(server.url.hasPrefix("http://127.0.0.1:"))
        #expect(server.stop() != nil)
        // Nothing after the URL.
        #expect((try? server.nextLine(timeout: 1)) == nil)
    }
}
