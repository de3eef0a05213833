#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace vramcalc {

// Parses JSON text; malformed text becomes an InputError naming `field`.
nlohmann::json parse_json_text(const std::string& text, const std::string& field);

}  // namespace vramcalc
