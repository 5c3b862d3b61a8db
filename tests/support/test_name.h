#pragma once
// gtest names a parameterized test after its parameter, in letters, digits
// and '_' only: "Q4_0-pure" and "gemma-3-1b" need their other characters
// replaced.
#include <cctype>
#include <string>

namespace pdbench::test {

inline std::string as_test_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// The name generator of INSTANTIATE_TEST_SUITE_P for string parameters.
struct StringParamName {
  template <typename ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return as_test_name(info.param);
  }
};

}  // namespace pdbench::test
