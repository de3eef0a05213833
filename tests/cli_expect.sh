# Shared by the CLI test scripts (sourced): `expect` runs the CLI given as $cli and counts a pass
# when it exits with the wanted code and its output matches the pattern.
passed=0 failed=0

expect() {  # expect NAME EXIT_CODE PATTERN -- args...
    local name=$1 code=$2 pattern=$3; shift 4
    local out rc
    out=$("$cli" "$@" 2>&1); rc=$?
    if [[ $rc -eq $code ]] && grep -qE -- "$pattern" <<<"$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name (exit $rc, wanted $code; pattern '$pattern')"
        echo "$out" | head -5
    fi
}
