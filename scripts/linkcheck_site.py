"""Run LinkChecker (same arguments) so that it works as root in any folder, and fails loudly
when a plugin it was asked to enable (AnchorCheck) did not load.

In:  LinkChecker's command line, e.g. ``python scripts/linkcheck_site.py --config rc URL``.
Out: LinkChecker's output and exit status; exit 3 with a message when an enabled plugin
     (or one named in ``$LINKCHECK_REQUIRE``, comma-separated) is missing.

Why: run as root, LinkChecker switches to the user ``nobody`` before it loads its plugins.
In a repository only root can read (mode 700, like /root or a ``mktemp -d``), ``nobody``
cannot list the plugin folder of the virtualenv, and AnchorCheck is silently skipped, so
broken anchors pass. It only reads our own site on 127.0.0.1, so it keeps the user it has.
"""
from __future__ import annotations

import os
import sys

from linkcheck import plugins
from linkcheck.command import linkchecker as command

command.drop_privileges = lambda: None   # keep read access to the virtualenv and the site

_init = plugins.PluginManager.__init__


def _checked_init(self, config):
    _init(self, config)
    loaded = {type(p).__name__ for p in self.connection_plugins + self.content_plugins + self.parser_plugins}
    required = set(config["enabledplugins"]) | set(filter(None, os.environ.get("LINKCHECK_REQUIRE", "").split(",")))
    missing = sorted(required - loaded)
    if missing:
        sys.stderr.write(f"LinkChecker did not load the plugin(s) {', '.join(missing)}; "
                         f"their checks would be skipped silently\n")
        sys.stderr.flush()
        os._exit(3)   # LinkChecker runs this in a thread; exit the whole process


plugins.PluginManager.__init__ = _checked_init

if __name__ == "__main__":
    sys.argv[0] = "linkchecker"
    sys.exit(command.linkchecker())
