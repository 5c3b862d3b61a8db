#pragma once
// A request's `stop` strings over streamed text: push() gives back what may
// be sent now, holding a tail that could still be the start of a stop
// string; once one appears, the text ends just before it and nothing more
// is sent. finish() releases the held tail when generation ends.
#include <string>
#include <string_view>
#include <vector>

namespace pdbench::server {

class StopText {
 public:
  explicit StopText(std::vector<std::string> stops);

  std::string push(std::string_view text);
  std::string finish();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;  // text not yet sent
  bool stopped_ = false;
};

}  // namespace pdbench::server
