import CAudio

/// The versions of the audio libraries this binary is linked against, read from the
/// libraries themselves at run time, so that printing them proves they load.
package enum LibraryVersions {
    package static var alsa: String { String(cString: snd_asoundlib_version()) }

    package static var sndfile: String {
        // sf_version_string() reads "libsndfile-1.2.0".
        let text = String(cString: sf_version_string())
        return text.hasPrefix("libsndfile-") ? String(text.dropFirst("libsndfile-".count)) : text
    }

    package static var summary: String { "alsa-lib \(alsa), libsndfile \(sndfile)" }
}
