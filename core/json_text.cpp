#include "json_text.hpp"

#include "errors.hpp"

namespace vramcalc {

nlohmann::json parse_json_text(const std::string& text, const std::string& field) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        // Syntax errors and numbers too large for a double (1e999) alike.
        // e.what() carries the byte position, which is what a user needs to fix it.
        throw InputError(field, std::string("malformed JSON: ") + e.what());
    }
}

}  // namespace vramcalc
