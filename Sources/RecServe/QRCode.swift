import CQREncode

#if canImport(Glibc)
    import Glibc
#endif

/// A text as a QR code (libqrencode, loaded on first use), for a phone's camera: what `serve`
/// prints under its URL at a terminal.
package struct QRCode {
    package let width: Int
    /// Row by row, `width` by `width`: true for a dark module.
    package let modules: [Bool]

    /// nil when libqrencode cannot be loaded or the text does not fit a code.
    package init?(_ text: String) {
        var why = [CChar](repeating: 0, count: 512)
        guard cqr_load(nil, &why, why.count) == 0 else { return nil }
        var width: Int32 = 0
        guard let data = cqr_encode(text, &width) else { return nil }
        defer { free(data) }
        self.width = Int(width)
        modules = (0..<Int(width * width)).map { data[$0] != 0 }
    }

    /// Lines of text, two rows of modules to a line in half blocks, with a quiet zone of
    /// `margin` modules. The light modules are the ones drawn, as `qrencode -t UTF8` draws
    /// them: on a terminal's dark background the code is dark on light, as a camera wants it.
    package func lines(margin: Int = 2) -> [String] {
        let size = width + 2 * margin
        func light(_ x: Int, _ y: Int) -> Bool {
            let (column, row) = (x - margin, y - margin)
            guard (0..<width).contains(column), (0..<width).contains(row) else { return true }
            return !modules[row * width + column]
        }
        return stride(from: 0, to: size, by: 2).map { y in
            String(
                (0..<size).map { x -> Character in
                    switch (light(x, y), y + 1 < size ? light(x, y + 1) : false) {
                    case (true, true): return "█"
                    case (true, false): return "▀"
                    case (false, true): return "▄"
                    case (false, false): return " "
                    }
                })
        }
    }
}
