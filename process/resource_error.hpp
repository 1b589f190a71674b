// The one error for a run that lacks a resource it needs: memory or disk.
#pragma once

#include <stdexcept>

namespace konane {

/// A run refused or stopped because it lacks memory or disk, not because its input is bad: a
/// memory budget that cannot hold the work (the least any run takes, or a layer's solve), or a
/// file system without the free space the run needs (refused before any work from the
/// estimate, or a write that found the disk full: ENOSPC, EDQUOT). The message names what is
/// short, how much is needed where it is known, and how to rerun. The command exits with 4
/// (cli/common.hpp kResources); the Python module raises konane.ResourceError.
struct ResourceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace konane
