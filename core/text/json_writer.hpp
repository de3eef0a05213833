#pragma once
// A small streaming JSON writer for the estimate output. Building the same
// document as an nlohmann::json tree cost ~10x more (one allocation per
// node), and the page asks for an estimate on every keystroke.
#include <cstdint>
#include <string>

namespace vramcalc {

class JsonWriter {
public:
    JsonWriter() { out_.reserve(8192); }  // an estimate is about 4 KB
    JsonWriter& begin_object() { return open('{'); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array() { return open('['); }
    JsonWriter& end_array() { return close(']'); }
    JsonWriter& key(const char* name);

    JsonWriter& value(const std::string& text);
    JsonWriter& value(const char* text);
    JsonWriter& value(double number);  // throws std::runtime_error on NaN/inf: never show one
    JsonWriter& value(int64_t number);
    JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& raw(const std::string& json);  // an already serialized JSON value

    template <class T>
    JsonWriter& field(const char* name, const T& v) { return key(name).value(v); }

    const std::string& str() const { return out_; }

private:
    void separate();
    JsonWriter& open(char bracket);
    JsonWriter& close(char bracket);
    void write_string(const char* text);
    std::string out_;
    // One bit per open container (nesting depth < 64): set while it has no element yet.
    uint64_t empty_bits_ = 0;
    int depth_ = 0;
    bool after_key_ = false;
    const char* last_key_ = "";
};

}  // namespace vramcalc
