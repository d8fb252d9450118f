"""`reconstruct --help` against the method and parameter tables, and the
command table of `ctrecon-cli --help` in two aligned columns.

`ctrecon-cli methods` prints the tables every help text is made from
(core/recon/ctr-recon-types.c, core/recon/ctr-params.c).  The help of
`reconstruct` must name every method of the table in its --method line (and
no other name), offer every parameter as --NAME, and state each parameter's
default for every method that takes it; the message for an unknown method
must name them all too.  A method added to the table and not to the help
fails here.  Needs no shared data.
"""
import json
import re

from common import check, finish, require_cli, run

require_cli()

r = run("methods")
if not check(r.returncode == 0, "ctrecon-cli methods runs"):
    finish()
methods = json.loads(r.stdout)["methods"]
names = [m["name"] for m in methods]
check(len(names) == len(set(names)) and len(names) >= 9, f"methods lists {len(names)} distinct methods: {names}")

r = run("reconstruct", "--help")
check(r.returncode == 0, "reconstruct --help exits 0")
help_text = r.stdout
# GOption wraps nothing: one line per option, "  -m, --method=M   text".
lines = {}
for line in help_text.splitlines():
    m = re.match(r"\s+(?:-\w, )?--([\w-]+)(?:=\S+)?\s+(.*)", line)
    if m:
        lines[m.group(1)] = m.group(2)

method_line = lines.get("method", "")
before_paren = method_line.split("(")[0]
listed = re.findall(r"[a-z][a-z-]*", before_paren.replace(" or ", ", "))
check(listed == names, f"--method lists the table's methods in its order: {listed} == {names}")
for n in names:
    check(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", method_line) is not None,
          f"--method names '{n}'")

r = run("reconstruct", "no-such.json", "--method", "no-such-method", "--output", "x.tif")
check(r.returncode != 0 and all(n in r.stderr for n in names),
      f"an unknown method is refused naming every method: {r.stderr.strip()[:160]}")


def shown(value, kind):
    """The default as the help writes it."""
    return f"{float(value):g}" if kind == "double" else value


for m in methods:
    for p in m["parameters"]:
        text = lines.get(p["name"])
        if not check(text is not None, f"{m['name']}: --{p['name']} is an option of reconstruct"):
            continue
        default = shown(p["default"], p["type"])
        # "default 10 (art, part and sart), 100 (sirt …)" or "default yes";
        # a name shared by parameters of different methods has one each.
        tails = re.findall(r"; default ([^\[]*)", text)
        ok = any(re.search(rf"(?<![\w.-]){re.escape(default)}(?![\w-]|\.\d)", t) for t in tails)
        check(ok, f"{m['name']}: --{p['name']} states its default {default}")
        if p["type"] == "choice":
            check(all(c in text for c in p["choices"]), f"--{p['name']} lists its choices {p['choices']}")

# `ctrecon-cli --help`: every command and option line "  NAME  summary" has
# its summary in one column, past the longest name (a 15-letter command
# once pushed its own summary one column right of the others').
r = run("--help")
rows = []
section = None
for line in r.stdout.splitlines():
    if line in ("Commands:", "Options:"):
        section = line
    elif not line.strip():
        section = None
    elif section is not None:
        m = re.match(r"^  (-\S+, --\S+|\S+)( +)(\S.*)$", line)
        rows.append((section, m.group(1), len(line) - len(m.group(3))) if m else (section, line, None))
commands = [name for section, name, _ in rows if section == "Commands:"]
check(r.returncode == 0 and len(commands) >= 16 and "--version" in [n for _, n, _ in rows],
      f"ctrecon-cli --help lists the commands and options: {commands}")
width = max(len(name) for _, name, _ in rows)
columns = {col for _, _, col in rows}
check(columns == {2 + width + 2}, f"ctrecon-cli --help: every summary starts in column {2 + width + 2} (two "
      f"spaces past the longest name, {width} letters): "
      f"{[(name, col) for _, name, col in rows if col != 2 + width + 2]} do not")
finish()
