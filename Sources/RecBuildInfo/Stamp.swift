// BuildInfo itself is generated before each build by the VersionStamp plugin
// (scripts/version.sh). It has a target of its own because SwiftPM's import check skips every
// target that uses a plugin or depends on one: here only this target and the CLI above it.
