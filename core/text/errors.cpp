#include "text/errors.hpp"

#include <cstdio>

namespace vramcalc {

namespace {

// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629 table 3-7 of
// Unicode 15 §3.9: no overlongs, no surrogates, nothing above U+10FFFF), or 0.
size_t utf8_length(const std::string& text, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > text.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
    return n;
}

}  // namespace

std::string bounded_text(const std::string& text, size_t max_bytes) {
    std::string out;
    out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        std::string piece;
        size_t used = 1;
        if (c >= 0x20 && c < 0x7F) piece.assign(1, static_cast<char>(c));
        else if (c == '\n') piece = "\\n";
        else if (c == '\t') piece = "\\t";
        else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            piece = buf;
        } else if (const size_t n = utf8_length(text, i)) {
            piece = text.substr(i, n);
            used = n;
            // Bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069)
            // would reorder the rest of the line on a terminal or the page.
            const unsigned char c1 = static_cast<unsigned char>(text[i + 1]), c2 = static_cast<unsigned char>(text[i + 2]);
            if (n == 3 && c == 0xE2 && ((c1 == 0x80 && c2 >= 0xAA && c2 <= 0xAE) || (c1 == 0x81 && c2 >= 0xA6 && c2 <= 0xA9))) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", 0x2000 + ((c1 & 0x3F) << 6) + (c2 & 0x3F));
                piece = buf;
            }
        } else {
            piece = "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        }
        if (out.size() + piece.size() > max_bytes) return out + "\xE2\x80\xA6";  // U+2026 …
        out += piece;
        i += used;
    }
    return out;
}

std::string short_text(const std::string& text) {
    constexpr size_t kShownBytes = 60;
    if (text.size() <= kShownBytes) return bounded_text(text, kShownBytes * 6);  // escapes may lengthen it
    std::string shown = bounded_text(text, kShownBytes);
    if (shown.size() < 3 || shown.compare(shown.size() - 3, 3, "\xE2\x80\xA6") != 0) shown += "\xE2\x80\xA6";
    return shown + " (" + std::to_string(text.size()) + " bytes)";
}

bool is_utf8(const std::string& text) {
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) ++i;
        else if (const size_t n = utf8_length(text, i)) i += n;
        else return false;
    }
    return true;
}

}  // namespace vramcalc
