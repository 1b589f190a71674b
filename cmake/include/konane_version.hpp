// The project's version for the code. KONANE_VERSION_TEXT is defined by CMake's konane_version
// target from project(VERSION) in the top-level CMakeLists.txt, the one place the version is
// written (a definition, not a generated header, so that every build tree compiles the same
// command lines and ccache shares their objects).
#pragma once

#ifndef KONANE_VERSION_TEXT
#error "konane_version.hpp needs KONANE_VERSION_TEXT: link the konane_version CMake target"
#endif

namespace konane {

/// The project version, "MAJOR.MINOR.PATCH".
inline constexpr const char* kVersion = KONANE_VERSION_TEXT;

/// "konane <version>": `konane --version`, and the generator field of every table header
/// (format/FORMAT.md §3). The field is part of the file's bytes, so a new version changes every
/// table it writes, and the published tables' sha256 (docs/solved.md) with them.
inline constexpr const char* kGenerator = "konane " KONANE_VERSION_TEXT;

}  // namespace konane
