// konane.Engine (python/engine_bindings.cpp): the engine of engine/engine.hpp from Python, defined
// apart from the giant module function of konane_module.cpp, which calls def_engine().
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <optional>

#include "probe/probe.hpp"

namespace konane::python {

/// The table behind a konane.Tablebase object, or nullopt when `object` is not one (raises
/// ValueError for a closed one): the module's hook, so that this file needs no PyTablebase.
using TableOf = std::function<std::optional<Tablebase>(pybind11::handle object)>;

/// Defines konane.Engine in module m. `position_type` is konane.Position (accepted wherever a
/// position is, as its text).
void def_engine(pybind11::module_& m, TableOf table_of, pybind11::handle position_type);

}  // namespace konane::python
