#include "text/json_writer.hpp"

#include <charconv>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace vramcalc {

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (depth_ > 0) {
        const uint64_t bit = uint64_t{1} << (depth_ - 1);
        if (!(empty_bits_ & bit)) out_ += ',';
        empty_bits_ &= ~bit;
    }
}

JsonWriter& JsonWriter::open(char bracket) {
    separate();
    if (depth_ >= 64) throw std::runtime_error("JSON nested too deeply");
    out_ += bracket;
    empty_bits_ |= uint64_t{1} << depth_;
    ++depth_;
    return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
    out_ += bracket;
    --depth_;
    return *this;
}

JsonWriter& JsonWriter::key(const char* name) {
    separate();
    // Keys are this program's own identifiers: nothing to escape.
    out_ += '"';
    out_ += name;
    out_ += "\":";
    after_key_ = true;
    last_key_ = name;
    return *this;
}

JsonWriter& JsonWriter::value(const char* text) {
    separate();
    write_string(text);
    return *this;
}

namespace {

// Length of the valid UTF-8 sequence starting at p, or 0 if it is not one.
// (Error messages may quote bytes of a malformed input file.)
int utf8_length(const unsigned char* p) {
    int n;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) n = 2;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) n = 3;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) n = 4;
    else return 0;
    for (int i = 1; i < n; ++i)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return n;
}

}  // namespace

void JsonWriter::write_string(const char* text) {
    out_ += '"';
    const char* run = text;  // start of the current run of characters needing no escape
    for (const char* p = text; *p;) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            ++p;
            continue;
        }
        if (c >= 0x80) {
            if (const int n = utf8_length(reinterpret_cast<const unsigned char*>(p))) {
                p += n;  // valid UTF-8 passes through unchanged
                continue;
            }
        }
        out_.append(run, p);
        if (c >= 0x80) {
            out_ += "\\ufffd";  // replacement character for a stray byte
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
        } else {
            out_ += '\\';
            out_ += static_cast<char>(c);
        }
        run = ++p;
    }
    out_ += run;
    out_ += '"';
}
JsonWriter& JsonWriter::value(const std::string& text) { return value(text.c_str()); }

JsonWriter& JsonWriter::value(double number) {
    if (!std::isfinite(number)) throw std::runtime_error(std::string("non-finite number for '") + last_key_ + "'");
    separate();
    // Whole numbers (byte and parameter counts, mostly) as integers; other
    // ordinary magnitudes with 12 significant digits by integer arithmetic
    // (printf's float formatting made up most of an estimate's cost).
    const double magnitude = std::fabs(number);
    char buf[40];
    char* const end = buf + sizeof buf;
    if (number == std::floor(number) && magnitude < 9e15) {
        out_.append(buf, std::to_chars(buf, end, static_cast<int64_t>(number)).ptr);
    } else if (magnitude >= 1e-3 && magnitude < 1e12) {
        int decimals = 12;
        for (double m = magnitude; m >= 1 && decimals > 0; m /= 10) --decimals;
        int64_t scale = 1;
        for (int i = 0; i < decimals; ++i) scale *= 10;
        const int64_t scaled = std::llround(magnitude * static_cast<double>(scale));
        char* p = buf;
        if (number < 0) *p++ = '-';
        p = std::to_chars(p, end, scaled / scale).ptr;
        if (decimals > 0 && scaled % scale != 0) {
            char digits[24];
            char* q = std::to_chars(digits, digits + sizeof digits, scaled % scale).ptr;
            *p++ = '.';
            for (int pad = decimals - static_cast<int>(q - digits); pad > 0; --pad) *p++ = '0';
            while (q > digits && q[-1] == '0') --q;  // no trailing zeros
            for (const char* d = digits; d < q; ++d) *p++ = *d;
        }
        out_.append(buf, p);
    } else {
        std::snprintf(buf, sizeof buf, "%.17g", number);
        out_ += buf;
    }
    return *this;
}

JsonWriter& JsonWriter::value(int64_t number) {
    separate();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, number).ptr);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    separate();
    out_ += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::raw(const std::string& json) {
    separate();
    out_ += json;
    return *this;
}

}  // namespace vramcalc
