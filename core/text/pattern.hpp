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
// length, never the exponential backtracking of a hostile pattern.
#include <bitset>
#include <string>
#include <vector>

namespace vramcalc {

class Pattern {
public:
    static constexpr size_t kMaxChars = 1000;     // a skip-list pattern is a few dozen characters
    static constexpr size_t kMaxStates = 10'000;  // {m,n} copies its atom: bounds what a pattern can unfold to
    // Throws InputError(field) for syntax this reader does not take, a malformed pattern, or one past the limits.
    Pattern(const std::string& regex, const std::string& field);
    // re.match(regex, text) is not None: some prefix of `text` matches.
    bool match_prefix(const std::string& text) const;

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
};

}  // namespace vramcalc
