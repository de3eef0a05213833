#pragma once
// Python's re.match for the regular expressions of quantization skip lists
// (transformers quantizers_utils.py should_convert_module, compressed-tensors
// utils/match.py match_name "re:" targets): anchored at the start of the name,
// not at its end unless the pattern says $.
//
// The syntax read: literals, ., escapes (\d \w \s \D \W \S, \A \Z, escaped
// punctuation), classes ([a-z0-9_], [^.]), groups ((…), (?:…), (?P<name>…)),
// alternation |, quantifiers * + ? {m} {m,} {m,n} (their lazy and possessive
// forms match the same names), anchors ^ and $. Lookarounds, backreferences
// and inline flags are refused by name. Matching runs the pattern's automaton
// over the name (Thompson's construction), so it costs at most states × name
// length, never the exponential backtracking of a hostile pattern. Each match
// counts the states it visits, so a caller can bound the work of many matches.
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

namespace vramcalc {

class Pattern {
public:
    static constexpr size_t kMaxChars = 1000;     // a skip-list pattern is a few dozen characters
    static constexpr size_t kMaxStates = 10'000;  // {m,n} copies its atom: bounds what a pattern can unfold to
    // All the patterns of one config together (skip_lists.cpp): a real list's patterns hold a few hundred
    // states; 10,000 entries of x{9990} would otherwise compile 10^8 states (4.7 GB, 30 s; issue 37 H2).
    static constexpr size_t kMaxTotalStates = 100'000;
    // Throws InputError(field) for syntax this reader does not take, a malformed pattern, or one past the
    // limits: kMaxStates, or `states_left` of kMaxTotalStates when the patterns read before it took the rest.
    Pattern(const std::string& regex, const std::string& field, size_t states_left = kMaxStates);
    // re.match(regex, text) is not None: some prefix of `text` matches. Adds the states it visited
    // (at most states × (length + 1)) to `visits`.
    bool match_prefix(const std::string& text, uint64_t& visits) const;
    bool match_prefix(const std::string& text) const {
        uint64_t ignored = 0;
        return match_prefix(text, ignored);
    }
    size_t states() const { return states_.size(); }

private:
    enum class Op : unsigned char { Match, Char, Split, Begin, End };
    struct State {
        Op op;
        std::bitset<256> set;  // Char: the bytes it takes
        int out = -1, out1 = -1;
    };
    friend class PatternCompiler;
    std::vector<State> states_;
    int start_ = 0;
    // Scratch of match_prefix, kept between calls (one name × pattern comparison allocates nothing);
    // single-threaded, like the rest of the core.
    mutable std::vector<int> now_, next_, stack_;
    mutable std::vector<uint64_t> seen_;
    mutable uint64_t step_ = 0;
};

}  // namespace vramcalc
