"""Redirects as a browser reads them: every ``redirect_to`` Latchkey accepts must send the
browser to an allowed host, by the WHATWG URL standard (``ada-url``), not by Foundation's reading.

The table is ``Tests/support/redirects.json`` (shared with ``RedirectTests.swift``), widened here
by every separator a browser might read differently placed between an attacker's host and an
allowed one.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from ada_url import URL

from conftest import running_server

TABLE = json.loads((Path(__file__).resolve().parents[1] / "support" / "redirects.json").read_text())
SITE_HOST = "app.example.com"

SEPARATORS = ["\\", "@", "%40", "%5C", "%5c", "/", "?", "#", "\t", "\n", ":", ".", "%2e", "%2E", "%2f", ";", "&", "%00", "%09", "\u3002", "\uff0e", "\\\\", "/\\", "\\/", "%252e"]
HOSTILE_HOSTS = ["attacker.com", "attacker.com:443", "0x7f.1"]
ALLOWED_HOSTS = ["app.example.com", "x.preview.example.com", "localhost:3000", "docs.example.com"]


def generated() -> list[str]:
    out = []
    for sep, bad, good in itertools.product(SEPARATORS, HOSTILE_HOSTS, ALLOWED_HOSTS):
        scheme = "http" if good.startswith("localhost") else "https"
        out.append(f"{scheme}://{bad}{sep}{good}/cb")
        out.append(f"{scheme}://{good}{sep}{bad}/cb")
        out.append(f"{scheme}:{sep}{bad}{sep}{good}")
    return out


def host_is_allowed(url: URL) -> bool:
    """The allow list of the table, read as the browser reads the redirect."""
    if url.protocol == "myapp:":
        return url.host == "callback"
    if url.protocol == "https:" and url.port == "":
        if url.hostname in (SITE_HOST, "docs.example.com"):
            return True
        return re.fullmatch(r"[a-z0-9-]+\.preview\.example\.com", url.hostname) is not None
    return url.protocol == "http:" and url.hostname == "localhost"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {"GOTRUE_SITE_URL": TABLE["site_url"], "GOTRUE_URI_ALLOW_LIST": ",".join(TABLE["allow_list"])}
    with running_server(tmp_path_factory.mktemp("redirects"), env) as running:
        yield running


def location_for(server, redirect_to: str) -> str:
    """The ``Location`` of a failed link click that asked for ``redirect_to``: the confirmation
    page's form posting a link that matches nothing."""
    resp = httpx.post(
        f"{server.url}/verify",
        content=f"token=unknown&type=magiclink&redirect_to={quote(redirect_to, safe='')}",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
        trust_env=False,
    )
    assert resp.status_code == 303, resp.text
    return resp.headers["location"]


@pytest.mark.parametrize("redirect_to", TABLE["hostile"] + generated())
def test_a_browser_following_the_answer_lands_on_an_allowed_host(server, redirect_to):
    location = URL(location_for(server, redirect_to))
    assert host_is_allowed(location), (redirect_to, location.href)
    if location.hostname != SITE_HOST or location.pathname != "/":
        # Accepted: the input itself, as a browser reads it, must name that host.
        try:
            as_sent = URL(redirect_to)
        except ValueError:
            pytest.fail(f"accepted {redirect_to!r}, which a browser cannot parse")
        assert host_is_allowed(as_sent), (redirect_to, as_sent.href)
        assert (as_sent.protocol, as_sent.host) == (location.protocol, location.host)


@pytest.mark.parametrize("redirect_to,canonical", sorted(TABLE["allowed"].items()))
def test_allowed_redirects_carry_the_session_to_the_same_place_a_browser_reads(server, redirect_to, canonical):
    location = URL(location_for(server, redirect_to))
    as_sent = URL(redirect_to)
    assert (location.protocol, location.host, location.pathname) == (as_sent.protocol, as_sent.host, as_sent.pathname)
    assert location.href.startswith(canonical)
