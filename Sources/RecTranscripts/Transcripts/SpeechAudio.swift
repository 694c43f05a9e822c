import RecAudio
import RecSystem

/// Speech as transcription engines take it: 16 kHz, one channel, signed 16-bit samples.
package struct SpeechAudio: Equatable, Sendable {
    package static let sampleRate = 16_000
    package var samples: [Int16]

    package init(samples: [Int16]) {
        self.samples = samples
    }

    package var duration: Double { Double(samples.count) / Double(Self.sampleRate) }

    /// Decodes any audio file libsndfile reads (every format the store holds) to 16 kHz
    /// mono: channels averaged, then resampled (`Resampler`) when the rate differs.
    /// Throws `AudioError` (as `RecError`) when the file cannot be read.
    package static func decode(path: String) throws(RecError) -> SpeechAudio {
        do {
            let file = try SoundFile.open(path: path)
            defer { try? file.close() }
            let channels = file.channels
            let chunk = 4096
            var buffer = [Float](repeating: 0, count: chunk * channels)
            var mono = [Float](repeating: 0, count: chunk)
            var resampler =
                file.sampleRate == sampleRate ? nil : Resampler(from: file.sampleRate, to: sampleRate, channels: 1)
            var samples: [Int16] = []
            if file.declaresLength {
                samples.reserveCapacity(Int(file.frames * Int64(sampleRate) / Int64(file.sampleRate)) + 1)
            }
            func append(_ values: some Collection<Float>) {
                for value in values {
                    let scaled = (value * 32768).rounded()
                    samples.append(Int16(max(-32768, min(32767, scaled))))
                }
            }
            while true {
                let n = try buffer.withUnsafeMutableBufferPointer {
                    try file.read(into: $0.baseAddress!, frames: chunk)
                }
                if n == 0 { break }
                for i in 0..<n {
                    var sum: Float = 0
                    for c in 0..<channels { sum += buffer[i * channels + c] }
                    mono[i] = sum / Float(channels)
                }
                if resampler != nil {
                    append(
                        mono.withUnsafeBufferPointer { resampler!.process(UnsafeBufferPointer(rebasing: $0[0..<n])) })
                } else {
                    append(mono[0..<n])
                }
            }
            if resampler != nil { append(resampler!.finish()) }
            return SpeechAudio(samples: samples)
        } catch let error as AudioError {
            throw error.recError
        } catch let error as RecError {
            throw error
        } catch {
            throw .failure(path, "cannot read audio: \(error)")
        }
    }

    /// Reads headerless 16 kHz mono signed 16-bit little-endian audio (a `.raw` file).
    package static func readRaw(path: String) throws(RecError) -> SpeechAudio {
        let bytes: [UInt8]
        do {
            guard let read = try FileSystem.read(path) else { throw RecError.failure(path, "no such file") }
            bytes = read
        } catch let error as RecError {
            throw error
        } catch {
            throw .failure(path, "cannot read: \(error)")
        }
        var samples = [Int16](repeating: 0, count: bytes.count / 2)
        for i in 0..<samples.count {
            samples[i] = Int16(bitPattern: UInt16(bytes[2 * i]) | UInt16(bytes[2 * i + 1]) << 8)
        }
        return SpeechAudio(samples: samples)
    }

    /// Writes a 16-bit mono WAV at 16 kHz, the file external engines read.
    package func writeWAV(to path: String) throws(RecError) {
        do {
            let file = try SoundFile.create(path: path, format: .wav, rate: Self.sampleRate, channels: 1)
            if !samples.isEmpty {
                try samples.withUnsafeBufferPointer { try file.write($0.baseAddress!, frames: $0.count) }
            }
            try file.close()
        } catch let error as AudioError {
            throw error.recError
        } catch let error as RecError {
            throw error
        } catch {
            throw .failure(path, "cannot write: \(error)")
        }
    }
}
