#pragma once
// "What can I run?" through the JSON API the CLI and the page call, the catalog (models.json) given once:
// shared by test_what_fits.cpp and test_what_fits_rows.cpp.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "api/catalog.hpp"
#include "api/what_fits_json.hpp"
#include "helpers.hpp"

namespace test {

inline nlohmann::json what_fits(const nlohmann::json& request) {
    static const bool given = nlohmann::json::parse(vramcalc::use_catalog(read_text(VRAMCALC_MODELS))).value("ok", false);
    REQUIRE(given);
    return nlohmann::json::parse(vramcalc::what_fits_request(request.dump()));
}

}  // namespace test
