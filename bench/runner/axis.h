#pragma once
// One sweep axis of a scenario: its values and where they were set.
#include <vector>

namespace pdbench::runner {

// The values of one axis and the line they were set on (0: a default or a
// command-line override).
template <class T>
struct Axis {
  std::vector<T> values;
  int line = 0;
};

}  // namespace pdbench::runner
