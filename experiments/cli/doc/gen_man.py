#!/usr/bin/env python3
"""experiments/cli/doc/gen_man.py GAR OUT — writes the man page gar(1) to OUT
from what the built command GAR prints for --help: the overview becomes
NAME, SYNOPSIS, DESCRIPTION and the list of verbs, and each verb's own
--help text becomes a section of its own, word for word (its parts, such as
"options:", as subsections); the overview's exit status, environment and
files parts become EXIT STATUS, ENVIRONMENT and FILES.  The page has no date, so a rebuild of the same
source writes the same page.  Exits 1, saying why, when GAR fails."""

import os
import sys

sys.dont_write_bytecode = True  # the build writes nothing into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from help_text import generate, is_heading


def roff(text):
    """`text` as roff prints it literally: backslashes, dashes, quotes and
    non-ASCII characters escaped, and a leading '.' or "'" kept as text."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ch == "`":
            out.append("\\(ga")
        elif ch == "'":
            out.append("\\(aq")
        elif ord(ch) > 126:
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    line = "".join(out)
    return "\\&" + line if line.startswith(".") else line


def literal(lines):
    """`lines` as a no-fill block: the help's own layout, kept."""
    body = [".nf"]
    body += [roff(line) if line.strip() else "" for line in lines]
    body.append(".fi")
    return body


def parts(text):
    """The help text split at its headings: [(heading or None, lines)]."""
    lines = text.rstrip("\n").splitlines()
    found = [(None, [])]
    for k, line in enumerate(lines):
        if is_heading(lines, k):
            found.append((line[:-1], []))
        else:
            found[-1][1].append(line)
    return [(h, body) for h, body in found if h is not None or any(x.strip() for x in body)]


def trim(lines):
    """`lines` without the blank lines at either end."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def page(help):
    version = help.version.split()[-1]
    out = ['.TH GAR 1 "" "gar %s" "User Commands"' % roff(version)]
    intro = [line for line in help.overview.splitlines()
             if not line.startswith("usage:")]
    intro = trim(intro[:intro.index("verbs:")] if "verbs:" in intro else intro)
    out += [".SH NAME", "gar \\- " + roff(intro[0].split(" ", 1)[1].rstrip(".")) if intro else ""]
    out += [".SH SYNOPSIS", ".B gar", ".I VERB", "[\\fIOPTIONS\\fR] [\\fIARGS\\fR]", ".br",
            ".B gar \\-\\-version", "|", ".B \\-V", ".br", ".B gar", ".I VERB", ".B \\-\\-help"]
    out += [".SH DESCRIPTION"] + literal(intro)
    out += [".SH VERBS"]
    for verb in help.verbs:
        out += [".TP", ".B " + roff(verb.name), roff(verb.summary)]
    # The overview's parts after its verbs ("exit status:", "environment:",
    # "files:"): sections of their own, as man pages name them.
    for heading, body in parts(help.overview):
        if heading in ("exit status", "environment", "files"):
            out += [".SH " + roff(heading.upper())] + literal(trim(body))
    for verb in help.verbs:
        if verb.name == "help":
            continue  # its help is the overview above
        out += ['.SH "GAR %s"' % roff(verb.name.upper()), roff(verb.summary) + ".", ".PP"]
        for heading, body in parts(verb.help):
            if heading is not None:
                out.append('.SS "%s"' % roff(heading))
            body = trim(body)
            if body:
                out += literal(body)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(generate(sys.argv, "gen_man.py", page))
