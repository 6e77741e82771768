# function_lengths.awk - prints "FILE NAME LINES" for every function defined in the C or CUDA files it
# reads (tests/function_length.sh uses it). LINES runs from the line of the function's name to its
# closing brace. Comments, string and character literals and preprocessor lines are skipped; a brace
# block at file level is a function when a '(' came before it and no '=' (an initializer) did;
# extern "C" { ... } blocks are looked into.
FNR == 1 { depth = 0; base = 0; incomment = 0; cont = 0; reset() }
function reset() { name = ""; nameline = 0; sawparen = 0; sawassign = 0; externc = 0; prev = "" }
{
    line = $0
    if (cont || (!incomment && line ~ /^[ \t]*#/)) { cont = (line ~ /\\$/); next }
    n = length(line); i = 1
    while (i <= n) {
        c = substr(line, i, 1); d = substr(line, i, 2)
        if (incomment) { if (d == "*/") { incomment = 0; i += 2 } else i++; continue }
        if (d == "/*") { incomment = 1; i += 2; continue }
        if (d == "//") break
        if (c == "\"" || c == "'") {
            if (depth == base && c == "\"" && prev ~ /extern[ \t]*$/) externc = 1
            q = c; i++
            while (i <= n && substr(line, i, 1) != q) { if (substr(line, i, 1) == "\\") i++; i++ }
            i++; continue
        }
        if (depth == base) {
            if (c == "(" && !sawparen && !sawassign) {
                sawparen = 1; nameline = FNR
                t = prev; sub(/[ \t]+$/, "", t); match(t, /[A-Za-z_][A-Za-z0-9_]*$/)
                name = RSTART ? substr(t, RSTART) : "?"
                if (name ~ /^__[a-z_]+__$/) sawparen = 0   # __launch_bounds__(...), __attribute__((...))
            } else if (c == "=") sawassign = 1
            else if (c == ";") reset()
            else if (c == "{") {
                if (externc && prev ~ /extern[ \t]*$/) { base++; depth++; reset(); i++; continue }
                isfunc = sawparen && !sawassign; fname = name; fline = nameline
            }
            prev = prev c
        }
        if (c == "{") depth++
        else if (c == "}") {
            if (depth == base && base > 0) { base--; depth--; reset(); i++; continue }
            depth--
            if (depth == base) {
                if (isfunc) print FILENAME, fname, FNR - fline + 1
                isfunc = 0; reset()
            }
        }
        i++
    }
    if (depth == base) prev = prev " "
}
