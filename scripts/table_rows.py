"""Shared by the scripts that rewrite docs/validation.md's tables: the rows of a validation file and
the value and error the core gives each row, as a unit test case prints them
("ID  quantity  expected  ours  +1.23%" per line)."""
import json, os, re, subprocess

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def rows_of(name):
    """The rows of tests/validation/NAME."""
    return json.load(open(os.path.join(root, "tests", "validation", name)))["rows"]


def printed_errors(tests_binary, case, *flags):
    """{row id: (the core's value, its error in %)} from the doctest case's printed lines."""
    out = subprocess.run([tests_binary, f"-tc={case}", *flags], capture_output=True, text=True).stdout
    printed = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+\S+\s+(\S+)\s+(\S+)\s+([+-]\d+\.\d+)%", line)
        if m:
            printed[m.group(1)] = (float(m.group(3)), float(m.group(4)))
    return printed


def replace_between(path, start, end, lines):
    """Rewrites the lines of PATH between the marker lines START and END."""
    text = open(path, encoding="utf-8").read()
    a, b = text.index(start) + len(start), text.index(end)
    open(path, "w", encoding="utf-8").write(text[:a] + "\n".join(lines) + "\n" + text[b:])
