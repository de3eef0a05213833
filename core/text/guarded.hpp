#pragma once
// The JSON boundary's error shape, shared by every entry point that answers
// with text: {"ok":false,"error":{"field":...,"message":...,"label":...,"text":...}}:
// the field id and the message led by it (as the CLI prints it), and the field's plain label
// with the message led by that instead (what the page and the widget show; text/field_labels). `guarded` runs
// a body and turns any failure into that shape, so no exception ever crosses
// into JavaScript (wasm has no good way to show one).
#include <exception>
#include <string>

#include "text/errors.hpp"
#include "text/field_labels.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

inline std::string error_json(const std::string& field, const std::string& message) {
    JsonWriter w;
    w.begin_object().field("ok", false).key("error").begin_object();
    w.field("field", field).field("message", message);
    w.field("label", field_label(field)).field("text", labelled_message(field, message)).end_object().end_object();
    return w.str();
}

template <class Body>
std::string guarded(Body body) {
    try {
        return body();
    } catch (const InputError& e) {
        return error_json(e.field(), e.what());
    } catch (const std::exception& e) {
        return error_json("internal", bounded_text(std::string("internal error: ") + e.what(), kMaxErrorMessageBytes));
    }
}

}  // namespace vramcalc
