#!/usr/bin/env python3
"""embed_text.py IN OUT SYMBOL -- writes a C file defining
`const char SYMBOL[]`, the bytes of IN followed by a NUL (PTX is text, and
cuModuleLoadData reads it as a NUL-terminated string)."""
import sys


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: embed_text.py IN OUT SYMBOL\n")
        return 2
    src, out, symbol = argv[1:]
    with open(src, "rb") as f:
        data = f.read()
    if b"\0" in data:
        sys.stderr.write(f"embed_text.py: {src} holds a NUL byte; it is not text\n")
        return 1
    lines = [f"/* Generated from {src.rsplit('/', 1)[-1]} by embed_text.py: do not edit. */",
             f"extern const char {symbol}[];",
             f"const char {symbol}[] = {{"]
    for i in range(0, len(data), 16):
        lines.append("    " + " ".join(f"0x{b:02x}," for b in data[i:i + 16]))
    lines += ["    0x00", "};", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
