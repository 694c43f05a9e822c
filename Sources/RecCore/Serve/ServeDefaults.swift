/// `recnotes serve`'s documented defaults, which the CLI's `--help` and the server share.
public enum ServeDefaults {
    public static let host = "127.0.0.1"
    /// Unassigned by IANA and not one that development servers usually take (8080, 8000, 8888).
    public static let port = 8930
    /// The server's executable, looked for beside the running `recnotes`.
    public static let executable = "recnotes-serve"
}
