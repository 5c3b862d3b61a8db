#pragma once
// The message of the pdbench::Error a call throws, for tests that hold an
// error to its exact words.
#include <string>

#include "engine/util/error.h"

namespace pdbench::test {

// "no error" when `fn` returns.
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace pdbench::test
