#pragma once
// The shared shape of the settings errors: "NAME must be RANGE, got VALUE".
#include <sstream>

#include "engine/util/error.h"

namespace pdbench {

template <typename T>
void require_setting(bool ok, const char* name, const char* range, const T& got) {
  if (ok) return;
  std::ostringstream msg;
  msg << name << " must be " << range << ", got " << got;
  throw Error(msg.str());
}

}  // namespace pdbench
