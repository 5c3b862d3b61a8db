#pragma once
// An HTTP error in the shape OpenAI's API answers with:
// {"error": {"message", "type", "param", "code"}}. Everything a handler
// refuses is thrown as one and answered with its status.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace pdbench::server {

struct ApiError : std::runtime_error {
  ApiError(int http_status, std::string error_type, const std::string& message, std::string field = "",
           std::string error_code = "")
      : std::runtime_error(message), status(http_status), type(std::move(error_type)), param(std::move(field)),
        code(std::move(error_code)) {}

  int status;
  std::string type;   // invalid_request_error, not_found_error, server_error, ...
  std::string param;  // the request field at fault, or ""
  std::string code;   // a short machine-readable code, or ""

  nlohmann::json to_json() const;
};

// 400 invalid_request_error naming the field.
ApiError invalid_field(const std::string& param, const std::string& message);

}  // namespace pdbench::server
