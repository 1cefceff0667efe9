"""experiments/cli/doc/help_text.py — what the built `gar` says about itself,
read from its own --help output, for the man page and the shell completion
built from it (so neither can drift from the command).

help_of(gar) runs `gar --version`, `gar --help` and `gar VERB --help` for
each verb the overview lists, and returns a Help: the version, the overview
text, and the verbs in the overview's order, each with its one-line summary,
its whole help text, the options that help text lists and the literal
words its usage lines give as the first argument (import's formats).  A command that
fails or prints no verbs raises HelpError, naming the command."""

import re
import subprocess
import sys
from dataclasses import dataclass, field

# A verb line of the overview: two spaces, the name, its summary.
VERB_LINE = re.compile(r"^  ([a-z][a-z-]*) +(\S.*)$")
# An option line of a verb's help: a few spaces, then the option's spelling
# (a continuation line is indented deeper and does not start with '-').
OPTION_LINE = re.compile(r"^ {1,6}(-\S.*?)(?: {2,}|$)")
OPTION_NAME = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)")


class HelpError(Exception):
    pass


@dataclass
class Verb:
    name: str
    summary: str
    help: str = ""
    options: list = field(default_factory=list)
    words: list = field(default_factory=list)  # literal first arguments (import's formats)


@dataclass
class Help:
    version: str
    overview: str
    verbs: list


def run(gar, *args):
    done = subprocess.run([gar, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise HelpError(f"'gar {' '.join(args)}' exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def is_heading(lines, k):
    """Whether lines[k] heads a part of a help text ("options:", "example:"):
    unindented, lowercase, ending in ':', after a blank line (a sentence
    ending in ':' continues a paragraph instead)."""
    line = lines[k]
    return (line[:1].islower() and line.endswith(":") and
            (k == 0 or lines[k - 1].strip() == ""))


def options_of(text):
    """The option spellings (--long and -x) the "options:" part of a verb's
    help lists, in order, once each."""
    seen = []
    lines = text.splitlines()
    in_options = False
    for k, line in enumerate(lines):
        if is_heading(lines, k):
            in_options = line == "options:"
            continue
        m = OPTION_LINE.match(line) if in_options else None
        if m is None:
            continue
        for name in OPTION_NAME.findall(m.group(1)):
            if name not in seen:
                seen.append(name)
    return seen


# A usage line of a verb's help: "usage: gar VERB ..." or the same indented.
USAGE_LINE = re.compile(r"^(?:usage:)? +gar ([a-z][a-z-]*) (\S+)")


def words_of(name, text):
    """The literal words a verb's usage lines give as its first argument, in
    order, once each: `gar import kineto ...` and `gar import nsys ...` give
    kineto and nsys.  A placeholder (TRACE), an option or a bracket is none."""
    seen = []
    for line in text.splitlines():
        if not line.strip():
            break  # the usage lines end at the first blank line
        m = USAGE_LINE.match(line)
        if m is not None and m.group(1) == name and re.match(r"^[a-z][a-z0-9-]*$", m.group(2)):
            if m.group(2) not in seen:
                seen.append(m.group(2))
    return seen


def help_of(gar):
    version = run(gar, "--version").strip()
    overview = run(gar, "--help")
    in_verbs = False
    verbs = []
    for line in overview.splitlines():
        if line == "verbs:":
            in_verbs = True
            continue
        if in_verbs and not line.strip():
            break  # the parts after the verbs (exit status, environment)
        m = VERB_LINE.match(line) if in_verbs else None
        if m is not None:
            verbs.append(Verb(m.group(1), m.group(2)))
    if not verbs:
        raise HelpError("'gar --help' lists no verbs under 'verbs:'")
    for verb in verbs:
        verb.help = run(gar, verb.name, "--help")
        verb.options = options_of(verb.help)
        verb.words = words_of(verb.name, verb.help)
    return Help(version, overview, verbs)


def generate(argv, name, make):
    """The main of a generator NAME: `NAME GAR OUT` writes make(help of GAR)
    to OUT.  Returns the exit status: 0, or 1 with the fault on stderr."""
    if len(argv) != 3:
        sys.stderr.write("usage: %s GAR OUT\n" % name)
        return 1
    try:
        text = make(help_of(argv[1]))
    except (HelpError, OSError) as e:
        sys.stderr.write("%s: %s\n" % (name, e))
        return 1
    with open(argv[2], "w", encoding="ascii") as f:
        f.write(text)
    return 0
