"""Run LinkChecker (same arguments) so that it works as root in any folder, and fails loudly
when a plugin it was asked to enable (AnchorCheck) did not load.

In:  LinkChecker's command line, e.g. ``python scripts/dev/linkcheck_site.py --config rc URL``.
Out: LinkChecker's output and exit status; exit 3 with a message when an enabled plugin
     (or one named in ``$LINKCHECK_REQUIRE``, comma-separated) is missing.

Why (privileges): run as root, LinkChecker switches to the user ``nobody`` before it loads its plugins.
In a repository only root can read (mode 700, like /root or a ``mktemp -d``), ``nobody``
cannot list the plugin folder of the virtualenv, and AnchorCheck is silently skipped, so
broken anchors pass. It only reads our own site on 127.0.0.1, so it keeps the user it has.

Why (speed, same verdicts): with AnchorCheck on, LinkChecker treats ``page#a`` and ``page#b`` as
two URLs and, for each, parses the whole page twice (anchors, then links), reading the text of
every element though only ``<a>`` uses it. On this site that is 2,773 URLs for 348 pages and
about 100 s. Here a page is parsed once: its links, anchors and meta robots tag are taken from
that parse and reused for its other fragments (a static page is the same whatever the fragment);
an element's text is read only for ``<a>``; debug logging is off unless ``--debug`` is given.
Every link and every fragment is still checked by LinkChecker's own code: about 16 s.
``tests/test_site.py`` proves a missing fragment on an already parsed page is still caught.
"""
from __future__ import annotations

import os
import sys
import threading
from urllib.parse import urldefrag

from linkcheck import log as linklog
from linkcheck import parser, plugins
from linkcheck.checker import httpurl
from linkcheck.command import linkchecker as command
from linkcheck.htmlutil import linkparse
from linkcheck.plugins import anchorcheck

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


def _find_links(soup, callback, tags):
    """linkparse.find_links, reading an element's text only where LinkChecker uses it (``<a>``)."""
    finder = linkparse.LinkFinder(callback, tags)
    for element in soup.find_all(True):
        finder.html_element(element.name, element.attrs, element.text.strip() if element.name == "a" else "",
                            element.sourceline, None if element.sourcepos is None else element.sourcepos + 1)


linkparse.find_links = _find_links

_lock = threading.Lock()
_anchors: dict[str, list] = {}   # page URL without fragment -> LinkChecker's anchor list for it
_parsed: set[str] = set()        # pages whose links are already queued


def _page_anchors(page: str, url_data) -> list:
    """LinkChecker's anchor list for ``page``, collected from ``url_data``'s parsed content once."""
    with _lock:
        found = _anchors.get(page)
    if found is None:
        collector = anchorcheck.UrlAnchorCheck()
        linkparse.find_links(url_data.get_soup(), collector.add_anchor, linkparse.AnchorTags)
        found = collector.anchors
        with _lock:
            _anchors[page] = found
    return found


def _check_anchor(self, url_data):
    """AnchorCheck.check with the page's anchors collected once per page, not once per fragment."""
    found = _page_anchors(urldefrag(url_data.url)[0], url_data)
    checker = anchorcheck.UrlAnchorCheck()
    checker.anchors = found
    checker.check_anchor(url_data)


anchorcheck.AnchorCheck.check = _check_anchor

_parse_url = parser.parse_url


def _parse_once(url_data):
    """Queue a page's links once; ``page#a`` and ``page#b`` have the same links."""
    page = urldefrag(url_data.url)[0]
    with _lock:
        if page in _parsed:
            return
        _parsed.add(page)
    if url_data.is_html():   # its anchors too, from the same parse: the fragments met later need no parse
        _page_anchors(page, url_data)
    _parse_url(url_data)


parser.parse_url = _parse_once

_robots: dict[str, bool] = {}   # page URL without fragment -> does its content allow recursion
_content_allows_robots = httpurl.HttpUrl.content_allows_robots


def _content_allows_robots_once(self):
    """HttpUrl.content_allows_robots (a meta robots tag), read once per page rather than per fragment."""
    page = urldefrag(self.url)[0]
    with _lock:
        allowed = _robots.get(page)
    if allowed is None:
        allowed = _content_allows_robots(self)
        with _lock:
            _robots[page] = allowed
    return allowed


httpurl.HttpUrl.content_allows_robots = _content_allows_robots_once

if not {"-D", "--debug"} & set(sys.argv):   # LinkChecker calls log.debug about 700,000 times on this site
    linklog.debug = lambda *args, **kwargs: None

if __name__ == "__main__":
    sys.argv[0] = "linkchecker"
    sys.exit(command.linkchecker())
