import Testing

extension Tag {
    /// The suites whose code runs threads of its own, which ThreadSanitizer runs (the same
    /// tag as RecTestSupport's, which this layer's tests do not import: a tag is its name).
    @Tag static var threads: Self
}
