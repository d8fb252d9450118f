#!/usr/bin/env python3
"""cu2cc.py — turns a CUDA source into C++ for the emulation harness
(tests/gpu-emu): every launch `KERNEL<<<CONFIG>>>` becomes
`::ctr_emu::launcher (KERNEL, "KERNEL", __FILE__, __LINE__, CONFIG)`, whose
call operator takes the argument list that follows unchanged.  Nothing else
changes; a #line directive keeps the .cu's name and line numbers in
diagnostics.  Usage: cu2cc.py INPUT.cu OUTPUT.cc
"""
import re
import sys


def kernel_start(text, end):
    """Index where the kernel expression ending at `end` (exclusive) starts:
    an identifier, possibly qualified, possibly with template arguments."""
    i = end
    while i > 0 and text[i - 1].isspace():
        i -= 1
    if i > 0 and text[i - 1] == '>':          # template arguments
        depth = 0
        while i > 0:
            i -= 1
            c = text[i]
            if c == '>':
                depth += 1
            elif c == '<':
                depth -= 1
                if depth == 0:
                    break
        while i > 0 and text[i - 1].isspace():
            i -= 1
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in '_:'):
        i -= 1
    return i


def convert(text):
    out = []
    pos = 0
    for m in re.finditer(r'<<<', text):
        if m.start() < pos:
            continue
        start = kernel_start(text, m.start())
        close = text.find('>>>', m.end())
        if close < 0 or start == m.start():
            raise SystemExit('cu2cc: cannot parse the launch at offset %d' % m.start())
        kernel = text[start:m.start()].strip()
        config = text[m.end():close].strip()
        if '\n' in kernel or '\n' in config:
            raise SystemExit('cu2cc: a launch must fit on one line: ' + kernel)
        out.append(text[pos:start])
        out.append('::ctr_emu::launcher (%s, "%s", __FILE__, __LINE__, %s)'
                   % (kernel, re.sub(r'\s+', ' ', kernel), config))
        pos = close + 3
    out.append(text[pos:])
    return ''.join(out)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding='utf-8') as f:
        text = f.read()
    body = convert(text)
    with open(dst, 'w', encoding='utf-8') as f:
        f.write('#line 1 "%s"\n' % src)
        f.write(body)


if __name__ == '__main__':
    main()
