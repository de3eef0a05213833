#include "text/pattern.hpp"

#include <algorithm>
#include <cstdint>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

using Set = std::bitset<256>;

struct Node {
    enum Kind { Chars, Cat, Alt, Repeat, Begin, End } kind = Cat;
    Set set;
    std::vector<Node> kids;
    int min = 0, max = 0;  // Repeat: max -1 = unbounded
};

Set range(unsigned char lo, unsigned char hi) {
    Set s;
    for (int c = lo; c <= hi; ++c) s.set(static_cast<size_t>(c));
    return s;
}
Set digits() { return range('0', '9'); }
Set word() { return range('a', 'z') | range('A', 'Z') | digits() | range('_', '_'); }
Set space() { return range(' ', ' ') | range('\t', '\r'); }

}  // namespace

// Recursive descent over the pattern (depth bounded by kMaxDepth), then Thompson's construction
// built backwards from each piece's continuation.
class PatternCompiler {
public:
    PatternCompiler(const std::string& p, const std::string& field, size_t states_left, Pattern& out)
        : p_(p), field_(field), limit_(std::min(states_left, Pattern::kMaxStates)), out_(out) {}

    void run() {
        if (p_.size() > Pattern::kMaxChars)
            fail("is longer than " + std::to_string(Pattern::kMaxChars) + " characters");
        Node root = alternation(0);
        if (i_ < p_.size()) fail("has an unmatched ')'");
        out_.states_.push_back({Pattern::Op::Match, {}, -1, -1});
        out_.start_ = compile(root, 0);
    }

private:
    static constexpr int kMaxDepth = 64;

    [[noreturn]] void fail(const std::string& why) const {
        throw InputError(field_, "the regular expression '" + short_text(p_) + "' " + why);
    }
    bool at(char c) const { return i_ < p_.size() && p_[i_] == c; }

    Node alternation(int depth) {
        if (depth > kMaxDepth) fail("nests groups deeper than " + std::to_string(kMaxDepth) + " levels");
        Node alt{Node::Alt, {}, {concatenation(depth)}, 0, 0};
        while (at('|')) {
            ++i_;
            alt.kids.push_back(concatenation(depth));
        }
        return alt.kids.size() == 1 ? std::move(alt.kids[0]) : alt;
    }

    Node concatenation(int depth) {
        Node cat{Node::Cat, {}, {}, 0, 0};
        while (i_ < p_.size() && !at('|') && !at(')')) cat.kids.push_back(repeat(depth));
        return cat;
    }

    Node repeat(int depth) {
        if (at('*') || at('+') || at('?')) fail("has nothing to repeat at position " + std::to_string(i_));
        Node atom_node = atom(depth);
        int lo = 0, hi = 0;
        if (at('*')) lo = 0, hi = -1, ++i_;
        else if (at('+')) lo = 1, hi = -1, ++i_;
        else if (at('?')) lo = 0, hi = 1, ++i_;
        else if (!braces(lo, hi)) return atom_node;
        if (atom_node.kind == Node::Begin || atom_node.kind == Node::End) fail("repeats an anchor");
        if (at('?') || at('+')) ++i_;  // lazy / possessive: the same names match
        int ignored_lo = 0, ignored_hi = 0;
        const size_t here = i_;
        if (at('*') || at('+') || at('?') || braces(ignored_lo, ignored_hi))
            fail("repeats a repeat at position " + std::to_string(here) + " (Python: multiple repeat)");
        return Node{Node::Repeat, {}, {std::move(atom_node)}, lo, hi};
    }

    // {m}, {m,}, {m,n}; anything else after '{' is a literal '{', as Python reads it.
    bool braces(int& lo, int& hi) {
        if (!at('{')) return false;
        size_t j = i_ + 1;
        auto number = [&](int& v) {
            const size_t from = j;
            long long n = 0;
            while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9' && n <= 100'000) n = n * 10 + (p_[j++] - '0');
            v = static_cast<int>(std::min<long long>(n, 100'001));
            return j > from;
        };
        const bool has_lo = number(lo);
        if (j < p_.size() && p_[j] == '}') {
            if (!has_lo) return false;
            hi = lo;
        } else if (j < p_.size() && p_[j] == ',') {
            ++j;
            if (!number(hi)) hi = -1;
            if (j >= p_.size() || p_[j] != '}') return false;
            if (!has_lo) lo = 0;
        } else {
            return false;
        }
        if (hi >= 0 && hi < lo) fail("repeats {" + std::to_string(lo) + "," + std::to_string(hi) + "}: min past max");
        i_ = j + 1;
        return true;
    }

    Node atom(int depth) {
        const char c = p_[i_++];
        if (c == '(') {
            if (at('?')) {
                if (p_.compare(i_, 2, "?:") == 0) i_ += 2;
                else if (p_.compare(i_, 3, "?P<") == 0) {
                    const size_t close = p_.find('>', i_);
                    if (close == std::string::npos) fail("has an unterminated group name");
                    i_ = close + 1;
                } else {
                    fail("uses '(" + p_.substr(i_, 2) + "…' (lookarounds, backreferences and flags are not read here)");
                }
            }
            Node inner = alternation(depth + 1);
            if (!at(')')) fail("has an unclosed '('");
            ++i_;
            return inner;
        }
        if (c == '[') return Node{Node::Chars, cls(), {}, 0, 0};
        if (c == '.') return Node{Node::Chars, Set().set().reset('\n'), {}, 0, 0};
        if (c == '^') return Node{Node::Begin, {}, {}, 0, 0};
        if (c == '$') return Node{Node::End, {}, {}, 0, 0};
        if (c == ')') fail("has an unmatched ')'");
        if (c == '\\') {
            if (i_ >= p_.size()) fail("ends with a lone backslash");
            const char e = p_[i_++];
            if (e == 'A') return Node{Node::Begin, {}, {}, 0, 0};
            if (e == 'Z') return Node{Node::End, {}, {}, 0, 0};
            return Node{Node::Chars, escape(e), {}, 0, 0};
        }
        return Node{Node::Chars, Set().set(static_cast<unsigned char>(c)), {}, 0, 0};
    }

    Set escape(char e) const {
        switch (e) {
            case 'd': return digits();
            case 'D': return ~digits();
            case 'w': return word();
            case 'W': return ~word();
            case 's': return space();
            case 'S': return ~space();
            case 'n': return Set().set('\n');
            case 't': return Set().set('\t');
            default: break;
        }
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))
            fail(std::string("uses \\") + e + " (backreferences and this escape are not read here)");
        return Set().set(static_cast<unsigned char>(e));  // \. \- \\ \( ...: the character itself
    }

    Set cls() {
        Set s;
        const bool negate = at('^');
        if (negate) ++i_;
        bool first = true;
        while (i_ < p_.size() && (first || !at(']'))) {
            first = false;
            Set one;
            unsigned char lo = static_cast<unsigned char>(p_[i_++]);
            if (lo == '\\') {
                if (i_ >= p_.size()) break;
                one = escape(p_[i_++]);
                if (one.count() != 1) {
                    s |= one;
                    continue;
                }
                for (int k = 0; k < 256; ++k)
                    if (one.test(static_cast<size_t>(k))) lo = static_cast<unsigned char>(k);
            }
            if (at('-') && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
                ++i_;
                unsigned char hi = static_cast<unsigned char>(p_[i_++]);
                if (hi == '\\' && i_ < p_.size()) hi = static_cast<unsigned char>(p_[i_++]);
                if (hi < lo) fail("has a class range out of order");
                s |= range(lo, hi);
            } else {
                s.set(lo);
            }
        }
        if (!at(']')) fail("has an unclosed '['");
        ++i_;
        return negate ? ~s : s;
    }

    int add(Pattern::Op op, const Set& set, int out, int out1 = -1) {
        if (out_.states_.size() >= limit_) {
            if (limit_ == Pattern::kMaxStates)
                fail("unfolds to more than " + std::to_string(Pattern::kMaxStates) + " states (fewer or smaller {m,n} repeats)");
            fail("unfolds to more than the " + std::to_string(limit_) + " states left of the " +
                 std::to_string(Pattern::kMaxTotalStates) + " that all the patterns of one config may hold (the patterns "
                 "before it hold the rest; fewer patterns, or fewer or smaller {m,n} repeats)");
        }
        out_.states_.push_back({op, set, out, out1});
        return static_cast<int>(out_.states_.size()) - 1;
    }

    // The start state of `n` followed by the state `next`.
    int compile(const Node& n, int next) {
        switch (n.kind) {
            case Node::Chars: return add(Pattern::Op::Char, n.set, next);
            case Node::Begin: return add(Pattern::Op::Begin, {}, next);
            case Node::End: return add(Pattern::Op::End, {}, next);
            case Node::Cat:
                for (auto it = n.kids.rbegin(); it != n.kids.rend(); ++it) next = compile(*it, next);
                return next;
            case Node::Alt: {
                int s = compile(n.kids.back(), next);
                for (size_t k = n.kids.size() - 1; k-- > 0;) s = add(Pattern::Op::Split, {}, compile(n.kids[k], next), s);
                return s;
            }
            case Node::Repeat: {
                const Node& body = n.kids[0];
                int s = next;
                if (n.max < 0) {  // a loop: split into the body (which returns here) or on
                    const int loop = add(Pattern::Op::Split, {}, -1, next);
                    out_.states_[static_cast<size_t>(loop)].out = compile(body, loop);
                    s = loop;
                } else {
                    for (int k = n.min; k < n.max; ++k) s = add(Pattern::Op::Split, {}, compile(body, s), next);
                }
                for (int k = 0; k < n.min; ++k) s = compile(body, s);
                return s;
            }
        }
        return next;
    }

    const std::string& p_;
    const std::string& field_;
    const size_t limit_;
    Pattern& out_;
    size_t i_ = 0;
};

Pattern::Pattern(const std::string& regex, const std::string& field, size_t states_left) {
    PatternCompiler(regex, field, states_left, *this).run();
}

bool Pattern::match_prefix(const std::string& text, uint64_t& visits) const {
    // The set of states reached after each character, closed over Split and the anchors. `seen_` holds
    // the step at which each state was last reached: steps count on across calls, so nothing is cleared.
    std::vector<int>& now = now_;
    std::vector<int>& next = next_;
    std::vector<int>& stack = stack_;
    if (seen_.size() != states_.size()) seen_.assign(states_.size(), 0);
    now.clear();
    stack.clear();
    ++step_;
    auto closure = [&](int from, size_t pos, std::vector<int>& into) {
        stack.push_back(from);
        while (!stack.empty()) {
            const int s = stack.back();
            stack.pop_back();
            if (s < 0 || seen_[static_cast<size_t>(s)] == step_) continue;
            seen_[static_cast<size_t>(s)] = step_;
            ++visits;
            const State& st = states_[static_cast<size_t>(s)];
            switch (st.op) {
                case Op::Split: stack.push_back(st.out1), stack.push_back(st.out); break;
                case Op::Begin: if (pos == 0) stack.push_back(st.out); break;
                case Op::End: if (pos == text.size()) stack.push_back(st.out); break;
                default: into.push_back(s);
            }
        }
    };
    closure(start_, 0, now);
    for (size_t pos = 0;; ++pos) {
        for (int s : now)
            if (states_[static_cast<size_t>(s)].op == Op::Match) return true;
        if (pos == text.size() || now.empty()) return false;
        ++step_;
        next.clear();
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        for (int s : now) {
            const State& st = states_[static_cast<size_t>(s)];
            if (st.op == Op::Char && st.set.test(c)) closure(st.out, pos + 1, next);
        }
        now.swap(next);
    }
}

}  // namespace vramcalc
