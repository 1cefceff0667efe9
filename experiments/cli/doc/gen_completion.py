#!/usr/bin/env python3
"""experiments/cli/doc/gen_completion.py GAR OUT — writes bash completion for
gar to OUT from what the built command GAR prints for --help: the first word
completes to a verb (or --help, -h, --version, -V), `gar help` to a verb,
a verb's first argument to the literal words its usage lines give there
(`gar import` to kineto and nsys), and a word starting with '-' after a
verb to the options that verb's --help lists; any other word completes to a file name, as the verbs' arguments are
files or free text.  Exits 1, saying why, when GAR fails."""

import os
import re
import sys

sys.dont_write_bytecode = True  # the build writes nothing into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from help_text import HelpError, generate

SAFE = re.compile(r"^[A-Za-z0-9_-]+$")


def words(names):
    """`names` as one single-quoted word list; the names are checked to hold
    no character the shell would read."""
    for name in names:
        if not SAFE.match(name):
            raise HelpError("'%s' is not a plain verb or option name" % name)
    return "'" + " ".join(names) + "'"


def script(help):
    verbs = [verb.name for verb in help.verbs]
    out = [
        "# bash completion for gar (%s), generated from its --help texts." % help.version,
        "_gar() {",
        "    local cur=${COMP_WORDS[COMP_CWORD]}",
        "    COMPREPLY=()",
        "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
        "        COMPREPLY=($(compgen -W %s -- \"$cur\"))" %
        words(verbs + ["--help", "-h", "--version", "-V"]),
        "        return 0",
        "    fi",
        "    local options=''",
        "    case ${COMP_WORDS[1]} in",
        "    help)",
        "        [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W %s -- \"$cur\"))" %
        words(verbs),
        "        return 0 ;;",
    ]
    for verb in help.verbs:
        if verb.name == "help":
            continue
        if verb.words:
            # The first argument is one of the words the usage lines spell.
            out.append("    %s) options=%s" % (verb.name, words(verb.options)))
            out.append("        [ \"$COMP_CWORD\" -eq 2 ] && [ \"${cur#-}\" = \"$cur\" ] &&")
            out.append("            COMPREPLY=($(compgen -W %s -- \"$cur\")) && return 0 ;;" %
                       words(verb.words))
        elif verb.options:
            out.append("    %s) options=%s ;;" % (verb.name, words(verb.options)))
    out += [
        "    esac",
        "    case $cur in",
        "    -*) COMPREPLY=($(compgen -W \"$options\" -- \"$cur\")) ;;",
        "    esac",
        "    return 0",
        "}",
        "# A word that completes to nothing above completes to a file name.",
        "complete -o bashdefault -o default -F _gar gar",
    ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(generate(sys.argv, "gen_completion.py", script))
