#if canImport(Testing)
    import Testing

    extension Tag {
        /// The suites whose code runs threads of its own, which ThreadSanitizer runs
        /// (`make test-tsan` selects them by this tag, whatever their names).
        @Tag package static var threads: Self
    }
#endif
