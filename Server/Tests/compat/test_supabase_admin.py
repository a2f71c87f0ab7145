"""supabase-py's admin API (`auth.admin.*`) against Latchkey, with a service-role token."""

import time
import uuid

import jwt as pyjwt
import pytest
from supabase_auth._sync.gotrue_admin_api import SyncGoTrueAdminAPI

from conftest import supabase_client
from test_cli import _start_server

SECRET = "a-test-jwt-secret-of-at-least-32-characters"


def service_headers() -> dict:
    """A service-role token signed with ``SECRET``, as headers."""
    service = pyjwt.encode({"role": "service_role", "iss": "supabase", "iat": int(time.time())}, SECRET, algorithm="HS256")
    return {"Authorization": f"Bearer {service}", "apikey": service}


def service_admin(url: str) -> SyncGoTrueAdminAPI:
    """supabase-py's admin API on `url` with a service-role token signed with ``SECRET``."""
    return SyncGoTrueAdminAPI(url=url, headers=service_headers())


@pytest.fixture
def admin_server(tmp_path):
    server, url, log = _start_server(tmp_path, env={"GOTRUE_JWT_SECRET": SECRET, "GOTRUE_MAILER_AUTOCONFIRM": "false"})
    admin = service_admin(url)
    try:
        yield url, admin
    finally:
        admin.close()
        server.terminate()
        server.wait(timeout=20)
        log.close()


def test_admin_users_links_invites_and_sign_out(admin_server):
    url, admin = admin_server
    email = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    password = "correct horse battery staple " + uuid.uuid4().hex[:6]
    created = admin.create_user({"email": email, "password": password, "email_confirm": True, "user_metadata": {"plan": "pro"}})
    assert created.user.email == email and created.user.user_metadata["plan"] == "pro"
    assert email in [u.email for u in admin.list_users()]
    assert admin.get_user_by_id(created.user.id).user.id == created.user.id

    # generate_link: GoTrue's flattened answer parses into properties and user.
    link = admin.generate_link({"type": "magiclink", "email": email, "options": {"redirect_to": "http://localhost:3000/in"}})
    assert link.properties.verification_type == "magiclink" and len(link.properties.email_otp) == 6
    assert link.properties.hashed_token in link.properties.action_link and link.user.email == email
    client = supabase_client(url)
    session = client.verify_otp({"email": email, "token": link.properties.email_otp, "type": "magiclink"}).session
    assert session is not None

    # sign_out with the user's token: the session ends.
    admin.sign_out(session.access_token)
    with pytest.raises(Exception):
        client.refresh_session(session.refresh_token)

    invited = admin.invite_user_by_email(f"invitee-{uuid.uuid4().hex[:8]}@example.com", {"data": {"team": "core"}})
    assert invited.user.invited_at is not None and invited.user.user_metadata["team"] == "core"

    admin.delete_user(created.user.id)
    with pytest.raises(Exception) as missing:
        admin.get_user_by_id(created.user.id)
    assert getattr(missing.value, "status", None) == 404
    client.close()
