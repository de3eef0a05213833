#pragma once
// Every rejection of user input names the field it is about, so the CLI and
// the page can say exactly what to fix.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace vramcalc {

// Error texts quote user input, which may be megabytes long or not UTF-8 at
// all. Each InputError keeps at most these many bytes of its field name and
// of its message, so no error ever echoes a huge value, and a one-line
// message on a terminal or the page stays one line.
constexpr size_t kMaxErrorFieldBytes = 120;
constexpr size_t kMaxErrorMessageBytes = 1000;

// `text` as valid UTF-8 (each stray byte becomes U+FFFD), control characters
// escaped (\n, \u0007), cut at a character boundary to at most `max_bytes`
// bytes plus a trailing "…" when something was dropped.
std::string bounded_text(const std::string& text, size_t max_bytes);
// For error messages: at most 60 characters of `text`, valid UTF-8, control
// characters escaped, then "…" and the full size when it was longer.
std::string short_text(const std::string& text);
// Whether `text` is well-formed UTF-8 (no stray bytes, overlongs or surrogates).
bool is_utf8(const std::string& text);

class InputError : public std::runtime_error {
public:
    InputError(const std::string& field, const std::string& message)
        : InputError(bounded_text(field, kMaxErrorFieldBytes), message, 0) {}
    const std::string& field() const { return field_; }

private:
    InputError(std::string field, const std::string& message, int)
        : std::runtime_error(field + ": " + bounded_text(message, kMaxErrorMessageBytes)), field_(std::move(field)) {}
    std::string field_;
};

}  // namespace vramcalc
