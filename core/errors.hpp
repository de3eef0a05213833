#pragma once
// Every rejection of user input names the field it is about, so the CLI and
// the page can say exactly what to fix.
#include <stdexcept>
#include <string>

namespace vramcalc {

class InputError : public std::runtime_error {
public:
    InputError(std::string field, const std::string& message)
        : std::runtime_error(field + ": " + message), field_(std::move(field)) {}
    const std::string& field() const { return field_; }

private:
    std::string field_;
};

}  // namespace vramcalc
