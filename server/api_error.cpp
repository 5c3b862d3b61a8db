#include "server/api_error.h"

namespace pdbench::server {

nlohmann::json ApiError::to_json() const {
  auto optional = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"error", {{"message", what()}, {"type", type}, {"param", optional(param)}, {"code", optional(code)}}}};
}

ApiError invalid_field(const std::string& param, const std::string& message) {
  return ApiError(400, "invalid_request_error", "'" + param + "': " + message, param);
}

}  // namespace pdbench::server
