"""A browser's cross-origin requests get the API's answers, refusals included: the error in its
format and status with the CORS headers that let the page read it. (Until #40 found it, every
refusal of a request with an `Origin` header was a bare 500: the CORS middleware wrapped the error
before the error middleware could read it.)"""

from __future__ import annotations

import httpx
import pytest

ORIGIN = "https://app.example.com"


@pytest.mark.parametrize("method, path, body, status, code", [
    ("POST", "/token?grant_type=password", {"email": "nobody@example.com", "password": "wrong password here"}, 400,
     "invalid_credentials"),
    ("GET", "/user", None, 401, "no_authorization"),
    ("POST", "/signup", {"email": "not an address", "password": "x"}, 400, "email_address_invalid"),
    ("GET", "/no/such/route", None, 404, "not_found"),
    ("GET", "/admin/users", None, 401, "no_authorization"),
])
def test_refusals_reach_a_cross_origin_page(latchkey_server, method, path, body, status, code):
    answer = httpx.request(method, f"{latchkey_server.url}{path}", json=body, headers={"Origin": ORIGIN}, trust_env=False)
    assert answer.status_code == status, answer.text
    assert answer.headers.get("x-sb-error-code") == code or answer.json().get("error_code") == code, answer.text
    assert answer.headers["access-control-allow-origin"] == ORIGIN


def test_a_preflight_is_answered(latchkey_server):
    answer = httpx.options(f"{latchkey_server.url}/token", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"},
        trust_env=False)
    assert answer.status_code in (200, 204) and answer.headers["access-control-allow-origin"] == ORIGIN
