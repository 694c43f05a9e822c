import CAudio
import RecSystem

/// A failure of the audio libraries, carrying the library's own words (`snd_strerror`,
/// `sf_strerror`) and what it was about: the device name or the file path.
package struct AudioError: Error, Equatable, CustomStringConvertible, Sendable {
    package enum Subject: Equatable, Sendable {
        /// An ALSA PCM, by the name it was opened with.
        case device(String)
        /// An audio file, by path.
        case file(String)
    }

    package var subject: Subject
    /// What was being done: "cannot open for capture", "read failed".
    package var operation: String
    /// The library's message.
    package var reason: String
    /// The library's error code (a negative errno for ALSA, an SF_ERR_* for libsndfile), or 0.
    package var code: Int32

    package init(_ subject: Subject, _ operation: String, reason: String, code: Int32 = 0) {
        self.subject = subject
        self.operation = operation
        self.reason = reason
        self.code = code
    }

    static func alsa(_ device: String, _ operation: String, _ code: Int32) -> AudioError {
        AudioError(.device(device), operation, reason: String(cString: snd_strerror(code)), code: code)
    }

    static func sndfile(_ path: String, _ operation: String, _ handle: OpaquePointer?) -> AudioError {
        AudioError(.file(path), operation, reason: SoundFile.reason(of: handle), code: sf_error(handle))
    }

    package var description: String { recError.description }

    /// What an event says: a device by name; a file only by what failed, since the file a
    /// recorder writes is a store's `audio/<uuid>` that the user knows by another name.
    package var eventMessage: String {
        switch subject {
        case .device: return description
        case .file: return "\(operation): \(reason)"
        }
    }

    /// How the CLI reports it: `audio device "hw:9": cannot open for capture: No such file or directory`.
    package var recError: RecError {
        switch subject {
        case .device(let name): return .failure("audio device \"\(name)\"", "\(operation): \(reason)")
        case .file(let path): return .failure(path, "\(operation): \(reason)")
        }
    }
}

/// Errors that know which `RecError` they are, so the CLI reports them as one line and the
/// documented exit code.
package protocol RecErrorConvertible: Error {
    var recError: RecError { get }
}

extension AudioError: RecErrorConvertible {}
