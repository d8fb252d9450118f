#!/usr/bin/env python3
"""No function in core/, ui/, app/, gpu/, mpi/ or python/ longer than 200
lines (issue 30; the CUDA sources and the bindings since stop 40).

Usage: function-length.py [SOURCE_ROOT] [--max N]

Finds every C, C++ and CUDA function definition in
SOURCE_ROOT/{core,ui,app,gpu,mpi,python} (*.c, *.cc, *.cu) with a small
scanner: comments, string and character literals and preprocessor lines
are skipped, braces are matched.  A function's
length counts from the line of its name to the line of its closing brace,
both included.  Exits 1, listing "file:line name length" for each function
over the limit, when there is one; prints a one-line summary otherwise.
Exits 2 when a file cannot be scanned (braces that do not balance).
"""
import os
import sys

DIRS = ('core', 'ui', 'app', 'gpu', 'mpi', 'python')
EXTS = ('.c', '.cc', '.cu')
LIMIT = 200

# Words that may follow a C++ member function's parameter list.
QUALIFIERS = {'const', 'volatile', 'noexcept', 'override', 'final', '&', '&&'}
# Words before a brace that opens a scope holding definitions of its own.
SCOPES = {'namespace', 'extern', 'class', 'struct', 'union', 'enum'}


class ScanError(Exception):
    pass


def tokens(text):
    """Yields (token, line): identifiers, numbers and punctuation; comments,
    literals (as one '"' or "'" token) and preprocessor lines left out."""
    i, n, line = 0, len(text), 1
    line_start = True          # only blanks since the last newline
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            line_start = True
            i += 1
            continue
        if c in ' \t\r\f\v':
            i += 1
            continue
        if c == '/' and text.startswith('/*', i):
            end = text.find('*/', i + 2)
            if end < 0:
                raise ScanError('line %d: unterminated comment' % line)
            line += text.count('\n', i, end)
            i = end + 2
            continue
        if c == '/' and text.startswith('//', i):
            while i < n and text[i] != '\n':
                i += 2 if text.startswith('\\\n', i) else 1
            continue
        if c == '#' and line_start:
            # A directive, its continuation lines and comments inside it.
            while i < n and text[i] != '\n':
                if text.startswith('\\\n', i):
                    line += 1
                    i += 2
                elif text.startswith('/*', i):
                    end = text.find('*/', i + 2)
                    if end < 0:
                        raise ScanError('line %d: unterminated comment' % line)
                    line += text.count('\n', i, end)
                    i = end + 2
                elif text.startswith('//', i):
                    while i < n and text[i] != '\n':
                        i += 1
                else:
                    i += 1
            continue
        line_start = False
        if c == '"' or c == "'":
            start_line = line
            i += 1
            while i < n and text[i] != c:
                if text[i] == '\\':
                    if text.startswith('\\\n', i):
                        line += 1
                    i += 2
                    continue
                if text[i] == '\n':
                    raise ScanError('line %d: unterminated literal' % start_line)
                i += 1
            i += 1
            yield c, start_line
            continue
        if c.isalnum() or c == '_':
            j = i
            # numbers take their dots and C++14 digit separators
            while j < n and (text[j].isalnum() or text[j] == '_'
                             or (c.isdigit() and text[j] in ".'")):
                j += 1
            yield text[i:j], line
            i = j
            continue
        for punct in ('::', '&&', '->'):
            if text.startswith(punct, i):
                yield punct, line
                i += len(punct)
                break
        else:
            yield c, line
            i += 1


def is_ident(tok):
    return tok[0].isalpha() or tok[0] == '_'


def function_name(stmt):
    """The (name, line) of the function that stmt, the tokens before a brace
    at file scope, declares, or None when it declares no function."""
    # A C++ constructor's initialiser list and access labels: split at
    # single colons, keep the first part that ends in a parameter list.
    parts, cur, depth = [], [], 0
    for tok, line in stmt:
        if tok == '(':
            depth += 1
        elif tok == ')':
            depth -= 1
        if tok == ':' and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append((tok, line))
    parts.append(cur)
    if any(tok == '=' for tok, _ in stmt):
        return None            # an initialiser, a lambda
    for part in parts:
        k = len(part)
        while k > 0 and part[k - 1][0] in QUALIFIERS:
            k -= 1
        if k == 0 or part[k - 1][0] != ')':
            continue
        # Back over the parameter list to the identifier before it.
        depth, k = 0, k - 1
        while k >= 0:
            if part[k][0] == ')':
                depth += 1
            elif part[k][0] == '(':
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        if k > 0 and is_ident(part[k - 1][0]):
            name, line = part[k - 1]
            j = k - 2
            if j >= 0 and part[j][0] == '~':
                name, j = '~' + name, j - 1
            if j >= 1 and part[j][0] == '::' and is_ident(part[j - 1][0]):
                name, line = part[j - 1][0] + '::' + name, part[j - 1][1]
            return name, line
    return None


def functions(path):
    """Yields (name, first line, last line) of each function defined in path."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    # Each open brace: 'scope' (namespace, extern "C", class: definitions
    # inside), ('function', name, line) or 'block'.
    stack, stmt = [], []
    for tok, line in tokens(text):
        at_file_scope = all(kind == 'scope' for kind in stack)
        if tok == '{':
            kind = 'block'
            if at_file_scope:
                found = function_name(stmt)
                if found:
                    kind = ('function',) + found
                elif any(t in SCOPES for t, _ in stmt):
                    kind = 'scope'
            stack.append(kind)
            stmt = []
        elif tok == '}':
            if not stack:
                raise ScanError('line %d: unbalanced }' % line)
            kind = stack.pop()
            if kind[0] == 'function':
                yield kind[1], kind[2], line
            stmt = []
        elif tok == ';':
            stmt = []
        elif at_file_scope:
            stmt.append((tok, line))
    if stack:
        raise ScanError('%d braces left open at the end' % len(stack))


def main(argv):
    root, limit = None, LIMIT
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == '--max' and args:
            limit = int(args.pop(0))
        elif a.startswith('--max='):
            limit = int(a.split('=', 1)[1])
        elif root is None:
            root = a
        else:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
    if root is None:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    root = os.path.normpath(root)

    count, files, longest, over = 0, 0, None, []
    for top in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                files += 1
                try:
                    found = list(functions(path))
                except ScanError as e:
                    print('%s: cannot scan: %s' % (rel, e), file=sys.stderr)
                    return 2
                for name, first, last in found:
                    length = last - first + 1
                    count += 1
                    entry = (rel, first, name, length)
                    if longest is None or length > longest[3]:
                        longest = entry
                    if length > limit:
                        over.append(entry)
    if files == 0:
        print('no *.c or *.cc under %s/{%s}' % (root, ','.join(DIRS)), file=sys.stderr)
        return 2
    if over:
        for rel, first, name, length in over:
            print('%s:%d %s %d' % (rel, first, name, length))
        print('%d of %d functions in %s longer than %d lines'
              % (len(over), count, '/, '.join(DIRS) + '/', limit))
        return 1
    print('%d functions in %d files under %s, none longer than %d lines '
          '(longest: %s:%d %s, %d)'
          % (count, files, '/, '.join(DIRS) + '/', limit, longest[0], longest[1],
             longest[2], longest[3]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
