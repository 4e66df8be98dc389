#!/usr/bin/env python3
# doc-blocks.py: takes the code blocks a check runs out of the documentation, so that the check runs the commands the
# docs show and the two cannot drift apart.
#   python3 scripts/doc-blocks.py OUTDIR SOURCE.md [OTHER.md ...]
# A block is named by an HTML comment on the line right before its opening fence (invisible on GitHub and on the site):
#   <!-- package-test: NAME -->
# Each named block of SOURCE is written to OUTDIR/NAME (spaces in NAME become '-'), as it stands. In the OTHER files, a
# block named "same" repeats commands of SOURCE: each of its command lines (trailing "  # comment" and spacing aside) must
# be a command line of one of SOURCE's named blocks, or this fails. Exits 1 (and says why) when SOURCE names no block,
# a marker is not followed by a fence, or a "same" block has a line SOURCE does not run.
import os
import re
import sys

MARKER = re.compile(r"^<!--\s*package-test:\s*(.+?)\s*-->\s*$")


def blocks(path):
    """(name, text, line number) of each named block of the file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, errors = [], []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            errors.append(f"{path}:{i + 1}: marker '{m.group(1)}' is not followed by a code fence")
            continue
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            errors.append(f"{path}:{i + 2}: code fence not closed")
            continue
        found.append((m.group(1), "\n".join(lines[i + 2:end]) + "\n", i + 1))
    return found, errors


def commands(text):
    """The block's command lines: a trailing comment (after whitespace) and repeated spaces do not count."""
    out = []
    for line in text.split("\n"):
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            out.append(re.sub(r"\s+", " ", line))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: doc-blocks.py OUTDIR SOURCE.md [OTHER.md ...]")
    outdir, source, others = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    named, errors = blocks(source)
    if not named:
        errors.append(f"{source}: no '<!-- package-test: NAME -->' block")
    run = set()
    for name, text, _ in named:
        with open(os.path.join(outdir, name.replace(" ", "-")), "w", encoding="utf-8") as f:
            f.write(text)
        run.update(commands(text))
    for other in others:
        found, errs = blocks(other)
        errors += errs
        for name, text, at in found:
            if name != "same":
                errors.append(f"{other}:{at}: only 'same' blocks are allowed outside {source} (got '{name}')")
                continue
            for cmd in commands(text):
                if cmd not in run:
                    errors.append(f"{other}:{at}: '{cmd}' is not a command of {source}'s checked blocks")
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
